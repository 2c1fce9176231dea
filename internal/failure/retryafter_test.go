package failure_test

import (
	"net/http"
	"strconv"
	"testing"
	"time"

	"github.com/triagehq/triage/internal/failure"
)

func TestParseRequested(t *testing.T) {
	t.Parallel()
	b := setup(t)
	now := b.now
	rfc3339 := func(d time.Duration) string { return now.Add(d).Format(time.RFC3339) }
	httpDate := func(d time.Duration) string { return now.Add(d).Format(http.TimeFormat) }

	tests := map[string]struct {
		status  int
		headers []string
		body    string
		// ok and wantDelay (Resolve(now)) and wantSource are the result.
		ok         bool
		wantDelay  time.Duration
		wantSource string
	}{
		// The five forms.
		"Retry-After delta-seconds": {
			status: 429, headers: []string{"Retry-After", "120"},
			ok: true, wantDelay: 2 * time.Minute, wantSource: "Retry-After",
		},
		"Retry-After delta-seconds with spaces": {
			status: 503, headers: []string{"Retry-After", "  30 "},
			ok: true, wantDelay: 30 * time.Second, wantSource: "Retry-After",
		},
		"Retry-After zero means now": {
			status: 429, headers: []string{"Retry-After", "0"},
			ok: true, wantDelay: 0, wantSource: "Retry-After",
		},
		"Retry-After HTTP-date (IMF-fixdate)": {
			status: 503, headers: []string{"Retry-After", httpDate(90 * time.Second)},
			ok: true, wantDelay: 90 * time.Second, wantSource: "Retry-After date",
		},
		"Retry-After HTTP-date (RFC 850)": {
			status: 503, headers: []string{"Retry-After", "Friday, 01-May-26 12:05:00 GMT"},
			ok: true, wantDelay: 5 * time.Minute, wantSource: "Retry-After date",
		},
		"Retry-After HTTP-date (asctime)": {
			status: 503, headers: []string{"Retry-After", "Fri May  1 12:00:10 2026"},
			ok: true, wantDelay: 10 * time.Second, wantSource: "Retry-After date",
		},
		"Retry-After HTTP-date in the past resolves to zero": {
			status: 429, headers: []string{"Retry-After", httpDate(-time.Hour)},
			ok: true, wantDelay: 0, wantSource: "Retry-After date",
		},
		"retry-after-ms": {
			status: 429, headers: []string{"Retry-After-Ms", "1500"},
			ok: true, wantDelay: 1500 * time.Millisecond, wantSource: "retry-after-ms",
		},
		"retry-after-ms lowercase header name": {
			status: 429, headers: []string{"retry-after-ms", "20"},
			ok: true, wantDelay: 20 * time.Millisecond, wantSource: "retry-after-ms",
		},
		"x-ratelimit-reset-requests minutes": {
			status: 429, headers: []string{"X-Ratelimit-Remaining-Requests", "0", "X-Ratelimit-Reset-Requests", "6m0s"},
			ok: true, wantDelay: 6 * time.Minute, wantSource: "x-ratelimit-reset-requests",
		},
		"x-ratelimit-reset-tokens fractional seconds": {
			status: 429, headers: []string{"X-Ratelimit-Remaining-Tokens", "0", "X-Ratelimit-Reset-Tokens", "1.5s"},
			ok: true, wantDelay: 1500 * time.Millisecond, wantSource: "x-ratelimit-reset-tokens",
		},
		"x-ratelimit-reset-requests milliseconds": {
			status: 429, headers: []string{"X-Ratelimit-Remaining-Requests", "0", "X-Ratelimit-Reset-Requests", "20ms"},
			ok: true, wantDelay: 20 * time.Millisecond, wantSource: "x-ratelimit-reset-requests",
		},
		// Google's RetryInfo as google-api-core prints it in an
		// exception's text (a Gemini free-tier 429 as langchain-google relays it).
		"retry_delay in protobuf text": {
			status: 429,
			body: "429 You exceeded your current quota. For more information on this error, head to: https://ai.google.dev/gemini-api/docs/rate-limits. " +
				"[violations {\n}\n, links {\n  description: \"Learn more about Gemini API quotas\"\n  url: \"https://ai.google.dev/gemini-api/docs/rate-limits\"\n}\n, retry_delay {\n  seconds: 43\n}\n]",
			ok: true, wantDelay: 43 * time.Second, wantSource: "retry_delay",
		},
		"retry_delay on one line with nanos": {
			status: 503, body: "ResourceExhausted: 429 Resource has been exhausted [retry_delay { seconds: 2 nanos: 500000000 } ]",
			ok: true, wantDelay: 2500 * time.Millisecond, wantSource: "retry_delay",
		},
		"retry_delay beyond the cap is the cap": {
			status: 429, body: "[retry_delay { seconds: 99999999999 }]",
			ok: true, wantDelay: failure.MaxRequestedDelay, wantSource: "retry_delay",
		},
		"retry_delay that is not a duration":        {status: 429, body: "[retry_delay { seconds: -3 }]"},
		"retry_delay with a field it does not have": {status: 429, body: "[retry_delay { minutes: 3 }]"},
		"retry_delay never closed":                  {status: 429, body: "[retry_delay { seconds: 3"},
		"retry_delay of nanos past a second":        {status: 429, body: "[retry_delay { nanos: 1000000000 }]"},
		// Limits named by their window too (Cerebras, SambaNova): the one
		// whose remaining count is 0 is the one that was hit.
		"x-ratelimit-reset-requests-day exhausted (Cerebras)": {
			status: 429, headers: []string{
				"X-Ratelimit-Remaining-Requests-Day", "0", "X-Ratelimit-Reset-Requests-Day", "33011.382867",
				"X-Ratelimit-Remaining-Tokens-Minute", "150000", "X-Ratelimit-Reset-Tokens-Minute", "45.5",
			},
			ok: true, wantDelay: 33011383 * time.Millisecond, wantSource: "x-ratelimit-reset-requests-day",
		},
		"x-ratelimit-reset-tokens-minute exhausted beside a day's limit": {
			status: 429, headers: []string{
				"X-Ratelimit-Remaining-Requests-Day", "9500", "X-Ratelimit-Reset-Requests-Day", "33011.382867",
				"X-Ratelimit-Remaining-Tokens-Minute", "0", "X-Ratelimit-Reset-Tokens-Minute", "11.5",
			},
			ok: true, wantDelay: 11500 * time.Millisecond, wantSource: "x-ratelimit-reset-tokens-minute",
		},
		"x-ratelimit-reset-requests-day as a duration (SambaNova)": {
			status: 429, headers: []string{"X-Ratelimit-Remaining-Requests-Day", "0", "X-Ratelimit-Reset-Requests-Day", "4h17m"},
			ok: true, wantDelay: 4*time.Hour + 17*time.Minute, wantSource: "x-ratelimit-reset-requests-day",
		},
		"windowed resets on a success are not read": {
			status: 200, headers: []string{"X-Ratelimit-Remaining-Requests-Day", "0", "X-Ratelimit-Reset-Requests-Day", "600"},
		},
		"x-ratelimit-reset bare seconds": {
			status: 429, headers: []string{"X-Ratelimit-Reset-Tokens", "7"},
			ok: true, wantDelay: 7 * time.Second, wantSource: "x-ratelimit-reset-tokens",
		},
		"body retry_after seconds": {
			status: 429, body: `{"message": "You are being rate limited.", "retry_after": 64.57, "global": false}`,
			ok: true, wantDelay: 64570 * time.Millisecond, wantSource: "body retry_after",
		},
		"body retry_after on a non-429": {
			status: 503, body: `{"retry_after": 3}`,
			ok: true, wantDelay: 3 * time.Second, wantSource: "body retry_after",
		},

		// Which reset header wins.
		"the exhausted limit wins over a longer one": {
			status: 429, headers: []string{
				"X-Ratelimit-Remaining-Requests", "12", "X-Ratelimit-Reset-Requests", "6m0s",
				"X-Ratelimit-Remaining-Tokens", "0", "X-Ratelimit-Reset-Tokens", "20ms",
			},
			ok: true, wantDelay: 20 * time.Millisecond, wantSource: "x-ratelimit-reset-tokens",
		},
		"the longest of two exhausted limits": {
			status: 429, headers: []string{
				"X-Ratelimit-Remaining-Requests", "0", "X-Ratelimit-Reset-Requests", "1.5s",
				"X-Ratelimit-Remaining-Tokens", "0", "X-Ratelimit-Reset-Tokens", "59.616s",
			},
			ok: true, wantDelay: 59616 * time.Millisecond, wantSource: "x-ratelimit-reset-tokens",
		},
		"none exhausted: the longest": {
			status: 429, headers: []string{
				"X-Ratelimit-Remaining-Requests", "3", "X-Ratelimit-Reset-Requests", "6m0s",
				"X-Ratelimit-Remaining-Tokens", "900", "X-Ratelimit-Reset-Tokens", "1.5s",
			},
			ok: true, wantDelay: 6 * time.Minute, wantSource: "x-ratelimit-reset-requests",
		},
		"x-ratelimit-reset as a Unix time (OpenAI-compatible servers that send one)": {
			status: 429, headers: []string{"X-Ratelimit-Remaining-Requests", "0", "X-Ratelimit-Reset-Requests", strconv.FormatInt(now.Add(30*time.Second).Unix(), 10)},
			ok: true, wantDelay: 30 * time.Second, wantSource: "x-ratelimit-reset-requests",
		},
		"x-ratelimit-reset as Unix milliseconds (gateways that send JavaScript's Date.now())": {
			status: 429, headers: []string{"X-Ratelimit-Remaining-Requests", "0", "X-Ratelimit-Reset-Requests", strconv.FormatInt(now.Add(30*time.Second).UnixMilli(), 10)},
			ok: true, wantDelay: 30 * time.Second, wantSource: "x-ratelimit-reset-requests",
		},
		"anthropic RFC 3339 reset of the exhausted limit": {
			status: 429, headers: []string{
				"Anthropic-Ratelimit-Requests-Remaining", "48", "Anthropic-Ratelimit-Requests-Reset", rfc3339(10 * time.Minute),
				"Anthropic-Ratelimit-Output-Tokens-Remaining", "0", "Anthropic-Ratelimit-Output-Tokens-Reset", rfc3339(37 * time.Second),
			},
			ok: true, wantDelay: 37 * time.Second, wantSource: "anthropic-ratelimit-output-tokens-reset",
		},
		"anthropic reset already passed": {
			status: 429, headers: []string{"Anthropic-Ratelimit-Tokens-Remaining", "0", "Anthropic-Ratelimit-Tokens-Reset", rfc3339(-5 * time.Second)},
			ok: true, wantDelay: 0, wantSource: "anthropic-ratelimit-tokens-reset",
		},
		"an unparseable reset is skipped for a valid one": {
			status: 429, headers: []string{
				"X-Ratelimit-Remaining-Requests", "0", "X-Ratelimit-Reset-Requests", "soon",
				"X-Ratelimit-Reset-Tokens", "2s",
			},
			ok: true, wantDelay: 2 * time.Second, wantSource: "x-ratelimit-reset-tokens",
		},

		// Precedence: retry-after-ms, Retry-After, body, reset headers.
		"retry-after-ms over Retry-After": {
			status: 429, headers: []string{"Retry-After-Ms", "250", "Retry-After", "1"},
			ok: true, wantDelay: 250 * time.Millisecond, wantSource: "retry-after-ms",
		},
		"Retry-After over body": {
			status: 429, headers: []string{"Retry-After", "65"}, body: `{"retry_after": 64.57}`,
			ok: true, wantDelay: 65 * time.Second, wantSource: "Retry-After",
		},
		"body over reset headers": {
			status: 429, headers: []string{"X-Ratelimit-Remaining-Tokens", "0", "X-Ratelimit-Reset-Tokens", "6m0s"}, body: `{"retry_after": 2}`,
			ok: true, wantDelay: 2 * time.Second, wantSource: "body retry_after",
		},
		"Retry-After over reset headers": {
			status: 429, headers: []string{"Retry-After", "20", "Anthropic-Ratelimit-Requests-Remaining", "0", "Anthropic-Ratelimit-Requests-Reset", rfc3339(time.Minute)},
			ok: true, wantDelay: 20 * time.Second, wantSource: "Retry-After",
		},
		"invalid retry-after-ms falls back to Retry-After": {
			status: 429, headers: []string{"Retry-After-Ms", "NaN", "Retry-After", "4"},
			ok: true, wantDelay: 4 * time.Second, wantSource: "Retry-After",
		},
		"negative Retry-After falls back to the body": {
			status: 429, headers: []string{"Retry-After", "-5"}, body: `{"retry_after": 9}`,
			ok: true, wantDelay: 9 * time.Second, wantSource: "body retry_after",
		},

		// Reset headers ride on every response: only a 429 reads them.
		"reset headers ignored on 200":  {status: 200, headers: []string{"X-Ratelimit-Remaining-Tokens", "0", "X-Ratelimit-Reset-Tokens", "6m0s"}},
		"reset headers ignored on 400":  {status: 400, headers: []string{"X-Ratelimit-Remaining-Requests", "0", "X-Ratelimit-Reset-Requests", "1s"}},
		"reset headers ignored on 503":  {status: 503, headers: []string{"Anthropic-Ratelimit-Requests-Remaining", "0", "Anthropic-Ratelimit-Requests-Reset", rfc3339(time.Minute)}},
		"reset headers ignored on 529":  {status: 529, headers: []string{"Anthropic-Ratelimit-Tokens-Reset", rfc3339(time.Minute)}},
		"nothing requested":             {status: 429},
		"nothing requested, text body":  {status: 429, body: "Too Many Requests"},
		"nothing requested, other JSON": {status: 429, body: `{"error":{"message":"slow down","type":"rate_limit_error"}}`},

		// Garbage, negative, NaN and huge values.
		"garbage Retry-After":        {status: 429, headers: []string{"Retry-After", "soon"}},
		"negative Retry-After":       {status: 429, headers: []string{"Retry-After", "-120"}},
		"NaN Retry-After":            {status: 429, headers: []string{"Retry-After", "NaN"}},
		"Inf Retry-After":            {status: 429, headers: []string{"Retry-After", "+Inf"}},
		"overflowing Retry-After":    {status: 429, headers: []string{"Retry-After", "1e400"}},
		"negative retry-after-ms":    {status: 429, headers: []string{"Retry-After-Ms", "-1"}},
		"negative reset":             {status: 429, headers: []string{"X-Ratelimit-Reset-Tokens", "-1s"}},
		"NaN reset":                  {status: 429, headers: []string{"X-Ratelimit-Reset-Tokens", "NaN"}},
		"overflowing reset duration": {status: 429, headers: []string{"X-Ratelimit-Reset-Tokens", "9999999999h"}},
		"negative body retry_after":  {status: 429, body: `{"retry_after": -3}`},
		"NaN body retry_after":       {status: 429, body: `{"retry_after": nan}`},
		"malformed body":             {status: 429, body: `{"retry_after": 3`},
		"huge Retry-After is capped": {
			status: 429, headers: []string{"Retry-After", "99999999999"},
			ok: true, wantDelay: failure.MaxRequestedDelay, wantSource: "Retry-After",
		},
		"huge retry-after-ms is capped": {
			status: 429, headers: []string{"Retry-After-Ms", "1e300"},
			ok: true, wantDelay: failure.MaxRequestedDelay, wantSource: "retry-after-ms",
		},
		"huge body retry_after is capped": {
			status: 429, body: `{"retry_after": 1e15}`,
			ok: true, wantDelay: failure.MaxRequestedDelay, wantSource: "body retry_after",
		},
		"huge reset duration is capped": {
			status: 429, headers: []string{"X-Ratelimit-Reset-Requests", "99999h"},
			ok: true, wantDelay: failure.MaxRequestedDelay, wantSource: "x-ratelimit-reset-requests",
		},
		"far-future HTTP-date is capped when resolved": {
			status: 503, headers: []string{"Retry-After", "Fri, 31 Dec 9999 23:59:59 GMT"},
			ok: true, wantDelay: failure.MaxRequestedDelay, wantSource: "Retry-After date",
		},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			h := headerOf(tc.headers...)
			r, ok := failure.ParseRequested(tc.status, h, []byte(tc.body))
			if ok != tc.ok {
				t.Fatalf("ok = %v (%+v), want %v", ok, r, tc.ok)
			}
			if !ok {
				if !r.IsZero() || r.Source != "" {
					t.Errorf("nothing found but got %+v", r)
				}
				return
			}
			if got := r.Resolve(now); got != tc.wantDelay {
				t.Errorf("Resolve = %v (%+v), want %v", got, r, tc.wantDelay)
			}
			if r.Source != tc.wantSource {
				t.Errorf("source = %q, want %q", r.Source, tc.wantSource)
			}
			if r.Delay < 0 || r.Delay > failure.MaxRequestedDelay {
				t.Errorf("delay %v outside [0, %v]", r.Delay, failure.MaxRequestedDelay)
			}
			// Classify reads the same request from the same response.
			c := failure.Classify(&failure.HTTPError{Provider: failure.OpenAI, Status: tc.status, Header: h, Body: []byte(tc.body)})
			if cr := c.Requested; cr.Delay != r.Delay || !cr.At.Equal(r.At) || cr.Source != r.Source {
				t.Errorf("Classify requested %+v, ParseRequested %+v", c.Requested, r)
			}
		})
	}
}

