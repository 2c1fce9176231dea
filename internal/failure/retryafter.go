package failure

import (
	"math"
	"net/http"
	"slices"
	"strconv"
	"strings"
	"time"
)

// MaxRequestedDelay bounds any delay read from an upstream, so a hostile or
// buggy header cannot overflow a duration. Policies cap much lower (5 min by
// default); this bound only keeps arithmetic sane.
const MaxRequestedDelay = 30 * 24 * time.Hour

// Requested is how long an upstream asked us to wait: a relative Delay, or an
// absolute At (Retry-After as an HTTP-date, Anthropic's reset timestamps).
// An absolute time is the upstream's clock's, and so is the Date header of
// the same response: when it has one, the wait is the time between them.
// Without one, resolving the time needs a clock, which classification does
// not have; the decision resolves it with Resolve.
type Requested struct {
	// Delay is a relative wait, zero if the upstream gave a time instead.
	Delay time.Duration
	// At is an absolute time, zero if the upstream gave a delay.
	At time.Time
	// Date is the Date header of the response that gave At: the
	// upstream's now. Zero when there was none that parses.
	Date time.Time
	// Source names the header or body field it came from.
	Source string
}

// IsZero reports whether nothing was requested.
func (r Requested) IsZero() bool { return r.Delay == 0 && r.At.IsZero() }

// Resolve returns the requested wait as a delay from now; never negative.
// An absolute time is read against the response's own Date when it has
// one, so a provider's clock that differs from ours moves neither way.
func (r Requested) Resolve(now time.Time) time.Duration {
	d := r.Delay
	if !r.At.IsZero() {
		if !r.Date.IsZero() {
			now = r.Date
		}
		if until := r.At.Sub(now); until > d {
			d = until
		}
	}
	if d < 0 {
		return 0
	}
	return min(d, MaxRequestedDelay)
}

// ParseRequested reads the delay an HTTP response asks for, in every form we
// know, most explicit first (docs/design.md "Delay hints"):
//
//	retry-after-ms: 1500                       (OpenAI, milliseconds)
//	Retry-After: 120                           (RFC 9110 delta-seconds)
//	Retry-After: Wed, 21 Oct 2026 07:28:00 GMT (RFC 9110 HTTP-date)
//	{"retry_after": 64.57}                     (Discord and others, seconds in the body;
//	                                            retry_after_ms, Google's RetryInfo "retryDelay": "21s")
//	[… retry_delay { seconds: 33 } ]           (that RetryInfo as google-api-core prints it in a text)
//	x-ratelimit-reset-tokens: 1.5s             (a 429's exhausted limit: its remaining count is 0;
//	                                            also x-ratelimit-reset-requests-day and its kin)
//	"Please try again in 2.548s."              (a delay in the prose of the message or the body, ProseDelay)
//	x-ratelimit-reset-requests: 6m0s           (OpenAI, Go-style durations; 429 only: the longest)
//	anthropic-ratelimit-requests-reset: RFC 3339 time (429 only)
//
// Rate-limit reset headers ride on every OpenAI and Anthropic response, so they
// are read only for a 429: the exhausted limit's before the prose, the others
// after it.
// Classify reads an HTTPError's delay exactly so.
func ParseRequested(status int, h http.Header, body []byte) (Requested, bool) {
	var ev evidence
	ev.answer(HTTP, status, h, body)
	ev.said = ev.message
	r := ev.requested()
	return r, !r.IsZero() || r.Source != ""
}

func parseRetryAfterHeaders(h http.Header) (Requested, bool) {
	if v := header(h, "Retry-After-Ms"); v != "" {
		if ms, err := strconv.ParseFloat(strings.TrimSpace(v), 64); err == nil {
			if d, ok := secondsToDuration(ms / 1000); ok {
				return Requested{Delay: d, Source: "retry-after-ms"}, true
			}
		}
	}
	if v := strings.TrimSpace(header(h, "Retry-After")); v != "" {
		if secs, err := strconv.ParseFloat(v, 64); err == nil {
			if d, ok := secondsToDuration(secs); ok {
				return Requested{Delay: d, Source: "Retry-After"}, true
			}
		} else if t, err := http.ParseTime(v); err == nil {
			return Requested{At: t, Source: "Retry-After date"}, true
		}
	}
	return Requested{}, false
}

// responseDate is the response's Date header (RFC 9110's HTTP-date), the
// upstream's clock when it answered; zero when h has none that parses.
func responseDate(h http.Header) time.Time {
	t, err := http.ParseTime(strings.TrimSpace(header(h, "Date")))
	if err != nil {
		return time.Time{}
	}
	return t
}

// resetHeader pairs a reset header with the remaining-count header that says
// whether it is the limit that was hit. Names are in canonical form (see
// header); source is the reset header as Requested.Source reports it.
type resetHeader struct{ reset, remaining, source string }

var resetHeaders = []resetHeader{
	{"X-Ratelimit-Reset-Requests", "X-Ratelimit-Remaining-Requests", "x-ratelimit-reset-requests"},
	{"X-Ratelimit-Reset-Tokens", "X-Ratelimit-Remaining-Tokens", "x-ratelimit-reset-tokens"},
	{"Anthropic-Ratelimit-Requests-Reset", "Anthropic-Ratelimit-Requests-Remaining", "anthropic-ratelimit-requests-reset"},
	{"Anthropic-Ratelimit-Tokens-Reset", "Anthropic-Ratelimit-Tokens-Remaining", "anthropic-ratelimit-tokens-reset"},
	{"Anthropic-Ratelimit-Input-Tokens-Reset", "Anthropic-Ratelimit-Input-Tokens-Remaining", "anthropic-ratelimit-input-tokens-reset"},
	{"Anthropic-Ratelimit-Output-Tokens-Reset", "Anthropic-Ratelimit-Output-Tokens-Remaining", "anthropic-ratelimit-output-tokens-reset"},
}

