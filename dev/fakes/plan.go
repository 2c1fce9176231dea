package fakes

import (
	"errors"
	"fmt"
	"hash/fnv"
	"maps"
	"math"
	"slices"
	"strconv"
	"strings"
	"sync"
)

// Fault is a named misbehaviour a fake applies to one call. A Fault may be
// spelled with the "always:" prefix (see Always): in a script such an entry
// repeats forever; in a Mix it is chosen once per key and applies to every
// call of that key. The zero value "" means FaultNone.
type Fault string

// alwaysPrefix marks a persistent fault: "always:invalid_json".
const alwaysPrefix = "always:"

// Faults every fake knows. Which fake supports which is listed by LLMFaults,
// ArticleFaults and WebhookFaults; the response each produces is documented
// on the fake.
const (
	// FaultNone is a normal, successful answer. "ok" and "" parse to it.
	FaultNone Fault = "none"

	// FaultRateLimit is a 429 with the server's Retry-After (LLM, articles).
	FaultRateLimit Fault = "rate_limit"
	// FaultQuota is OpenAI's 429 insufficient_quota (LLM).
	FaultQuota Fault = "quota"
	// FaultServerError is a 500 (all fakes).
	FaultServerError Fault = "server_error"
	// FaultUnavailable is a 503 (all fakes); outages answer it too.
	FaultUnavailable Fault = "unavailable"
	// FaultBadGateway is a 502 with an HTML body (LLM).
	FaultBadGateway Fault = "bad_gateway"
	// FaultHang holds the request until the client gives up or the server's
	// MaxHang elapses, then answers 504 (all fakes).
	FaultHang Fault = "hang"
	// FaultReset sends the headers and part of the body, then resets the TCP
	// connection (all fakes).
	FaultReset Fault = "reset"

	// FaultInvalidJSON is a 200 whose message content is not JSON (LLM).
	FaultInvalidJSON Fault = "invalid_json"
	// FaultSchemaMismatch is a 200 whose content is JSON without the required
	// enrichment fields (LLM).
	FaultSchemaMismatch Fault = "schema_mismatch"
	// FaultEmpty is a 200 with empty message content (LLM) or an empty
	// document (articles).
	FaultEmpty Fault = "empty"
	// FaultContentPolicy is a 400 content_policy_violation (LLM).
	FaultContentPolicy Fault = "content_policy"
	// FaultContentFilter is an Azure-style 200 with finish_reason
	// "content_filter" and empty content (LLM).
	FaultContentFilter Fault = "content_filter"
	// FaultContextLength is a 400 context_length_exceeded (LLM).
	FaultContextLength Fault = "context_length"
	// FaultAuth is a 401 invalid_api_key (LLM).
	FaultAuth Fault = "auth"
	// FaultModelNotFound is a 404 model_not_found (LLM).
	FaultModelNotFound Fault = "model_not_found"
	// FaultActionFailed is a 200 with valid enrichment JSON followed by
	// "ACTION_OUTCOME: failed | target system rejected the change" (LLM).
	FaultActionFailed Fault = "action_failed"
	// FaultCutOff is a 200 whose answer stopped at the output token limit
	// half way through the JSON: OpenAI finish_reason "length", Anthropic
	// and Bedrock "max_tokens" (LLM).
	FaultCutOff Fault = "cut_off"
	// FaultRefusal is a 200 in which the model declines: OpenAI's
	// message.refusal, Anthropic's stop_reason "refusal", a plain-text
	// refusal from a Bedrock model (LLM).
	FaultRefusal Fault = "refusal"
	// FaultModelTimeout is Bedrock's 408 ModelTimeoutException; the HTTP
	// dialects answer a 504 (LLM).
	FaultModelTimeout Fault = "model_timeout"
	// FaultModelNotReady is Bedrock's 429 ModelNotReadyException; the HTTP
	// dialects answer their 503 (LLM).
	FaultModelNotReady Fault = "model_not_ready"
	// FaultModelError is Bedrock's 424 ModelErrorException; the HTTP
	// dialects answer their 500 (LLM).
	FaultModelError Fault = "model_error"

	// FaultNotFound is a 404 (articles).
	FaultNotFound Fault = "not_found"
	// FaultGone is a 410 (articles).
	FaultGone Fault = "gone"
	// FaultSlow trickles the article in chunks, bounded in total time (articles).
	FaultSlow Fault = "slow"
	// FaultHuge streams a body far larger than any sane limit, generated on
	// the fly (articles).
	FaultHuge Fault = "huge"

	// FaultRateLimitSlack is a Slack-style 429 "rate_limited" (webhook).
	FaultRateLimitSlack Fault = "rate_limit_slack"
	// FaultRateLimitDiscord is a Discord-style 429 with a JSON retry_after
	// (webhook).
	FaultRateLimitDiscord Fault = "rate_limit_discord"
	// FaultChannelNotFound is a 404 "channel_not_found" (webhook).
	FaultChannelNotFound Fault = "channel_not_found"
	// FaultArchived is a 410 "channel_is_archived" (webhook).
	FaultArchived Fault = "archived"
	// FaultInvalidPayload is a 400 "invalid_payload" (webhook).
	FaultInvalidPayload Fault = "invalid_payload"
	// FaultUnauthorized is a Discord-style 401 {"message": "401: Unauthorized"}
	// (webhook).
	FaultUnauthorized Fault = "unauthorized"
)