func TestRequestedResolve(t *testing.T) {
	t.Parallel()
	now := setup(t).now
	tests := map[string]struct {
		r    failure.Requested
		want time.Duration
		zero bool
	}{
		"nothing":     {r: failure.Requested{}, want: 0, zero: true},
		"delay":       {r: failure.Requested{Delay: 30 * time.Second}, want: 30 * time.Second},
		"time ahead":  {r: failure.Requested{At: now.Add(90 * time.Second)}, want: 90 * time.Second},
		"time passed": {r: failure.Requested{At: now.Add(-time.Minute)}, want: 0},
		"time in another zone": {
			r:    failure.Requested{At: now.Add(time.Minute).In(time.FixedZone("PDT", -7*3600))},
			want: time.Minute,
		},
		"time far ahead is capped": {r: failure.Requested{At: now.AddDate(5, 0, 0)}, want: failure.MaxRequestedDelay},
		"year zero time":           {r: failure.Requested{At: time.Date(1, 1, 1, 0, 0, 1, 0, time.UTC)}, want: 0},
		"negative delay":           {r: failure.Requested{Delay: -time.Second}, want: 0},
		"huge delay is capped":     {r: failure.Requested{Delay: 1 << 62}, want: failure.MaxRequestedDelay},
		"the later of delay and time": {
			r:    failure.Requested{Delay: 10 * time.Second, At: now.Add(20 * time.Second)},
			want: 20 * time.Second,
		},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			if got := tc.r.Resolve(now); got != tc.want {
				t.Errorf("Resolve = %v, want %v", got, tc.want)
			}
			if tc.r.IsZero() != tc.zero {
				t.Errorf("IsZero = %v, want %v", tc.r.IsZero(), tc.zero)
			}
		})
	}
}

