package llm

import (
	"bytes"
	"context"
	"io"
	"net/http"
	"strconv"

	"github.com/aws/aws-sdk-go-v2/aws"

	"github.com/triagehq/triage/internal/failure"
	"github.com/triagehq/triage/internal/store"
	"github.com/triagehq/triage/internal/work"
)

// Recorded is an upstream's HTTP response as an operator has it (a log, a
// bug report, a provider's documentation): what Judge replays.
type Recorded struct {
	// Status is the HTTP status; zero means 200.
	Status int
	// Header holds the response headers (Content-Type text/event-stream
	// marks a stream; the Bedrock SDK reads X-Amzn-Errortype).
	Header http.Header
	// Body is the response body.
	Body []byte
}

// JudgeRecorded runs the real client of provider's dialect over a recorded
// response — the request goes nowhere: the client's HTTP transport answers
// with rec — and judges the answer as the llm stage does (Judge after
// Complete), for an item of kind. Any provider name is accepted: a name
// triage does not know is read in the OpenAI-compatible dialect. It
// returns the enrichment of a usable answer, or the error the llm stage
// would have failed the item with; failure.Classify gives its class. The
// same code decodes, so an OpenAI(-compatible), Azure, Anthropic, Bedrock
// Converse or Gemini generateContent answer, a stream with an error event
// after HTTP 200, and a non-2xx error answer all reach the stage's
// decision.
func JudgeRecorded(ctx context.Context, provider failure.Provider, kind store.Kind, rec Recorded) (work.Enrichment, error) {
	if rec.Status == 0 {
		rec.Status = http.StatusOK
	}
	if rec.Status < 100 || rec.Status > 599 {
		return work.Enrichment{}, failure.New(work.InternalBug, "status %d is not an HTTP status", rec.Status)
	}
	hc := &http.Client{Transport: replayTransport{rec}}
	cfg := Config{Provider: provider, HTTPClient: hc}
	if provider == "" || provider == failure.HTTP {
		provider = failure.OpenAI
	}
	cfg.Provider = provider
	switch provider.Dialect() {
	case failure.Bedrock:
		// Placeholder credentials: the request is signed and goes nowhere.
		// (Anonymous credentials make the SDK pick Bedrock's bearer-token
		// scheme, which needs a token provider.)
		cfg.AWS = &aws.Config{Region: "us-east-1", HTTPClient: hc,
			Credentials: aws.CredentialsProviderFunc(func(context.Context) (aws.Credentials, error) {
				return aws.Credentials{AccessKeyID: "judge", SecretAccessKey: "judge", Source: "llm.JudgeRecorded"}, nil
			})}
	case failure.Azure:
		cfg.BaseURL = "https://judge.openai.azure.com/openai/deployments/judge?api-version=" + DefaultAzureAPIVersion
	case failure.Anthropic:
		cfg.BaseURL = "https://judge.anthropic.invalid"
	case failure.Gemini:
		cfg.BaseURL = "https://judge.googleapis.invalid/v1beta"
	default:
		cfg.BaseURL = "https://judge.openai.invalid/v1"
	}
	client, err := NewCompleter(cfg)
	if err != nil {
		return work.Enrichment{}, err
	}
	resp, err := client.Complete(ctx, Request{Model: "judge", Messages: BuildMessages(kind, "recorded answer", 0)})
	if err != nil {
		return work.Enrichment{}, err
	}
	return Judge(kind, resp)
}

// replayTransport answers every request with one recorded response.
type replayTransport struct{ rec Recorded }

func (t replayTransport) RoundTrip(req *http.Request) (*http.Response, error) {
	if req.Body != nil {
		_, _ = io.Copy(io.Discard, req.Body)
		_ = req.Body.Close()
	}
	h := t.rec.Header.Clone()
	if h == nil {
		h = http.Header{}
	}
	if h.Get("Content-Type") == "" {
		h.Set("Content-Type", "application/json")
	}
	return &http.Response{
		Status: strconv.Itoa(t.rec.Status) + " " + http.StatusText(t.rec.Status), StatusCode: t.rec.Status,
		Proto: "HTTP/1.1", ProtoMajor: 1, ProtoMinor: 1, Header: h,
		Body: io.NopCloser(bytes.NewReader(t.rec.Body)), ContentLength: int64(len(t.rec.Body)), Request: req,
	}, nil
}