// faultTable lists every fault once, in documentation order, with whether it
// is permanent: an upstream that answers it once answers it again for the same
// input until someone fixes something. Transient faults are the ones a retry
// can outlive.
var faultTable = []struct {
	fault     Fault
	permanent bool
}{
	{FaultNone, false},
	{FaultRateLimit, false},
	{FaultQuota, false},
	{FaultServerError, false},
	{FaultUnavailable, false},
	{FaultBadGateway, false},
	{FaultHang, false},
	{FaultReset, false},
	{FaultInvalidJSON, false},
	{FaultSchemaMismatch, false},
	{FaultEmpty, false},
	{FaultContentPolicy, true},
	{FaultContentFilter, true},
	{FaultContextLength, true},
	{FaultAuth, true},
	{FaultModelNotFound, true},
	{FaultActionFailed, false},
	{FaultCutOff, false},
	{FaultRefusal, true},
	{FaultModelTimeout, false},
	{FaultModelNotReady, false},
	{FaultModelError, false},
	{FaultNotFound, true},
	{FaultGone, true},
	{FaultSlow, false},
	{FaultHuge, true},
	{FaultRateLimitSlack, false},
	{FaultRateLimitDiscord, false},
	{FaultChannelNotFound, true},
	{FaultArchived, true},
	{FaultInvalidPayload, true},
	{FaultUnauthorized, true},
}

// Faults lists every fault, FaultNone first.
func Faults() []Fault {
	out := make([]Fault, len(faultTable))
	for i, row := range faultTable {
		out[i] = row.fault
	}
	return out
}

// LLMFaults lists the faults the fake LLM server supports, FaultNone first.
func LLMFaults() []Fault {
	return []Fault{
		FaultNone, FaultRateLimit, FaultQuota, FaultServerError, FaultUnavailable, FaultBadGateway,
		FaultHang, FaultReset, FaultInvalidJSON, FaultSchemaMismatch, FaultEmpty, FaultContentPolicy,
		FaultContentFilter, FaultContextLength, FaultAuth, FaultModelNotFound, FaultActionFailed,
		FaultCutOff, FaultRefusal, FaultModelTimeout, FaultModelNotReady, FaultModelError,
	}
}

// ArticleFaults lists the faults the fake article server supports, FaultNone
// first.
func ArticleFaults() []Fault {
	return []Fault{
		FaultNone, FaultNotFound, FaultGone, FaultServerError, FaultUnavailable, FaultRateLimit,
		FaultHang, FaultSlow, FaultHuge, FaultReset, FaultEmpty,
	}
}

// WebhookFaults lists the faults the fake webhook receiver supports, FaultNone
// first.
func WebhookFaults() []Fault {
	return []Fault{
		FaultNone, FaultServerError, FaultUnavailable, FaultRateLimitSlack, FaultRateLimitDiscord,
		FaultChannelNotFound, FaultArchived, FaultInvalidPayload, FaultUnauthorized, FaultHang, FaultReset,
	}
}

