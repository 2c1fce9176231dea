package failure_test

import (
	"errors"
	"fmt"
	"net/http"
	"runtime"
	"slices"
	"strings"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/triagehq/triage/internal/failure"
	"github.com/triagehq/triage/internal/work"
)

func TestErrorIs(t *testing.T) {
	t.Parallel()
	cause := errors.New("unexpected end of JSON input")
	invalid := failure.Wrap(work.ResponseInvalid, cause, "decode completion")
	tests := map[string]struct {
		err    error
		target error
		want   bool
	}{
		"same class":                      {err: invalid, target: &failure.Error{Class: work.ResponseInvalid}, want: true},
		"same class through a wrap":       {err: fmt.Errorf("llm: %w", invalid), target: &failure.Error{Class: work.ResponseInvalid}, want: true},
		"empty class matches any":         {err: invalid, target: &failure.Error{}, want: true},
		"empty class matches another one": {err: failure.New(work.InternalBug, "x"), target: &failure.Error{}, want: true},
		"different class":                 {err: invalid, target: &failure.Error{Class: work.SchemaInvalid}, want: false},
		"different class through a wrap":  {err: fmt.Errorf("llm: %w", invalid), target: &failure.Error{Class: work.RateLimited}, want: false},
		"the cause":                       {err: invalid, target: cause, want: true},
		"an unrelated sentinel":           {err: invalid, target: failure.ErrWaiting, want: false},
		"a plain error is no *Error":      {err: cause, target: &failure.Error{}, want: false},
		"wait error is ErrWaiting":        {err: &failure.WaitError{Until: time.Unix(0, 0), Reason: "breaker open"}, target: failure.ErrWaiting, want: true},
		"wrapped wait error":              {err: fmt.Errorf("gate: %w", &failure.WaitError{Reason: "no model"}), target: failure.ErrWaiting, want: true},
		"wait error is no *Error":         {err: &failure.WaitError{}, target: &failure.Error{}, want: false},
		"wait error is not another error": {err: &failure.WaitError{}, target: errors.New("waiting"), want: false},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			if got := errors.Is(tc.err, tc.target); got != tc.want {
				t.Errorf("errors.Is = %v, want %v", got, tc.want)
			}
		})
	}
}

func TestErrorAs(t *testing.T) {
	t.Parallel()
	t.Run("*Error through a wrap", func(t *testing.T) {
		t.Parallel()
		var e *failure.Error
		err := fmt.Errorf("stage llm: %w", &failure.Error{Class: work.BudgetExceeded, Reason: "daily cap", SelfImposed: true, RetryAfter: time.Minute})
		if !errors.As(err, &e) {
			t.Fatal("errors.As found no *Error")
		}
		if e.Class != work.BudgetExceeded || !e.SelfImposed || e.RetryAfter != time.Minute {
			t.Errorf("got %+v", e)
		}
	})
	t.Run("no *Error in a plain chain", func(t *testing.T) {
		t.Parallel()
		var e *failure.Error
		if errors.As(fmt.Errorf("x: %w", errors.New("y")), &e) {
			t.Errorf("found %+v", e)
		}
	})
	t.Run("WaitError", func(t *testing.T) {
		t.Parallel()
		until := time.Date(2026, 5, 1, 12, 5, 0, 0, time.UTC)
		var w *failure.WaitError
		if !errors.As(fmt.Errorf("gate: %w", &failure.WaitError{Until: until, Reason: "breaker open"}), &w) || !w.Until.Equal(until) {
			t.Errorf("errors.As WaitError = %+v", w)
		}
	})
	t.Run("PanicError unwraps a runtime error", func(t *testing.T) {
		t.Parallel()
		err := nilMapWrite()
		var p *failure.PanicError
		if !errors.As(err, &p) {
			t.Fatalf("no PanicError in %v", err)
		}
		var re runtime.Error
		if !errors.As(err, &re) {
			t.Fatal("PanicError does not unwrap to runtime.Error")
		}
		if !strings.Contains(re.Error(), "nil map") {
			t.Errorf("runtime error = %q", re.Error())
		}
		if len(p.Stack) == 0 || !strings.Contains(string(p.Stack), "nilMapWrite") {
			t.Error("stack does not show where the panic happened")
		}
	})
	t.Run("PanicError of a non-error value unwraps to nil", func(t *testing.T) {
		t.Parallel()
		p := failure.Recovered("boom")
		if p.Unwrap() != nil {
			t.Errorf("Unwrap = %v, want nil", p.Unwrap())
		}
		var re runtime.Error
		if errors.As(p, &re) {
			t.Error("a string panic is no runtime.Error")
		}
	})
}

