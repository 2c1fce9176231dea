package llm_test

import (
	"errors"
	"fmt"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/credentials"
	"github.com/aws/smithy-go"

	"github.com/triagehq/triage/dev/fakes"
	"github.com/triagehq/triage/internal/failure"
	"github.com/triagehq/triage/internal/store"
	"github.com/triagehq/triage/internal/upstream/llm"
	"github.com/triagehq/triage/internal/work"
)

// dialectBundle is the fake LLM with one real client per dialect pointed at
// it: OpenAI, Azure (a resource URL: the deployment is the model), Anthropic
// and Bedrock through the AWS SDK with SigV4 and the SDK's endpoint
// override.
type dialectBundle struct {
	fake    *fakes.LLM
	url     string
	clients map[failure.Provider]llm.Completer
}

const fakeKey = "sk-fake-dialects-0123456789"

func setupDialects(t *testing.T, timeout time.Duration) *dialectBundle {
	t.Helper()
	fake, err := fakes.NewLLM(fakes.LLMOptions{APIKey: fakeKey, RetryAfter: time.Second})
	if err != nil {
		t.Fatal(err)
	}
	srv := fakes.StartTest(t, fake)
	b := &dialectBundle{fake: fake, url: srv.URL, clients: map[failure.Provider]llm.Completer{}}
	awsCfg := &aws.Config{Region: "us-east-1", Credentials: credentials.NewStaticCredentialsProvider("test-access-key", "test-secret-key", "")}
	for _, cfg := range []llm.Config{
		{Provider: failure.OpenAI, BaseURL: srv.URL + "/v1", APIKey: fakeKey},
		{Provider: failure.Azure, BaseURL: srv.URL + "/openai", APIKey: fakeKey},
		{Provider: failure.Anthropic, BaseURL: srv.URL, APIKey: fakeKey},
		{Provider: failure.Bedrock, BaseURL: srv.URL, AWS: awsCfg},
		{Provider: failure.Gemini, BaseURL: srv.URL + "/v1beta", APIKey: fakeKey},
	} {
		cfg.Timeout = timeout
		c, err := llm.NewCompleter(cfg)
		if err != nil {
			t.Fatalf("%s: %v", cfg.Provider, err)
		}
		if c.Provider() != cfg.Provider {
			t.Fatalf("client of %s says it is %s", cfg.Provider, c.Provider())
		}
		b.clients[cfg.Provider] = c
	}
	return b
}

// ask makes one call for item key and judges it as the llm stage does.
func (b *dialectBundle) ask(t *testing.T, p failure.Provider, key string, kind store.Kind) (llm.Response, work.Enrichment, error) {
	t.Helper()
	resp, err := b.clients[p].Complete(t.Context(), llm.Request{
		Model: "model-a", Messages: llm.BuildMessages(kind, "Acme Corp delayed the merger, Maria Lopez said.", 0),
		JSONObject: true, ItemID: key, CorrelationID: "corr-" + key,
	})
	if err != nil {
		return resp, work.Enrichment{}, err
	}
	enr, err := llm.Judge(kind, resp)
	return resp, enr, err
}

var dialects = []failure.Provider{failure.OpenAI, failure.Azure, failure.Anthropic, failure.Bedrock, failure.Gemini}

