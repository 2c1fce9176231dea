package soak

import (
	"regexp"
	"strings"
	"sync"
)

// probeLog reads the functions' log for the breakers' verdicts on items: the
// probes that failed (and reopened a breaker), by item, and the failures
// judged an item's own. An item that is the failed probe again and again is
// the signature of a poison item holding its provider's breaker
// (docs/design.md "A failure that follows one item"): no item may be it more
// than the profile allows.
type probeLog struct {
	mu     sync.Mutex
	failed map[string]int
	judged map[string]int
}

// Log messages the breakers write (internal/gates/breaker).
const (
	msgProbeFailed = `"msg":"breaker probe failed`
	msgJudgedOwn   = `"msg":"a failure that follows its item`
)

var logItemRE = regexp.MustCompile(`"item_id":"([^"]{1,256})"`)

func newProbeLog() *probeLog { return &probeLog{failed: map[string]int{}, judged: map[string]int{}} }

// Observe counts a function log line (a devstack OnLog callback).
func (p *probeLog) Observe(_, line string) {
	var into map[string]int
	switch {
	case strings.Contains(line, msgProbeFailed):
		into = p.failed
	case strings.Contains(line, msgJudgedOwn):
		into = p.judged
	default:
		return
	}
	m := logItemRE.FindStringSubmatch(line)
	if m == nil {
		return
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	into[m[1]]++
}

// counts returns copies of the two tallies.
func (p *probeLog) counts() (failed, judged map[string]int) {
	p.mu.Lock()
	defer p.mu.Unlock()
	failed, judged = make(map[string]int, len(p.failed)), make(map[string]int, len(p.judged))
	for k, v := range p.failed {
		failed[k] = v
	}
	for k, v := range p.judged {
		judged[k] = v
	}
	return failed, judged
}