// ParseFault returns the fault named s, accepting the "always:" prefix. ""
// and "ok" parse to FaultNone; "always:none" is an error, because a
// persistent success is just the end of a script.
func ParseFault(s string) (Fault, error) {
	name := strings.TrimSpace(s)
	always := strings.HasPrefix(name, alwaysPrefix)
	name = strings.TrimPrefix(name, alwaysPrefix)
	if name == "" || name == "ok" {
		name = string(FaultNone)
	}
	f := Fault(name)
	if _, ok := f.lookup(); !ok {
		return "", fmt.Errorf("unknown fault %q (want one of %s)", s, joinFaults(Faults()))
	}
	if always {
		if f == FaultNone {
			return "", fmt.Errorf("fault %q: only a fault can be persistent", s)
		}
		return Always(f), nil
	}
	return f, nil
}

// Always returns f spelled persistent ("always:" + f). It is idempotent, and
// Always(FaultNone) is FaultNone.
func Always(f Fault) Fault {
	b := f.Base()
	if b == FaultNone {
		return FaultNone
	}
	return Fault(alwaysPrefix) + b
}

// Base returns f without the "always:" prefix; "" becomes FaultNone.
func (f Fault) Base() Fault {
	b := Fault(strings.TrimPrefix(string(f), alwaysPrefix))
	if b == "" {
		return FaultNone
	}
	return b
}

// Repeats reports whether f is spelled "always:...". In a script, such an
// entry repeats for every later call.
func (f Fault) Repeats() bool { return strings.HasPrefix(string(f), alwaysPrefix) }

// Permanent reports whether f's base fault is permanent by nature (content
// policy, context length, auth, not found, gone, huge and the webhook's 4xx
// answers). In a Mix, permanent faults — like "always:" ones — stick to the
// key that drew them; other faults are transient.
func (f Fault) Permanent() bool {
	row, _ := f.Base().lookup()
	return row
}

// Valid reports whether f is a known fault, with or without the prefix.
func (f Fault) Valid() bool {
	_, err := ParseFault(string(f))
	return err == nil
}

// UnmarshalText parses a fault name with ParseFault, so JSON control requests
// reject unknown names, including as map keys.
func (f *Fault) UnmarshalText(b []byte) error {
	v, err := ParseFault(string(b))
	if err != nil {
		return err
	}
	*f = v
	return nil
}

func (f Fault) lookup() (permanent, ok bool) {
	for _, row := range faultTable {
		if row.fault == f {
			return row.permanent, true
		}
	}
	return false, false
}

// sticky reports whether a Mix applies f to every call of the key that drew it.
func (f Fault) sticky() bool { return f.Repeats() || f.Permanent() }

func joinFaults(fs []Fault) string {
	s := make([]string, len(fs))
	for i, f := range fs {
		s[i] = string(f)
	}
	return strings.Join(s, ", ")
}

// DefaultTransientCalls is Mix.TransientCalls when it is zero.
//
// Two is chosen so that a key whose faults are all transient succeeds by its
// third call, inside every retryable class's default attempt budget
// (RESPONSE_INVALID and ACTION_FAILED allow 3 attempts, the rest 5).
const DefaultTransientCalls = 2

// Mix is a seeded random fault mix. The fault of call n (1-based) of key k is
// a pure function of (Seed, k, n), so the same seed gives the same faults
// whatever the order or concurrency of the calls:
//
//   - Sticky faults — permanent ones (see Fault.Permanent) and any spelled
//     "always:" — are drawn once per key from u0 = hash(Seed, k, 0). A key
//     that draws one gets it on every call.
//   - Otherwise transient faults are drawn for calls 1..TransientCalls, each
//     from its own un = hash(Seed, k, n). Later calls succeed.
//
// A draw walks the group's faults in name order, accumulating their rates,
// and picks the first whose running sum exceeds u; with u past the group's
// total the draw is FaultNone. So Rates are per-key probabilities for sticky
// faults and per-call probabilities for transient ones, and each group's rates
// must sum to at most 1. The hash is FNV-1a of the key mixed with the seed and
// the call number through splitmix64.
type Mix struct {
	// Seed selects the sequence; 0 is a valid seed.
	Seed uint64 `json:"seed"`
	// Rates maps a fault (optionally "always:") to its probability in [0, 1].
	// An empty map turns the mix off.
	Rates map[Fault]float64 `json:"rates"`
	// TransientCalls bounds the calls of a key that can draw a transient
	// fault; 0 means DefaultTransientCalls. Call TransientCalls+1 of a key
	// without a sticky fault always succeeds.
	TransientCalls int `json:"transient_calls,omitempty"`
}

