package report_test

import (
	"strconv"
	"strings"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/triagehq/triage/internal/failure"
	"github.com/triagehq/triage/internal/report"
	"github.com/triagehq/triage/internal/store"
	"github.com/triagehq/triage/internal/work"
)

// sdkText is a failure as the AWS SDK prints it: a request id, a URL, numbers.
const sdkText = `operation error Bedrock Runtime: InvokeModel, https response error StatusCode: 400, RequestID: 3f1a2b4c-5d6e-4f70-8a9b-0c1d2e3f4a5b, ValidationException: Malformed input request: #: extraneous key [foo] is not permitted at https://bedrock-runtime.us-east-1.amazonaws.com/model/anthropic.claude-3-5-sonnet-20240620-v1:0/invoke?x=1, "retry_after": 12.5s`

func BenchmarkShape(b *testing.B) {
	b.ReportAllocs()
	b.SetBytes(int64(len(sdkText)))
	for b.Loop() {
		report.Shape(sdkText)
	}
}

// BenchmarkUnknownOf groups 10,000 unrecognised failures of 50 families:
// the unknown report's work once the entries are read.
func BenchmarkUnknownOf(b *testing.B) {
	t0 := time.Date(2026, 11, 20, 9, 0, 0, 0, time.UTC)
	entries := make([]store.LogEntry, 10_000)
	for i := range entries {
		entries[i] = store.LogEntry{ItemID: "item-" + strconv.Itoa(i%700), Stage: work.LLM, Class: work.ClientError, Default: true,
			Provider: failure.OpenAI, Status: 400 + i%50, OccurredAt: t0.Add(time.Duration(i) * time.Second),
			Message: "openai chat: HTTP " + strconv.Itoa(400+i%50) + " weird: request req_" + strconv.Itoa(i) + " failed after " + strconv.Itoa(i%9) + ".5s"}
	}
	b.ReportAllocs()
	for b.Loop() {
		if rows := report.UnknownOf(entries); len(rows) != 50 {
			b.Fatalf("%d families, want 50", len(rows))
		}
	}
}

// FuzzShape: any text gives a bounded, valid shape without a panic, and the
// same text always the same shape.
func FuzzShape(f *testing.F) {
	for _, s := range []string{sdkText, `Post "https://api.groq.com/openai/v1/chat?x=1": dial tcp 10.0.0.1:443: i/o timeout`,
		`{'error': {'message': "can't", 'code': 'x'}}`, "\uE000\uE001 https://a.b/c \uE000\uE005", strings.Repeat(`"a`, 300)} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		got := report.Shape(s)
		if len(got) > report.MaxShape {
			t.Fatalf("shape of %d bytes", len(got))
		}
		if utf8.ValidString(s) && !utf8.ValidString(got) {
			t.Fatalf("invalid UTF-8 from valid input: %q", got)
		}
		if again := report.Shape(s); again != got {
			t.Fatalf("two shapes of one text: %q, %q", got, again)
		}
	})
}
