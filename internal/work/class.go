package work

import (
	"fmt"
	"strings"
)

// Class is a stable, UPPER_SNAKE identifier for what went wrong. Classes appear
// in dead letters, logs, metrics and operator filters, so they never change
// meaning once shipped.
type Class string

const (
	// RateLimited is an upstream asking us to slow down: HTTP 429,
	// rate_limit_exceeded, AWS throttling codes. Retryable; honours Retry-After.
	RateLimited Class = "RATE_LIMITED"
	// BudgetExceeded is spend that cannot happen now: triage's own daily cap,
	// OpenAI insufficient_quota, HTTP 402, Anthropic's "credit balance is too
	// low". It waits and never counts an attempt, so it never dead-letters.
	BudgetExceeded Class = "BUDGET_EXCEEDED"
	// NetworkTimeout is a transport failure: timeouts, resets, refused
	// connections, DNS failures, HTTP 408, truncated bodies. Retryable.
	NetworkTimeout Class = "NETWORK_TIMEOUT"
	// UpstreamUnavailable is a server-side failure of the upstream: 5xx,
	// overloaded, internal_error. Retryable.
	UpstreamUnavailable Class = "UPSTREAM_UNAVAILABLE"
	// Conflict is a lost optimistic-concurrency race (HTTP 409, version
	// conflicts, TransactionConflict). Retryable for idempotent operations only.
	Conflict Class = "CONFLICT"
	// ResponseInvalid is model output that is not valid JSON, does not match
	// the schema, or is empty. Retryable up to 3 attempts; counts against the
	// model's health.
	ResponseInvalid Class = "RESPONSE_INVALID"
	// ActionFailed is an action task whose model reported
	// "ACTION_OUTCOME: failed | reason". Retried on a fixed 2-minute schedule,
	// 3 attempts.
	ActionFailed Class = "ACTION_FAILED"
	// SchemaInvalid is bad input: a malformed message, a missing field, an
	// input payload that cannot be processed. Permanent.
	SchemaInvalid Class = "SCHEMA_INVALID"
	// AuthDenied is a credential or permission failure: 401, 403, invalid API
	// key, expired token. Permanent until an operator fixes credentials.
	AuthDenied Class = "AUTH_DENIED"
	// NotFound is a missing immutable input or a deleted destination (404/410
	// from an article host or webhook). Permanent.
	NotFound Class = "NOT_FOUND"
	// ContentPolicy is a moderation block (content_policy_violation, Azure
	// content_filter). Permanent.
	ContentPolicy Class = "CONTENT_POLICY"
	// TokenLimit is input too large for the model (context_length_exceeded,
	// "prompt is too long", 413). Permanent.
	TokenLimit Class = "TOKEN_LIMIT"
	// ClientError is any other 4xx from a model provider. Permanent, and it
	// counts against the model's health (a bad model name, an unsupported
	// parameter).
	ClientError Class = "CLIENT_ERROR"
	// InternalBug is our own defect: a panic, a nil dereference, an invariant
	// violation, a bad deployment configuration. Permanent; page an engineer.
	InternalBug Class = "INTERNAL_BUG"
	// Unknown is anything no rule matched. Retryable with the default budget,
	// so an unrecognised transient failure still recovers.
	Unknown Class = "UNKNOWN"
)

// Traits are the fixed properties of a class. Retry profiles decide delays and
// limits; traits decide what a failure means.
type Traits struct {
	// Retryable is false for classes no retry can fix.
	Retryable bool
	// Counts is false for classes that wait without spending an attempt.
	Counts bool
	// ModelSpecific is true for classes that say something about the model
	// rather than the infrastructure; only these count toward disabling it.
	ModelSpecific bool
}

// traits is the table of docs/design.md "Error classes and retry profiles", in the order Classes lists.
// It is the source of the retryable and counts columns of every retry
// profile: the policy copies them from here.
var traits = []struct {
	class Class
	Traits
}{
	{RateLimited, Traits{Retryable: true, Counts: true}},
	{BudgetExceeded, Traits{Retryable: true, Counts: false}},
	{NetworkTimeout, Traits{Retryable: true, Counts: true}},
	{UpstreamUnavailable, Traits{Retryable: true, Counts: true}},
	{Conflict, Traits{Retryable: true, Counts: true}},
	{ResponseInvalid, Traits{Retryable: true, Counts: true, ModelSpecific: true}},
	{ActionFailed, Traits{Retryable: true, Counts: true}},
	{SchemaInvalid, Traits{}},
	{AuthDenied, Traits{}},
	{NotFound, Traits{}},
	{ContentPolicy, Traits{}},
	{TokenLimit, Traits{}},
	{ClientError, Traits{ModelSpecific: true}},
	{InternalBug, Traits{}},
	{Unknown, Traits{Retryable: true, Counts: true}},
}

// Classes lists every class, retryable ones first, in the order of docs/design.md.
func Classes() []Class {
	out := make([]Class, len(traits))
	for i, t := range traits {
		out[i] = t.class
	}
	return out
}

// ParseClass returns the class named s (case-insensitive, '-' or ' ' accepted
// for '_'), or an error listing the valid names.
func ParseClass(s string) (Class, error) {
	norm := strings.ToUpper(strings.NewReplacer("-", "_", " ", "_").Replace(strings.TrimSpace(s)))
	for _, t := range traits {
		if string(t.class) == norm {
			return t.class, nil
		}
	}
	names := make([]string, len(traits))
	for i, t := range traits {
		names[i] = string(t.class)
	}
	return "", fmt.Errorf("unknown error class %q (want one of %s)", s, strings.Join(names, ", "))
}

// Valid reports whether c is one of Classes.
func (c Class) Valid() bool {
	_, ok := c.lookup()
	return ok
}

// Traits returns c's properties. An unknown class gets Unknown's traits
// (retryable, counting), the safe default for a value read from old data.
func (c Class) Traits() Traits {
	if t, ok := c.lookup(); ok {
		return t
	}
	t, _ := Unknown.lookup()
	return t
}

// Retryable reports whether any retry of c can succeed.
func (c Class) Retryable() bool { return c.Traits().Retryable }

// Counts reports whether a failure of class c spends one of the stage's attempts.
func (c Class) Counts() bool { return c.Traits().Counts }

// ModelSpecific reports whether c counts toward disabling the model.
func (c Class) ModelSpecific() bool { return c.Traits().ModelSpecific }

func (c Class) lookup() (Traits, bool) {
	for _, t := range traits {
		if t.class == c {
			return t.Traits, true
		}
	}
	return Traits{}, false
}