// Validate reports unknown faults, FaultNone, rates outside [0, 1], a group
// summing to more than 1, and a negative TransientCalls.
func (m Mix) Validate() error {
	_, err := m.compile()
	return err
}

// Fault returns the fault of call (1-based) of key. It ignores outage and
// fix switches and returns FaultNone for an invalid mix or call < 1. It
// validates the mix on every call; a Plan validates it once, in SetMix.
func (m Mix) Fault(key string, call int) Fault {
	c, err := m.compile()
	if err != nil {
		return FaultNone
	}
	return c.fault(key, call)
}

type weighted struct {
	fault Fault
	rate  float64
}

// compiledMix is a validated Mix with its groups sorted, ready to draw from.
type compiledMix struct {
	seed           uint64
	transientCalls int
	sticky         []weighted
	transient      []weighted
}

func (m Mix) compile() (compiledMix, error) {
	c := compiledMix{seed: m.Seed, transientCalls: m.TransientCalls}
	if m.TransientCalls < 0 {
		return c, fmt.Errorf("mix transient_calls %d: must not be negative", m.TransientCalls)
	}
	if c.transientCalls == 0 {
		c.transientCalls = DefaultTransientCalls
	}
	var stickySum, transientSum float64
	for f, rate := range m.Rates {
		parsed, err := ParseFault(string(f))
		if err != nil {
			return c, fmt.Errorf("mix: %w", err)
		}
		if parsed.Base() == FaultNone {
			return c, errors.New("mix: \"none\" has no rate; successes are what the rates leave")
		}
		if math.IsNaN(rate) || rate < 0 || rate > 1 {
			return c, fmt.Errorf("mix rate of %s is %v: want a probability in [0, 1]", f, rate)
		}
		if rate == 0 {
			continue
		}
		if parsed.sticky() {
			c.sticky = append(c.sticky, weighted{parsed, rate})
			stickySum += rate
		} else {
			c.transient = append(c.transient, weighted{parsed, rate})
			transientSum += rate
		}
	}
	const slack = 1e-9
	if stickySum > 1+slack {
		return c, fmt.Errorf("mix: sticky (permanent or always:) rates sum to %v, more than 1", stickySum)
	}
	if transientSum > 1+slack {
		return c, fmt.Errorf("mix: transient rates sum to %v, more than 1", transientSum)
	}
	byName := func(a, b weighted) int { return strings.Compare(string(a.fault), string(b.fault)) }
	slices.SortFunc(c.sticky, byName)
	slices.SortFunc(c.transient, byName)
	return c, nil
}

func (c compiledMix) fault(key string, call int) Fault {
	if call < 1 {
		return FaultNone
	}
	if f := draw(c.sticky, unit(c.seed, key, 0)); f != FaultNone {
		return f.Base()
	}
	if call > c.transientCalls {
		return FaultNone
	}
	return draw(c.transient, unit(c.seed, key, call)).Base()
}

func draw(group []weighted, u float64) Fault {
	var sum float64
	for _, w := range group {
		sum += w.rate
		if u < sum {
			return w.fault
		}
	}
	return FaultNone
}

// unit maps (seed, key, call) to a uniform float64 in [0, 1).
func unit(seed uint64, key string, call int) float64 {
	return UnitHash(seed, HashString(key), uint64(call))
}

// UnitHash maps its inputs to a uniform float64 in [0, 1): the seed and
// each input in turn mixed through splitmix64. The simulator draws with it
// too.
func UnitHash(seed uint64, xs ...uint64) float64 {
	h := splitmix64(seed)
	for _, x := range xs {
		h = splitmix64(h ^ x)
	}
	return float64(h>>11) / (1 << 53)
}

// HashString is s's 64-bit FNV-1a hash.
func HashString(s string) uint64 {
	h := fnv.New64a()
	_, _ = h.Write([]byte(s))
	return h.Sum64()
}

func splitmix64(x uint64) uint64 {
	x += 0x9e3779b97f4a7c15
	x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9
	x = (x ^ (x >> 27)) * 0x94d049bb133111eb
	return x ^ (x >> 31)
}