func TestErrorMessages(t *testing.T) {
	t.Parallel()
	until := time.Date(2026, 5, 1, 14, 0, 0, 0, time.FixedZone("CEST", 2*3600))
	tests := map[string]struct {
		err  error
		want string
	}{
		"class only":          {err: &failure.Error{Class: work.InternalBug}, want: "INTERNAL_BUG"},
		"class and reason":    {err: failure.New(work.SchemaInvalid, "missing %s", "item_id"), want: "SCHEMA_INVALID: missing item_id"},
		"class reason cause":  {err: failure.Wrap(work.Conflict, errors.New("version 3 != 4"), "save item"), want: "CONFLICT: save item: version 3 != 4"},
		"panic":               {err: failure.Recovered("boom"), want: "panic: boom"},
		"wait in UTC":         {err: &failure.WaitError{Until: until, Reason: "breaker open"}, want: "waiting until 2026-05-01T12:00:00Z: breaker open"},
		"code error":          {err: &failure.CodeError{Provider: failure.Webhook, Code: "channel_not_found"}, want: "webhook channel_not_found"},
		"code error with msg": {err: &failure.CodeError{Provider: failure.Webhook, Code: "invalid_token", Message: "token revoked"}, want: "webhook invalid_token: token revoked"},
		"http error with a provider body": {
			err:  &failure.HTTPError{Provider: failure.Anthropic, Op: "messages", Status: 529, Body: []byte(anthropicOverloaded)},
			want: "anthropic messages: HTTP 529 overloaded_error: Overloaded",
		},
		"http error with a text body": {
			err:  &failure.HTTPError{Provider: failure.HTTP, Status: 404, Body: []byte("<html>nope</html>")},
			want: "http: HTTP 404: <html>nope</html>",
		},
		"http error without body": {
			err:  &failure.HTTPError{Provider: failure.Webhook, Op: "POST", Status: 410},
			want: "webhook POST: HTTP 410",
		},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			if got := tc.err.Error(); got != tc.want {
				t.Errorf("Error() = %q, want %q", got, tc.want)
			}
		})
	}
}

func TestHTTPError(t *testing.T) {
	t.Parallel()
	t.Run("long messages are truncated on a rune boundary", func(t *testing.T) {
		t.Parallel()
		msg := strings.Repeat("é", 400)
		e := &failure.HTTPError{Provider: failure.OpenAI, Status: 400, Body: []byte(`{"error":{"message":"` + msg + `"}}`)}
		got := e.Error()
		if !utf8.ValidString(got) {
			t.Errorf("not valid UTF-8: %q", got)
		}
		if !strings.Contains(got, "…(800 bytes)") || len(got) > 400 {
			t.Errorf("Error() = %d bytes %q", len(got), got)
		}
	})
	t.Run("request id and status", func(t *testing.T) {
		t.Parallel()
		tests := map[string]struct {
			header http.Header
			want   string
		}{
			"openai":    {header: http.Header{"X-Request-Id": {"req_1"}}, want: "req_1"},
			"anthropic": {header: http.Header{"Request-Id": {"req_011"}}, want: "req_011"},
			"aws":       {header: http.Header{"X-Amzn-Requestid": {"9f1c"}}, want: "9f1c"},
			"azure":     {header: http.Header{"Apim-Request-Id": {"b2c3"}}, want: "b2c3"},
			"first wins": {
				header: http.Header{"Cf-Ray": {"8a"}, "X-Request-Id": {"req_2"}},
				want:   "req_2",
			},
			"none": {header: http.Header{}, want: ""},
		}
		for name, tc := range tests {
			e := &failure.HTTPError{Status: 418, Header: tc.header}
			if got := e.RequestID(); got != tc.want {
				t.Errorf("%s: RequestID = %q, want %q", name, got, tc.want)
			}
			if e.HTTPStatusCode() != 418 {
				t.Errorf("%s: HTTPStatusCode = %d", name, e.HTTPStatusCode())
			}
		}
	})
}