// TestEveryFailureClassFromEveryDialect serves every fault of the fake LLM
// in each dialect and requires the class the llm stage would act on: each
// dialect's real client (Bedrock: the AWS SDK, signing with SigV4) and the
// shared judgement, over the provider's own wire shapes.
func TestEveryFailureClassFromEveryDialect(t *testing.T) {
	t.Parallel()
	b := setupDialects(t, 300*time.Millisecond)
	const (
		rl = work.RateLimited
		be = work.BudgetExceeded
		nt = work.NetworkTimeout
		uu = work.UpstreamUnavailable
		ri = work.ResponseInvalid
		af = work.ActionFailed
		ad = work.AuthDenied
		cp = work.ContentPolicy
		tl = work.TokenLimit
		ce = work.ClientError
	)
	// want is the class per fault, in the order openai, azure, anthropic,
	// bedrock, gemini. Where dialects differ, the provider differs: Azure
	// and Bedrock have no billing quota error (their "quota" is a
	// throttle), Gemini's spent quota is its per-day free tier, a Bedrock
	// or Gemini model's refusal is plain text, and the Bedrock exceptions
	// and Google's DEADLINE_EXCEEDED have their own classes.
	want := map[fakes.Fault][5]work.Class{
		fakes.FaultRateLimit:      {rl, rl, rl, rl, rl},
		fakes.FaultQuota:          {be, rl, be, rl, be},
		fakes.FaultServerError:    {uu, uu, uu, uu, uu},
		fakes.FaultUnavailable:    {uu, uu, uu, uu, uu},
		fakes.FaultBadGateway:     {uu, uu, uu, uu, uu},
		fakes.FaultReset:          {nt, nt, nt, nt, nt},
		fakes.FaultHang:           {nt, nt, nt, nt, nt},
		fakes.FaultInvalidJSON:    {ri, ri, ri, ri, ri},
		fakes.FaultSchemaMismatch: {ri, ri, ri, ri, ri},
		fakes.FaultEmpty:          {ri, ri, ri, ri, ri},
		fakes.FaultCutOff:         {ri, ri, ri, ri, ri},
		fakes.FaultContentPolicy:  {cp, cp, cp, cp, cp},
		fakes.FaultContentFilter:  {cp, cp, cp, cp, cp},
		fakes.FaultRefusal:        {cp, cp, cp, ri, ri},
		fakes.FaultContextLength:  {tl, tl, tl, tl, tl},
		fakes.FaultAuth:           {ad, ad, ad, ad, ad},
		fakes.FaultModelNotFound:  {ce, ce, ce, ce, ce},
		fakes.FaultModelTimeout:   {uu, uu, uu, nt, nt},
		fakes.FaultModelNotReady:  {uu, uu, uu, uu, uu},
		fakes.FaultModelError:     {uu, uu, uu, uu, uu},
		fakes.FaultActionFailed:   {af, af, af, af, af},
	}
	for _, f := range fakes.LLMFaults() {
		if _, ok := want[f]; !ok && f != fakes.FaultNone {
			t.Errorf("fault %s has no expectation: every LLM fault must be tested in every dialect", f)
		}
	}
	seen := map[failure.Provider]map[work.Class]bool{}
	for fault, classes := range want {
		for i, p := range dialects {
			key := string(p) + "-" + string(fault)
			if err := b.fake.SetScript(key, fault); err != nil {
				t.Fatal(err)
			}
			kind := store.KindStory
			if fault == fakes.FaultActionFailed {
				kind = store.KindAction
			}
			_, _, err := b.ask(t, p, key, kind)
			if err == nil {
				t.Errorf("%s %s: no error, want %s", p, fault, classes[i])
				continue
			}
			cl := failure.Classify(err)
			if cl.Class != classes[i] {
				t.Errorf("%s %s: class %s (%s), want %s; err = %v", p, fault, cl.Class, cl.Reason, classes[i], err)
			}
			if strings.Contains(err.Error(), fakeKey) || strings.Contains(err.Error(), "Maria Lopez") {
				t.Errorf("%s %s: the error leaks the key or the prompt: %v", p, fault, err)
			}
			if seen[p] == nil {
				seen[p] = map[work.Class]bool{}
			}
			seen[p][cl.Class] = true
			// After the script, the same key succeeds.
			if _, enr, err := b.ask(t, p, key, kind); err != nil || enr.PrimaryActor != "Acme" {
				t.Errorf("%s %s: the call after the fault: %+v, %v", p, fault, enr, err)
			}
		}
	}
	// Every class an upstream model call can produce is reachable from
	// every dialect (BUDGET_EXCEEDED from Azure and Bedrock comes from
	// triage's own daily budget, not from the provider).
	for _, p := range dialects {
		for _, c := range []work.Class{rl, nt, uu, ri, af, ad, cp, tl, ce} {
			if !seen[p][c] {
				t.Errorf("%s: class %s never reached", p, c)
			}
		}
	}
}