// windowedResetPrefix starts the reset header of a limit named by its
// window as well as what it counts (Cerebras, SambaNova:
// x-ratelimit-reset-requests-day, x-ratelimit-reset-tokens-minute), paired
// with the x-ratelimit-remaining- header of the same name.
const windowedResetPrefix = "X-Ratelimit-Reset-"

// limitsOf returns the limits h states a reset for: resetHeaders, then every
// other x-ratelimit-reset-* header in name order.
func limitsOf(h http.Header) []resetHeader {
	var more []resetHeader
	for name := range h {
		suffix, ok := strings.CutPrefix(name, windowedResetPrefix)
		if !ok || suffix == "Requests" || suffix == "Tokens" {
			continue
		}
		more = append(more, resetHeader{reset: name, remaining: "X-Ratelimit-Remaining-" + suffix, source: strings.ToLower(name)})
	}
	if len(more) == 0 {
		return resetHeaders
	}
	slices.SortFunc(more, func(a, b resetHeader) int { return strings.Compare(a.reset, b.reset) })
	return append(slices.Clip(resetHeaders), more...)
}

// header is h.Get for a name already in canonical MIME form. http.Header.Get
// canonicalises its argument on every call, which was a third of the time
// Classify spent on a typical 429; the names here are constants, so that
// work is done once, by hand, and pinned by a test.
func header(h http.Header, canonical string) string {
	if v := h[canonical]; len(v) > 0 {
		return v[0]
	}
	return ""
}

// parseExhaustedReset returns the longest reset among the limits whose
// remaining count is 0: the limit that was hit.
func parseExhaustedReset(h http.Header) (Requested, bool) { return longestReset(h, true) }

// parseResetHeaders returns the longest reset among the exhausted limits, or
// among all limits when none says it is exhausted.
func parseResetHeaders(h http.Header) (Requested, bool) {
	if r, ok := longestReset(h, true); ok {
		return r, true
	}
	return longestReset(h, false)
}

// longestReset returns the longest reset among the limits h states, only
// among those whose remaining count is 0 when exhausted.
func longestReset(h http.Header, exhausted bool) (Requested, bool) {
	if len(h) == 0 {
		return Requested{}, false
	}
	var best Requested
	found := false
	for _, rh := range limitsOf(h) {
		if exhausted && strings.TrimSpace(header(h, rh.remaining)) != "0" {
			continue
		}
		v := strings.TrimSpace(header(h, rh.reset))
		if v == "" {
			continue
		}
		r, ok := parseReset(v)
		if !ok {
			continue
		}
		r.Source = rh.source
		if !found || later(r, best) {
			best, found = r, true
		}
	}
	return best, found
}

// later compares two requests of the same kind (delays with delays, times
// with times); a time always beats a delay since it cannot be compared without
// a clock and is the more precise of the two.
func later(a, b Requested) bool {
	switch {
	case !a.At.IsZero() && !b.At.IsZero():
		return a.At.After(b.At)
	case !a.At.IsZero():
		return true
	case !b.At.IsZero():
		return false
	}
	return a.Delay > b.Delay
}

// unixReset is where a bare reset number stops being a window and is a Unix
// time, as some OpenAI-compatible servers send it: 1e9 seconds is 31 years,
// and the Unix time 1e9 is 2001-09-09. From unixMilliReset it is a Unix
// time in milliseconds, as gateways written in JavaScript send it: 1e12
// seconds is year 33658, and 1e12 milliseconds is 2001-09-09 again.
const (
	unixReset      = 1e9
	unixMilliReset = 1e12
)

// parseReset reads "6m0s", "1.5s", "20ms", "59.616s", bare seconds, a Unix
// time in seconds or milliseconds, or an RFC 3339 time.
func parseReset(v string) (Requested, bool) {
	if d, err := time.ParseDuration(v); err == nil {
		if d < 0 {
			return Requested{}, false
		}
		return Requested{Delay: min(d, MaxRequestedDelay)}, true
	}
	if secs, err := strconv.ParseFloat(v, 64); err == nil {
		if secs >= unixMilliReset && secs < 1e18 {
			return Requested{At: time.UnixMilli(int64(secs)).UTC()}, true
		}
		if secs >= unixReset {
			whole, frac := math.Modf(secs)
			return Requested{At: time.Unix(int64(whole), int64(frac*1e9)).UTC()}, true
		}
		d, ok := secondsToDuration(secs)
		return Requested{Delay: d}, ok
	}
	if t, err := time.Parse(time.RFC3339, v); err == nil {
		return Requested{At: t}, true
	}
	return Requested{}, false
}

// secondsToDuration converts non-negative finite seconds, clamped to
// MaxRequestedDelay.
func secondsToDuration(secs float64) (time.Duration, bool) {
	if math.IsNaN(secs) || math.IsInf(secs, 0) || secs < 0 {
		return 0, false
	}
	if secs >= MaxRequestedDelay.Seconds() {
		return MaxRequestedDelay, true
	}
	// Round to the millisecond: 64.57 s is 64.57 s, not 64.569999999 s.
	return time.Duration(math.Round(secs*1000)) * time.Millisecond, true
}