// TestClasses pins Classes() to docs/design.md's table: every class, in its
// order, with its retryable / counts / model-specific columns.
func TestClasses(t *testing.T) {
	t.Parallel()
	want := []work.Class{
		"RATE_LIMITED", "BUDGET_EXCEEDED", "NETWORK_TIMEOUT", "UPSTREAM_UNAVAILABLE", "CONFLICT",
		"RESPONSE_INVALID", "ACTION_FAILED", "SCHEMA_INVALID", "AUTH_DENIED", "NOT_FOUND",
		"CONTENT_POLICY", "TOKEN_LIMIT", "CLIENT_ERROR", "INTERNAL_BUG", "UNKNOWN",
	}
	got := work.Classes()
	if !slices.Equal(got, want) {
		t.Fatalf("Classes() = %v, want %v", got, want)
	}
	if len(designTraits) != len(want) {
		t.Fatalf("designTraits has %d classes, docs/design.md %d", len(designTraits), len(want))
	}
	for _, c := range got {
		if !c.Valid() {
			t.Errorf("%s is not Valid", c)
		}
		tr := work.Traits{Retryable: c.Retryable(), Counts: c.Counts(), ModelSpecific: c.ModelSpecific()}
		if tr != designTraits[c] || c.Traits() != designTraits[c] {
			t.Errorf("%s traits = %+v, docs/design.md says %+v", c, tr, designTraits[c])
		}
		if parsed, err := work.ParseClass(string(c)); err != nil || parsed != c {
			t.Errorf("ParseClass(%s) = %s, %v", c, parsed, err)
		}
		if of := failure.Of(c, "r"); of.Class != c || of.Retryable != tr.Retryable || of.Counts != tr.Counts || of.ModelSpecific != tr.ModelSpecific || of.Reason != "r" {
			t.Errorf("Of(%s) = %+v", c, of)
		}
	}
	// Classes returns a copy: a caller cannot corrupt the table.
	got[0] = "MUTATED"
	if work.Classes()[0] != work.RateLimited {
		t.Error("Classes() shares its backing array")
	}
}

func TestClassInvalid(t *testing.T) {
	t.Parallel()
	for _, c := range []work.Class{"", "rate_limited", "TIMEOUT", "RATE_LIMITED "} {
		if c.Valid() {
			t.Errorf("%q is Valid", c)
		}
		// Old data with an unknown class is treated as UNKNOWN: retried, counted.
		if c.Traits() != designTraits[work.Unknown] {
			t.Errorf("%q traits = %+v, want UNKNOWN's", c, c.Traits())
		}
	}
	// An *Error with an invalid class is not trusted; the rest of the chain decides.
	c := failure.Classify(&failure.Error{Class: "BOGUS", Err: httpErr(failure.OpenAI, 429, openAIQuota)})
	if c.Class != work.BudgetExceeded {
		t.Errorf("class = %s, want the wrapped upstream's BUDGET_EXCEEDED", c.Class)
	}
}

// TestParseProvider: any name is a provider (docs/design.md "The role of
// the upstream"); a known one says its role and dialect, an unknown one
// says nothing, and only a name no upstream has is refused.
func TestParseProvider(t *testing.T) {
	t.Parallel()
	tests := map[string]struct {
		in      string
		want    failure.Provider
		role    failure.Role
		dialect failure.Provider
		wantErr bool
	}{
		"empty is http":            {in: "", want: failure.HTTP, role: failure.RoleUnknown},
		"openai":                   {in: "openai", want: failure.OpenAI, role: failure.RoleModel, dialect: failure.OpenAI},
		"azure":                    {in: "azure", want: failure.Azure, role: failure.RoleModel, dialect: failure.Azure},
		"anthropic":                {in: "anthropic", want: failure.Anthropic, role: failure.RoleModel, dialect: failure.Anthropic},
		"bedrock":                  {in: "bedrock", want: failure.Bedrock, role: failure.RoleModel, dialect: failure.Bedrock},
		"gemini":                   {in: "gemini", want: failure.Gemini, role: failure.RoleModel, dialect: failure.Gemini},
		"vertex speaks gemini":     {in: "vertex_ai", want: "vertex_ai", role: failure.RoleModel, dialect: failure.Gemini},
		"webhook":                  {in: "webhook", want: failure.Webhook, role: failure.RoleWebhook},
		"slack is a webhook":       {in: "Slack", want: "slack", role: failure.RoleWebhook},
		"aws":                      {in: "aws", want: failure.AWS, role: failure.RoleAWS},
		"dynamodb is aws":          {in: "dynamodb", want: "dynamodb", role: failure.RoleAWS},
		"http says nothing":        {in: "http", want: failure.HTTP, role: failure.RoleUnknown},
		"case folds":               {in: " OpenAI ", want: failure.OpenAI, role: failure.RoleModel, dialect: failure.OpenAI},
		"openai-compatible vendor": {in: "Together-AI", want: "together-ai", role: failure.RoleModel, dialect: failure.OpenAI},
		"unknown is accepted":      {in: "acme-llm", want: "acme-llm", role: failure.RoleUnknown},
		"too long":                 {in: strings.Repeat("a", failure.MaxProviderName+1), wantErr: true},
		"control characters":       {in: "open\nai", wantErr: true},
		"a colon":                  {in: "openai:gpt-4o", wantErr: true},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			got, err := failure.ParseProvider(tc.in)
			if (err != nil) != tc.wantErr {
				t.Fatalf("err = %v, wantErr %v", err, tc.wantErr)
			}
			if err != nil {
				return
			}
			if got != tc.want || got.Role() != tc.role || got.Dialect() != tc.dialect || got.IsModel() != (tc.role == failure.RoleModel) {
				t.Errorf("ParseProvider(%q) = %s role %s dialect %q, want %s role %s dialect %q", tc.in, got, got.Role(), got.Dialect(),
					tc.want, tc.role, tc.dialect)
			}
		})
	}
	if n := len(failure.Providers()); n != 8 {
		t.Errorf("%d providers, want 8: one per dialect and role", n)
	}
}