// TestDialectsAnswer checks what a usable answer brings back from each
// dialect: the text, the normalised stop, the usage, a request id.
func TestDialectsAnswer(t *testing.T) {
	t.Parallel()
	b := setupDialects(t, 5*time.Second)
	for _, p := range dialects {
		t.Run(string(p), func(t *testing.T) {
			resp, enr, err := b.ask(t, p, "ok-"+string(p), store.KindAction)
			if err != nil {
				t.Fatal(err)
			}
			if enr.PrimaryActor != "Acme" || enr.ActionOutcome != "success" {
				t.Errorf("enrichment = %+v", enr)
			}
			if resp.Provider != p || resp.Stop != llm.StopEnd || !resp.Usage.Reported || resp.Usage.InputTokens <= 0 ||
				resp.Usage.OutputTokens <= 0 || resp.RequestID == "" {
				t.Errorf("response = %+v", resp)
			}
		})
	}
	st := b.fake.Stats()
	for _, p := range dialects {
		if st.Dialects[fakes.Dialect(p)] != 1 {
			t.Errorf("the fake saw %d %s requests, want 1", st.Dialects[fakes.Dialect(p)], p)
		}
	}
}

// TestBedrockExceptionsAreTyped checks that the fake's Bedrock exceptions
// reach the SDK's typed errors — the header and body shapes are right —
// with the request id and status as details.
func TestBedrockExceptionsAreTyped(t *testing.T) {
	t.Parallel()
	b := setupDialects(t, 5*time.Second)
	for fault, code := range map[fakes.Fault]string{
		fakes.FaultRateLimit: "ThrottlingException", fakes.FaultQuota: "ServiceQuotaExceededException",
		fakes.FaultServerError: "InternalServerException", fakes.FaultUnavailable: "ServiceUnavailableException",
		fakes.FaultModelTimeout: "ModelTimeoutException", fakes.FaultModelNotReady: "ModelNotReadyException",
		fakes.FaultModelError: "ModelErrorException", fakes.FaultContextLength: "ValidationException",
		fakes.FaultAuth: "AccessDeniedException", fakes.FaultModelNotFound: "ValidationException",
	} {
		key := "typed-" + string(fault)
		if err := b.fake.SetScript(key, fault); err != nil {
			t.Fatal(err)
		}
		_, _, err := b.ask(t, failure.Bedrock, key, store.KindStory)
		var api smithy.APIError
		if !errors.As(err, &api) || api.ErrorCode() != code {
			t.Errorf("%s: err = %v, want the SDK's %s", fault, err, code)
			continue
		}
		var op *smithy.OperationError
		if !errors.As(err, &op) || op.Service() != "Bedrock Runtime" || op.Operation() != llm.BedrockOp {
			t.Errorf("%s: not a Bedrock Runtime Converse operation error: %v", fault, err)
		}
		if d := failure.Details(err); d["request_id"] == "" || d["upstream_status"] == "" {
			t.Errorf("%s: details = %v", fault, d)
		}
		if cl := failure.Classify(err); cl.Provider != failure.Bedrock || cl.Code != code {
			t.Errorf("%s: classification %+v, want provider bedrock code %s", fault, cl, code)
		}
	}
}