// A plain-text body's delay is the body's whichever provider's parser read
// it: one that takes plain text as the message (any HTTP upstream) and one
// that does not (AWS's XML or JSON) report the same source — the fuzz
// target found them apart.
func TestPlainBodyDelaySource(t *testing.T) {
	body := []byte("Slow down, please retry after 3 seconds")
	want, _ := failure.ParseRequested(429, http.Header{}, body)
	if want.Delay != 3*time.Second || want.Source != "body" {
		t.Fatalf("ParseRequested: %+v, want 3s from the body", want)
	}
	for _, p := range []failure.Provider{failure.HTTP, "aws"} {
		c := failure.Classify(&failure.HTTPError{Provider: p, Op: "call", Status: 429, Body: body})
		if c.Requested != want {
			t.Errorf("%s: requested %+v, want %+v", p, c.Requested, want)
		}
	}
}

// An absolute time an upstream asks to wait until is written by its own
// clock, and so is its Date header: the wait is the one between them,
// whatever our clock says (docs/design.md "Delay hints"). Without a Date
// that parses, our clock is the response's now.
func TestRequestedTimeAgainstResponseDate(t *testing.T) {
	t.Parallel()
	now := setup(t).now
	httpDate := func(t time.Time) string { return t.Format(http.TimeFormat) }
	behind, ahead := now.Add(-time.Minute), now.Add(2*time.Minute)
	tests := map[string]struct {
		status  int
		headers []string
		want    time.Duration
	}{
		"Retry-After date from a clock a minute behind ours": {
			status:  503,
			headers: []string{"Date", httpDate(behind), "Retry-After", httpDate(behind.Add(90 * time.Second))},
			want:    90 * time.Second,
		},
		"Retry-After date from a clock two minutes ahead": {
			status:  429,
			headers: []string{"Date", httpDate(ahead), "Retry-After", httpDate(ahead.Add(30 * time.Second))},
			want:    30 * time.Second,
		},
		"anthropic reset from a clock a minute behind ours": {
			status: 429,
			headers: []string{
				"Date", httpDate(behind),
				"Anthropic-Ratelimit-Tokens-Remaining", "0", "Anthropic-Ratelimit-Tokens-Reset", behind.Add(40 * time.Second).Format(time.RFC3339),
			},
			want: 40 * time.Second,
		},
		"anthropic reset from a clock ahead, none exhausted": {
			status: 429,
			headers: []string{
				"Date", httpDate(ahead),
				"Anthropic-Ratelimit-Requests-Remaining", "3", "Anthropic-Ratelimit-Requests-Reset", ahead.Add(12 * time.Second).Format(time.RFC3339),
			},
			want: 12 * time.Second,
		},
		"a reset before the response's Date is now": {
			status:  429,
			headers: []string{"Date", httpDate(ahead), "Retry-After", httpDate(ahead.Add(-5 * time.Second))},
			want:    0,
		},
		"a reset far past the response's Date is capped": {
			status:  503,
			headers: []string{"Date", httpDate(behind), "Retry-After", "Fri, 31 Dec 9999 23:59:59 GMT"},
			want:    failure.MaxRequestedDelay,
		},
		"a Date that does not parse leaves our clock": {
			status:  503,
			headers: []string{"Date", "yesterday", "Retry-After", httpDate(now.Add(90 * time.Second))},
			want:    90 * time.Second,
		},
		"a delay in seconds is not moved by the Date": {
			status:  429,
			headers: []string{"Date", httpDate(behind), "Retry-After", "20"},
			want:    20 * time.Second,
		},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			h := headerOf(tc.headers...)
			r, ok := failure.ParseRequested(tc.status, h, nil)
			if !ok {
				t.Fatalf("nothing requested from %v", tc.headers)
			}
			if got := r.Resolve(now); got != tc.want {
				t.Errorf("ParseRequested: Resolve = %v (%+v), want %v", got, r, tc.want)
			}
			c := failure.Classify(&failure.HTTPError{Provider: failure.Anthropic, Status: tc.status, Header: h})
			if got := c.Requested.Resolve(now); got != tc.want {
				t.Errorf("Classify: Resolve = %v (%+v), want %v", got, c.Requested, tc.want)
			}
		})
	}
}