func TestParseActionOutcome(t *testing.T) {
	t.Parallel()
	longReason := strings.Repeat("é", 300) // 600 bytes
	tests := map[string]struct {
		text      string
		want      failure.Outcome
		found     bool
		malformed bool
	}{
		"success":                       {text: "Posted the summary.\nACTION_OUTCOME: success", want: failure.Outcome{Success: true}, found: true},
		"success with trailing newline": {text: "ACTION_OUTCOME: success\n", want: failure.Outcome{Success: true}, found: true},
		"succeeded":                     {text: "ACTION_OUTCOME: Succeeded", want: failure.Outcome{Success: true}, found: true},
		"success ignores a reason":      {text: "ACTION_OUTCOME: success | all good", want: failure.Outcome{Success: true}, found: true},
		"lower-case marker":             {text: "action_outcome: success", want: failure.Outcome{Success: true}, found: true},
		"failed with reason":            {text: "I tried.\nACTION_OUTCOME: failed | ticket system returned 403", want: failure.Outcome{Reason: "ticket system returned 403"}, found: true},
		"failed without spaces":         {text: "ACTION_OUTCOME:FAILED|quota", want: failure.Outcome{Reason: "quota"}, found: true},
		"failure synonym":               {text: "ACTION_OUTCOME: failure | timeout", want: failure.Outcome{Reason: "timeout"}, found: true},
		"failed without reason":         {text: "ACTION_OUTCOME: failed", want: failure.Outcome{Reason: "no reason given"}, found: true},
		"failed with empty reason":      {text: "ACTION_OUTCOME: failed |   \nthanks", want: failure.Outcome{Reason: "no reason given"}, found: true},
		"reason keeps later bars":       {text: "ACTION_OUTCOME: failed | a | b", want: failure.Outcome{Reason: "a | b"}, found: true},
		"reason ends at CRLF":           {text: "ACTION_OUTCOME: failed | no access\r\nBest,\r\nBot", want: failure.Outcome{Reason: "no access"}, found: true},
		"inside a JSON string with \\n": {
			text: `{"answer":"Opened the form.\nACTION_OUTCOME: failed | captcha blocked submission\n","tokens":812}`,
			want: failure.Outcome{Reason: "captcha blocked submission"}, found: true,
		},
		"inside a JSON string at its end": {
			text: `{"answer":"Done.\nACTION_OUTCOME: success"}`,
			want: failure.Outcome{Success: true}, found: true,
		},
		"last marker wins": {
			text: "You asked me to end with \"ACTION_OUTCOME: success\" or a failure line.\nACTION_OUTCOME: failed | no permission to post",
			want: failure.Outcome{Reason: "no permission to post"}, found: true,
		},
		"last marker wins over an earlier failure": {
			text: "ACTION_OUTCOME: failed | first try timed out\nRetried.\nACTION_OUTCOME: success",
			want: failure.Outcome{Success: true}, found: true,
		},
		"long reason is bounded": {
			text: "ACTION_OUTCOME: failed | " + longReason,
			want: failure.Outcome{Reason: strings.Repeat("é", 100) + "…(600 bytes)"}, found: true,
		},
		"non-ASCII text before the marker": {
			text: "Résumé posted for Yıldız ıı.\nACTION_OUTCOME: failed | calendar locked",
			want: failure.Outcome{Reason: "calendar locked"}, found: true,
		},
		"text whose upper case is longer before the marker": {
			text: "ɐɐɐɐ ACTION_OUTCOME: failed | x",
			want: failure.Outcome{Reason: "x"}, found: true,
		},
		"invalid UTF-8 before a marker at the end": {
			text: "\xff\xff\xffACTION_OUTCOME: success",
			want: failure.Outcome{Success: true}, found: true,
		},
		"invalid UTF-8 before a bare marker does not panic": {
			text: "\xff\xff\xff\xff\xff\xffACTION_OUTCOME:", found: true, malformed: true,
		},
		"malformed verdict":      {text: "ACTION_OUTCOME: partially", found: true, malformed: true},
		"empty verdict":          {text: "ACTION_OUTCOME:", found: true, malformed: true},
		"verdict on next line":   {text: "ACTION_OUTCOME:\nsuccess", found: true, malformed: true},
		"no marker":              {text: "All done, message posted."},
		"marker without a colon": {text: "ACTION_OUTCOME success"},
		"empty":                  {text: ""},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			o, found, err := failure.ParseActionOutcome(tc.text)
			if found != tc.found {
				t.Fatalf("found = %v, want %v", found, tc.found)
			}
			if tc.malformed {
				if !errors.Is(err, &failure.Error{Class: work.ResponseInvalid}) {
					t.Errorf("err = %v, want RESPONSE_INVALID", err)
				}
				return
			}
			if err != nil {
				t.Fatalf("err = %v", err)
			}
			if o != tc.want {
				t.Errorf("outcome = %+v, want %+v", o, tc.want)
			}
		})
	}
}