// TestBedrockSignsAndSendsNoKey checks that the Bedrock client signs with
// SigV4 and that an unsigned request is refused the way Bedrock refuses it.
func TestBedrockSignsAndSendsNoKey(t *testing.T) {
	t.Parallel()
	b := setupDialects(t, 5*time.Second)
	if _, _, err := b.ask(t, failure.Bedrock, "signed", store.KindStory); err != nil {
		t.Fatalf("a signed call failed: %v", err)
	}
	// An unsigned request, as Bedrock answers one.
	req, err := http.NewRequestWithContext(t.Context(), http.MethodPost, b.url+"/model/m/converse",
		strings.NewReader(`{"messages":[{"role":"user","content":[{"text":"x"}]}]}`))
	if err != nil {
		t.Fatal(err)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusForbidden || !strings.HasPrefix(resp.Header.Get("X-Amzn-Errortype"), "MissingAuthenticationTokenException") {
		t.Errorf("unsigned call: %d %q", resp.StatusCode, resp.Header.Get("X-Amzn-Errortype"))
	}
}

// TestDialectOutage takes one dialect down: its calls fail with its own
// 503-class answer, the other dialects keep answering.
func TestDialectOutage(t *testing.T) {
	t.Parallel()
	b := setupDialects(t, 5*time.Second)
	if err := b.fake.SetDialectOutage(fakes.DialectBedrock, true, ""); err != nil {
		t.Fatal(err)
	}
	_, _, err := b.ask(t, failure.Bedrock, "o1", store.KindStory)
	if cl := failure.Classify(err); cl.Class != work.UpstreamUnavailable || cl.Code != "ServiceUnavailableException" {
		t.Errorf("bedrock during its outage: %+v (%v)", cl, err)
	}
	for _, p := range []failure.Provider{failure.OpenAI, failure.Anthropic, failure.Azure} {
		if _, _, err := b.ask(t, p, "o1-"+string(p), store.KindStory); err != nil {
			t.Errorf("%s during bedrock's outage: %v", p, err)
		}
	}
	if st := b.fake.Stats(); st.DialectOutages[fakes.DialectBedrock] != fakes.OutageUnavailable {
		t.Errorf("stats dialect outages = %v", st.DialectOutages)
	}
	if err := b.fake.SetDialectOutage(fakes.DialectBedrock, false, ""); err != nil {
		t.Fatal(err)
	}
	if _, _, err := b.ask(t, failure.Bedrock, "o2", store.KindStory); err != nil {
		t.Errorf("bedrock after its outage: %v", err)
	}
}

// TestBedrockClientDoesNotRetry checks that the SDK's own retries are off:
// one Complete is one request, even for a throttle the SDK would retry.
func TestBedrockClientDoesNotRetry(t *testing.T) {
	t.Parallel()
	b := setupDialects(t, 5*time.Second)
	if err := b.fake.SetScript("retry", fakes.Always(fakes.FaultRateLimit)); err != nil {
		t.Fatal(err)
	}
	_, _, err := b.ask(t, failure.Bedrock, "retry", store.KindStory)
	if failure.Classify(err).Class != work.RateLimited {
		t.Fatalf("err = %v", err)
	}
	if n := b.fake.Stats().Calls["retry"]; n != 1 {
		t.Errorf("the fake saw %d requests for one Complete, want 1", n)
	}
}

// TestNewCompleterByDialect: the client is the provider's dialect's, any
// name triage does not know is an OpenAI-compatible endpoint that reports
// its own name (docs/design.md "Dialects"), and a provider that is no
// model endpoint is a deployment's mistake.
func TestNewCompleterByDialect(t *testing.T) {
	t.Parallel()
	for _, p := range []failure.Provider{failure.Webhook, failure.AWS, failure.HTTP, "slack"} {
		if _, err := llm.NewCompleter(llm.Config{Provider: p, BaseURL: "https://x.example"}); failure.Classify(err).Class != work.InternalBug {
			t.Errorf("%s: err = %v, want INTERNAL_BUG", p, err)
		}
	}
	for p, want := range map[failure.Provider]string{
		"groq": "*llm.Client", "mystery": "*llm.Client", "": "*llm.Client", failure.Azure: "*llm.Client",
		failure.Anthropic: "*llm.AnthropicClient", failure.Gemini: "*llm.GeminiClient", failure.Vertex: "*llm.GeminiClient",
	} {
		c, err := llm.NewCompleter(llm.Config{Provider: p, BaseURL: "https://x.example"})
		if err != nil {
			t.Errorf("%q: %v", p, err)
			continue
		}
		if got := fmt.Sprintf("%T", c); got != want {
			t.Errorf("%q: client %s, want %s", p, got, want)
		}
		if p != "" && c.Provider() != p {
			t.Errorf("%q: the client reports %s", p, c.Provider())
		}
	}
	if _, err := llm.NewBedrock(llm.Config{}); failure.Classify(err).Class != work.InternalBug {
		t.Errorf("bedrock without an AWS config: %v", err)
	}
}
