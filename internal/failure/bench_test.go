package failure_test

import (
	"net"
	"net/http"
	"os"
	"syscall"
	"testing"

	"github.com/aws/smithy-go"

	"github.com/triagehq/triage/internal/failure"
	"github.com/triagehq/triage/internal/work"
)

// openAI429Body is a typical OpenAI rate-limit body (~250 bytes).
const openAI429Body = `{"error":{"message":"Rate limit reached for gpt-4o in organization org-abc on tokens per min (TPM): Limit 30000, Used 29541, Requested 1733. Please try again in 2.548s.","type":"tokens","param":null,"code":"rate_limit_exceeded"}}`

// BenchmarkClassifyOpenAI429 classifies the most common provider failure:
// an *HTTPError with a ~250-byte JSON body and rate-limit headers.
func BenchmarkClassifyOpenAI429(b *testing.B) {
	err := error(&failure.HTTPError{
		Provider: failure.OpenAI,
		Op:       "chat.completions",
		Status:   http.StatusTooManyRequests,
		Header: http.Header{
			"Content-Type":                   {"application/json"},
			"X-Request-Id":                   {"req_8f2a"},
			"X-Ratelimit-Limit-Tokens":       {"30000"},
			"X-Ratelimit-Remaining-Tokens":   {"0"},
			"X-Ratelimit-Reset-Tokens":       {"2.548s"},
			"X-Ratelimit-Remaining-Requests": {"499"},
			"X-Ratelimit-Reset-Requests":     {"120ms"},
		},
		Body: []byte(openAI429Body),
	})
	b.ReportAllocs()
	for b.Loop() {
		if c := failure.Classify(err); c.Class != work.RateLimited {
			b.Fatalf("class = %s", c.Class)
		}
	}
}

func BenchmarkClassifySmithyThrottle(b *testing.B) {
	err := error(&smithy.OperationError{
		ServiceID:     "DynamoDB",
		OperationName: "UpdateItem",
		Err:           &smithy.GenericAPIError{Code: "ThrottlingException", Message: "Rate of requests exceeds the allowed throughput."},
	})
	b.ReportAllocs()
	for b.Loop() {
		if c := failure.Classify(err); c.Class != work.RateLimited {
			b.Fatalf("class = %s", c.Class)
		}
	}
}

func BenchmarkClassifyNetError(b *testing.B) {
	err := error(&net.OpError{Op: "read", Net: "tcp",
		Err: &os.SyscallError{Syscall: "read", Err: syscall.ECONNRESET}})
	b.ReportAllocs()
	for b.Loop() {
		if c := failure.Classify(err); c.Class != work.NetworkTimeout {
			b.Fatalf("class = %s", c.Class)
		}
	}
}

// BenchmarkClassifyHTML503 classifies an article host's 503 whose body is
// an HTML page: no code, so the error's text is read for one, and the
// status decides by the upstream's role.
func BenchmarkClassifyHTML503(b *testing.B) {
	err := error(&failure.HTTPError{Provider: failure.HTTP, Stage: "fetch", Op: "GET article", Status: 503,
		Header: http.Header{"Content-Type": {"text/html"}},
		Body: []byte("<html><head><title>503 Service Unavailable</title></head><body><h1>Service Unavailable</h1>" +
			"<p>The server is temporarily unable to service your request.</p></body></html>")})
	b.ReportAllocs()
	for b.Loop() {
		if c := failure.Classify(err); c.Class != work.UpstreamUnavailable {
			b.Fatalf("class = %s", c.Class)
		}
	}
}