// ParseRates parses "fault=rate,fault=rate" (for example
// "rate_limit=0.1,always:invalid_json=0.02") into Mix.Rates. Spaces around
// items are ignored; "" gives an empty map.
func ParseRates(s string) (map[Fault]float64, error) {
	rates := map[Fault]float64{}
	for item := range strings.SplitSeq(s, ",") {
		item = strings.TrimSpace(item)
		if item == "" {
			continue
		}
		name, value, ok := strings.Cut(item, "=")
		if !ok {
			return nil, fmt.Errorf("mix item %q: want fault=rate", item)
		}
		f, err := ParseFault(name)
		if err != nil {
			return nil, err
		}
		rate, err := strconv.ParseFloat(strings.TrimSpace(value), 64)
		if err != nil {
			return nil, fmt.Errorf("mix item %q: %w", item, err)
		}
		rates[f] = rate
	}
	return rates, nil
}

// OutageMode is how a fake answers while an outage is on.
type OutageMode string

const (
	// OutageUnavailable answers every request with the fake's 503 (the
	// default).
	OutageUnavailable OutageMode = "unavailable"
	// OutageHang holds every request like FaultHang.
	OutageHang OutageMode = "hang"
)

// OutageModes lists the outage modes, the default first.
func OutageModes() []OutageMode { return []OutageMode{OutageUnavailable, OutageHang} }

func (m OutageMode) fault() Fault {
	if m == OutageHang {
		return FaultHang
	}
	return FaultUnavailable
}

// Decision is what a Plan decided for one call.
type Decision struct {
	// Key is the call's key (item id, article id, idempotency key).
	Key string
	// Call is the 1-based number of this call for Key.
	Call int
	// Fault is the base fault to apply (never "always:"); FaultNone for a
	// normal answer.
	Fault Fault
	// Outage is set when the outage switch decided the fault.
	Outage bool
	// Fixed is set when the fix switch was on; Fault is then FaultNone unless
	// Outage is set.
	Fixed bool
}

// Plan decides the fault of every call, per key and per call number, from
// scripts, a seeded Mix and two global switches. It is safe for concurrent use.
// Precedence, first match wins:
//
//  1. outage on: FaultUnavailable or FaultHang (see OutageMode);
//  2. fix on: FaultNone;
//  3. the key's script: the n-th call gets the n-th entry; an entry spelled
//     "always:" answers every call from its position on, so entries after it
//     are never reached; past the end, calls succeed;
//  4. the Mix;
//  5. FaultNone.
//
// Every call counts, whatever decided it, so a script entry is consumed by a
// call answered by an outage. Reset forgets counts, scripts, mix and switches.
type Plan struct {
	supported []Fault

	mu         sync.Mutex
	scripts    map[string][]Fault
	mix        compiledMix
	mixSpec    Mix
	outage     bool
	outageMode OutageMode
	fixed      bool
	calls      map[string]int
}

// NewPlan returns an empty plan accepting the given faults (FaultNone,
// FaultUnavailable and FaultHang are always accepted, for outages); with no
// arguments it accepts every fault.
func NewPlan(supported ...Fault) *Plan {
	p := &Plan{}
	if len(supported) > 0 {
		p.supported = append([]Fault{FaultNone, FaultUnavailable, FaultHang}, supported...)
	}
	p.reset()
	return p
}

func (p *Plan) reset() {
	p.scripts = map[string][]Fault{}
	p.mix = compiledMix{}
	p.mixSpec = Mix{}
	p.outage = false
	p.outageMode = OutageUnavailable
	p.fixed = false
	p.calls = map[string]int{}
}

// Supports reports whether the plan accepts f (with or without "always:").
func (p *Plan) Supports(f Fault) bool {
	return p.check(f) == nil
}

func (p *Plan) check(f Fault) error {
	parsed, err := ParseFault(string(f))
	if err != nil {
		return err
	}
	if p.supported != nil && !slices.Contains(p.supported, parsed.Base()) {
		return fmt.Errorf("fault %q is not supported here (want one of %s)", f, joinFaults(p.supported))
	}
	return nil
}

// SetScript replaces key's script with faults; no faults removes it. Entries
// index absolute call numbers — entry n answers the key's n-th call since the
// last Reset — so set a script before the calls it targets.
func (p *Plan) SetScript(key string, faults ...Fault) error {
	return p.SetScripts(map[string][]Fault{key: faults}, false)
}

