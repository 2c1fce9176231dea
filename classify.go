package triage

import (
	"net/http"
	"time"

	"github.com/triagehq/triage/internal/failure"
	"github.com/triagehq/triage/internal/policy"
	"github.com/triagehq/triage/internal/work"
)

// Class is a failure's stable class (RATE_LIMITED, BUDGET_EXCEEDED,
// CONTENT_POLICY, …: docs/design.md "Error classes and retry profiles").
type Class = work.Class

// Classification is what one failure means: its class with the class's
// traits (Retryable, Counts, ModelSpecific), the delay the upstream asked
// for (Requested) and the rule that matched (Reason, safe to log).
type Classification = failure.Classification

// Stage names the stage whose rows of the policy apply: fetch, llm or
// notify.
type Stage = work.Stage

// The stages.
const (
	Fetch  = work.Fetch
	LLM    = work.LLM
	Notify = work.Notify
)

// Profile is a decision table (docs/design.md "The decision table").
type Profile = policy.Profile

// Decision is one of Retry, Wait or DeadLetter.
type Decision = policy.Decision

// The decisions.
type (
	Retry      = policy.Retry
	Wait       = policy.Wait
	DeadLetter = policy.DeadLetter
)

// LookupProfile returns the profile named name ("standard", "daily-batch",
// "predictions"; "" is standard): the tables the worker reads with
// PROFILE set to that name.
func LookupProfile(name string) (*Profile, error) { return policy.Lookup(name) }

// Classify classifies err with the classifier every stage uses. An error
// that already carries a classification (one Do or RoundTripper returned)
// keeps it.
func Classify(err error) Classification { return failure.Classify(err) }

// ClassifyResponse classifies an HTTP answer the caller did not accept:
// its status, headers (Retry-After and kin) and body (at most its first
// 16 KiB are read). The request's host, when resp carries the request,
// names the provider; its path and query (which may hold a key) are not
// read. A nil resp is INTERNAL_BUG, as a nil error is to Classify.
func ClassifyResponse(resp *http.Response, body []byte) Classification {
	if resp == nil {
		return failure.Classify(nil)
	}
	return failure.Classify(evidence(resp, body, ""))
}

// evidence is resp as the classifier reads it, at stage (empty: unknown).
func evidence(resp *http.Response, body []byte, stage Stage) *failure.Evidence {
	ev := &failure.Evidence{Stage: stage, Status: resp.StatusCode, Header: resp.Header, Body: body[:min(len(body), failure.MaxBodyBytes)]}
	if r := resp.Request; r != nil && r.URL != nil && r.URL.Host != "" {
		ev.Text = r.Method + " " + r.URL.Scheme + "://" + r.URL.Host
	}
	return ev
}

// Decide is the policy's decision about err, the attempt-th failure of a
// stage, at now: the same Decide the worker's runner calls, on the same
// tables (p nil is the standard profile). It is pure; its Retry delay is
// the largest of its jitter range (Do draws the jitter).
func Decide(p *Profile, stage Stage, err error, attempt int, now time.Time) Decision {
	if p == nil {
		p = policy.Standard()
	}
	return decide(p, facts{stage: stage, err: err, attempt: attempt, now: now})
}
