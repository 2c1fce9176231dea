package failure_test

import (
	"encoding/json"
	"errors"
	"net/http"
	"strings"
	"testing"
	"time"

	awshttp "github.com/aws/aws-sdk-go-v2/aws/transport/http"
	"github.com/aws/smithy-go"
	smithyhttp "github.com/aws/smithy-go/transport/http"

	"github.com/triagehq/triage/internal/failure"
	"github.com/triagehq/triage/internal/work"
)

// testBundle holds what every classification test needs: a fixed clock for
// resolving absolute Retry-After times.
type testBundle struct {
	now time.Time
}

func setup(t *testing.T) *testBundle {
	t.Helper()
	return &testBundle{now: time.Date(2026, 5, 1, 12, 0, 0, 0, time.UTC)}
}

// designTraits is the table of docs/design.md "Error classes and retry profiles", written out here
// independently of class.go so that a drift in either shows up.
var designTraits = map[work.Class]work.Traits{
	work.RateLimited:         {Retryable: true, Counts: true},
	work.BudgetExceeded:      {Retryable: true, Counts: false},
	work.NetworkTimeout:      {Retryable: true, Counts: true},
	work.UpstreamUnavailable: {Retryable: true, Counts: true},
	work.Conflict:            {Retryable: true, Counts: true},
	work.ResponseInvalid:     {Retryable: true, Counts: true, ModelSpecific: true},
	work.ActionFailed:        {Retryable: true, Counts: true},
	work.SchemaInvalid:       {},
	work.AuthDenied:          {},
	work.NotFound:            {},
	work.ContentPolicy:       {},
	work.TokenLimit:          {},
	work.ClientError:         {ModelSpecific: true},
	work.InternalBug:         {},
	work.Unknown:             {Retryable: true, Counts: true},
}

// headerOf is the http.Header of name/value pairs, each added in turn.
func headerOf(pairs ...string) http.Header {
	h := http.Header{}
	for i := 0; i+1 < len(pairs); i += 2 {
		h.Add(pairs[i], pairs[i+1])
	}
	return h
}

// httpErr builds the *failure.HTTPError a triage HTTP client returns;
// headers are name/value pairs.
func httpErr(p failure.Provider, status int, body string, headers ...string) *failure.HTTPError {
	return &failure.HTTPError{Provider: p, Op: "request", Status: status, Header: headerOf(headers...), Body: []byte(body)}
}

// sdkErr builds the error chain the AWS SDK for Go v2 returns for an API
// error: OperationError → awshttp.ResponseError → the API error. A zero
// status leaves the response out, as some tests and middlewares do.
func sdkErr(service, op string, status int, apiErr error) error {
	inner := apiErr
	if status != 0 {
		inner = responseErr(status, apiErr)
	}
	return &smithy.OperationError{ServiceID: service, OperationName: op, Err: inner}
}

func apiErr(code, msg string) *smithy.GenericAPIError {
	return &smithy.GenericAPIError{Code: code, Message: msg, Fault: smithy.FaultClient}
}

func responseErr(status int, err error) *awshttp.ResponseError {
	return &awshttp.ResponseError{
		ResponseError: &smithyhttp.ResponseError{
			Response: &smithyhttp.Response{Response: &http.Response{StatusCode: status, Header: http.Header{}}},
			Err:      err,
		},
		RequestID: "4KC7B1TQ6EJ0F3S1G2UOV4OA0FVV4KQNSO5AEMVJF66Q9ASUAAJG",
	}
}

// upstreamText returns the message text an upstream put in err: "message"
// fields of a JSON body, a plain-text body that is more than a bare code, an
// API error's message. A classification's Reason must contain none of it;
// codes such as "insufficient_quota" are evidence and may appear.
func upstreamText(err error) []string {
	var out []string
	add := func(s string) {
		if len(strings.TrimSpace(s)) >= 16 {
			out = append(out, s)
		}
	}
	var h *failure.HTTPError
	if errors.As(err, &h) {
		var v any
		if json.Unmarshal(h.Body, &v) == nil {
			walkMessages(v, add)
		} else if strings.ContainsAny(string(h.Body), " \t\n") {
			add(string(h.Body))
		}
	}
	var me interface{ ErrorMessage() string }
	if errors.As(err, &me) {
		add(me.ErrorMessage())
	}
	return out
}

// walkMessages calls f with every string under a "message" key.
func walkMessages(v any, f func(string)) {
	switch v := v.(type) {
	case map[string]any:
		for k, e := range v {
			if s, ok := e.(string); ok && strings.EqualFold(k, "message") {
				f(s)
			}
			walkMessages(e, f)
		}
	case []any:
		for _, e := range v {
			walkMessages(e, f)
		}
	}
}

// checkTraits asserts that c carries the traits docs/design.md gives its class.
func checkTraits(t *testing.T, c failure.Classification) {
	t.Helper()
	want, ok := designTraits[c.Class]
	if !ok {
		t.Fatalf("class %q is not in docs/design.md's table", c.Class)
	}
	got := work.Traits{Retryable: c.Retryable, Counts: c.Counts, ModelSpecific: c.ModelSpecific}
	if got != want {
		t.Errorf("%s traits = %+v, docs/design.md says %+v", c.Class, got, want)
	}
}