// SetScripts sets several scripts at once, validating all before changing
// any. With replace, every other script is dropped. An empty list removes the
// key's script.
func (p *Plan) SetScripts(scripts map[string][]Fault, replace bool) error {
	normalized := make(map[string][]Fault, len(scripts))
	for key, faults := range scripts {
		out := make([]Fault, len(faults))
		for i, f := range faults {
			if err := p.check(f); err != nil {
				return fmt.Errorf("script %q entry %d: %w", key, i+1, err)
			}
			out[i], _ = ParseFault(string(f))
		}
		normalized[key] = out
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	if replace {
		p.scripts = map[string][]Fault{}
	}
	for key, faults := range normalized {
		if len(faults) == 0 {
			delete(p.scripts, key)
			continue
		}
		p.scripts[key] = faults
	}
	return nil
}

// Scripts returns a copy of the current scripts.
func (p *Plan) Scripts() map[string][]Fault {
	p.mu.Lock()
	defer p.mu.Unlock()
	out := make(map[string][]Fault, len(p.scripts))
	for k, v := range p.scripts {
		out[k] = slices.Clone(v)
	}
	return out
}

// SetMix replaces the mix; a Mix without rates turns it off. Faults the plan
// does not support are an error.
func (p *Plan) SetMix(m Mix) error {
	c, err := m.compile()
	if err != nil {
		return err
	}
	for f := range m.Rates {
		if err := p.check(f); err != nil {
			return fmt.Errorf("mix: %w", err)
		}
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	p.mix = c
	p.mixSpec = Mix{Seed: m.Seed, Rates: cloneRates(m.Rates), TransientCalls: m.TransientCalls}
	return nil
}

// Mix returns the current mix; its Rates are nil when the mix is off.
func (p *Plan) Mix() Mix {
	p.mu.Lock()
	defer p.mu.Unlock()
	m := p.mixSpec
	m.Rates = cloneRates(m.Rates)
	return m
}

func cloneRates(r map[Fault]float64) map[Fault]float64 {
	if len(r) == 0 {
		return nil
	}
	out := make(map[Fault]float64, len(r))
	for k, v := range r {
		out[k] = v
	}
	return out
}

// SetOutage turns the outage switch on or off. While on, every call answers
// the outage mode's fault (503 by default), ahead of every other rule.
func (p *Plan) SetOutage(on bool) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.outage = on
}

// SetOutageMode chooses how an outage answers; "" means OutageUnavailable.
func (p *Plan) SetOutageMode(m OutageMode) error {
	if m == "" {
		m = OutageUnavailable
	}
	if !slices.Contains(OutageModes(), m) {
		return fmt.Errorf("unknown outage mode %q (want unavailable or hang)", m)
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	p.outageMode = m
	return nil
}

// Outage reports the outage switch and mode.
func (p *Plan) Outage() (on bool, mode OutageMode) {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.outage, p.outageMode
}

// SetFixed turns the fix switch on or off. While on, scripts, the mix and a
// fake's own faults (an LLM's per-model faults) are ignored, as if an operator
// had remediated the upstream; an outage still answers. Turning it off
// resumes the plan at the keys' current call numbers.
func (p *Plan) SetFixed(on bool) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.fixed = on
}

// Fixed reports the fix switch.
func (p *Plan) Fixed() bool {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.fixed
}

// Reset clears scripts, the mix, both switches and every call count.
func (p *Plan) Reset() {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.reset()
}

// Decide counts a call for key and returns its decision.
func (p *Plan) Decide(key string) Decision {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.calls[key]++
	d := Decision{Key: key, Call: p.calls[key], Fault: FaultNone, Fixed: p.fixed}
	switch {
	case p.outage:
		d.Outage = true
		d.Fault = p.outageMode.fault()
	case !p.fixed:
		d.Fault = p.planned(key, d.Call)
	}
	return d
}

// Planned returns the fault scripts and mix give call (1-based) of key,
// ignoring the switches and without counting a call: what Decide would
// answer with both switches off.
func (p *Plan) Planned(key string, call int) Fault {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.planned(key, call)
}

func (p *Plan) planned(key string, call int) Fault {
	if script, ok := p.scripts[key]; ok {
		for i, f := range script {
			if call == i+1 || f.Repeats() && call > i+1 {
				return f.Base()
			}
		}
		return FaultNone
	}
	return p.mix.fault(key, call)
}

// Calls returns how many calls key has had.
func (p *Plan) Calls(key string) int {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.calls[key]
}

// CallCounts returns a copy of the call count of every key.
func (p *Plan) CallCounts() map[string]int {
	p.mu.Lock()
	defer p.mu.Unlock()
	return maps.Clone(p.calls)
}