func TestActionError(t *testing.T) {
	t.Parallel()
	tests := map[string]struct {
		text   string
		want   work.Class // empty: nil error
		inText string     // must appear in Error(), for the redacted log
	}{
		"success":   {text: "ACTION_OUTCOME: success"},
		"failed":    {text: "ACTION_OUTCOME: failed | webhook 404", want: work.ActionFailed, inText: "webhook 404"},
		"missing":   {text: "done", want: work.ResponseInvalid, inText: "no ACTION_OUTCOME marker"},
		"malformed": {text: "ACTION_OUTCOME: maybe", want: work.ResponseInvalid, inText: "neither success nor failed"},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			err := failure.ActionError(tc.text)
			if tc.want == "" {
				if err != nil {
					t.Fatalf("err = %v, want nil", err)
				}
				return
			}
			if !errors.Is(err, &failure.Error{Class: tc.want}) {
				t.Fatalf("err = %v, want class %s", err, tc.want)
			}
			if !strings.Contains(err.Error(), tc.inText) {
				t.Errorf("Error() = %q, want it to mention %q", err.Error(), tc.inText)
			}
		})
	}
}

// The model's reason is found in the chain, and in the recorded text.
func TestActionReason(t *testing.T) {
	t.Parallel()
	err := failure.WithDetail(failure.ActionError("{}\nACTION_OUTCOME: failed | ticket 7 is locked"), "model", "openai:gpt-4o-mini")
	if got, ok := failure.ActionReason(err); !ok || got != "ticket 7 is locked" {
		t.Fatalf("ActionReason = %q, %v", got, ok)
	}
	if got, ok := failure.ActionReasonFromText(err.Error()); !ok || got != "ticket 7 is locked" {
		t.Fatalf("ActionReasonFromText(%q) = %q, %v", err.Error(), got, ok)
	}
	for name, e := range map[string]error{
		"another class": failure.New(work.ResponseInvalid, "not JSON"),
		"plain":         errors.New("boom"),
		"success":       failure.ActionError("{}\nACTION_OUTCOME: success"),
	} {
		if got, ok := failure.ActionReason(e); ok {
			t.Errorf("%s: ActionReason = %q", name, got)
		}
	}
	if _, ok := failure.ActionReasonFromText("RESPONSE_INVALID: not JSON"); ok {
		t.Error("ActionReasonFromText found a reason in another class's text")
	}
}
