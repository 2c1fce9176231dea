package soak

import "testing"

// TestProbeLog counts the breakers' verdicts by item from function log
// lines as the llm stage writes them, and ignores every other line.
func TestProbeLog(t *testing.T) {
	t.Parallel()
	p := newProbeLog()
	lines := []string{
		`{"time":"2026-11-27T05:19:00Z","level":"WARN","msg":"breaker probe failed; open again; the probe's item waits without spending an attempt","service":"llm:openai","class":"AUTH_DENIED","item_id":"item-0172"}`,
		`{"level":"WARN","msg":"breaker probe failed; open again; the probe's item waits without spending an attempt","item_id":"item-0172"}`,
		`{"level":"WARN","msg":"breaker probe failed; open again","item_id":"item-0190"}`,
		`{"level":"WARN","msg":"a failure that follows its item: judged the item's own, not counted toward the breaker","item_id":"item-0172"}`,
		`{"level":"INFO","msg":"breaker probe succeeded; closed","item_id":"item-0001"}`,
		`{"level":"WARN","msg":"breaker probe failed; open again"}`,
		`not json at all`,
	}
	for _, l := range lines {
		p.Observe("LLMFunc", l)
	}
	failed, judged := p.counts()
	if len(failed) != 2 || failed["item-0172"] != 2 || failed["item-0190"] != 1 {
		t.Errorf("failed probes = %v", failed)
	}
	if len(judged) != 1 || judged["item-0172"] != 1 {
		t.Errorf("judged = %v", judged)
	}
}
