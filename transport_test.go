package triage_test

import (
	"context"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/service/sqs"

	"github.com/triagehq/triage"
	"github.com/triagehq/triage/internal/failure"
	"github.com/triagehq/triage/internal/work"
)

// upstream answers each request with the next of answers (the last one
// repeats) and keeps the bodies it received.
type upstream struct {
	mu      sync.Mutex
	answers []func(w http.ResponseWriter)
	bodies  []string
}

func (u *upstream) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	b, _ := io.ReadAll(r.Body)
	u.mu.Lock()
	n := len(u.bodies)
	u.bodies = append(u.bodies, string(b))
	a := u.answers[min(n, len(u.answers)-1)]
	u.mu.Unlock()
	a(w)
}

func (u *upstream) received() []string {
	u.mu.Lock()
	defer u.mu.Unlock()
	return append([]string(nil), u.bodies...)
}

func answer(code int, body string, header ...string) func(w http.ResponseWriter) {
	return func(w http.ResponseWriter) {
		for i := 0; i+1 < len(header); i += 2 {
			w.Header().Set(header[i], header[i+1])
		}
		w.WriteHeader(code)
		_, _ = io.WriteString(w, body)
	}
}

func serve(t *testing.T, answers ...func(w http.ResponseWriter)) (*upstream, string) {
	u := &upstream{answers: answers}
	s := httptest.NewServer(u)
	t.Cleanup(s.Close)
	return u, s.URL
}

// TestRoundTripperRetriesWithTheSameBody: a 429 asking for 3 s, then a 503,
// then a 200: three sends of the same body, the first wait the 3 s asked
// for, and the 200's body reaches the client.
func TestRoundTripperRetriesWithTheSameBody(t *testing.T) {
	u, url := serve(t, answer(429, `{"error":{"message":"Rate limit reached","type":"requests","code":"rate_limit_exceeded"}}`, "Retry-After", "3"),
		answer(503, "busy"), answer(200, `{"ok":true}`))
	clk := newClock()
	c := newClient(t, triage.Config{Clock: clk, Rand: func() float64 { return 0 }})
	hc := &http.Client{Transport: c.RoundTripper(nil, triage.Service("llm:local"))}
	req, _ := http.NewRequestWithContext(within(t, clk, time.Minute), http.MethodPost, url, strings.NewReader(`{"prompt":"p"}`))
	resp, err := hc.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	body, _ := io.ReadAll(resp.Body)
	if got := u.received(); resp.StatusCode != 200 || string(body) != `{"ok":true}` || !slices.Equal(got, []string{`{"prompt":"p"}`, `{"prompt":"p"}`, `{"prompt":"p"}`}) {
		t.Fatalf("status %d body %q, upstream received %q", resp.StatusCode, body, got)
	}
	if w := clk.waits(); len(w) != 2 || w[0] != 3*time.Second {
		t.Fatalf("waits %v, want 3s first", w)
	}
}

// TestRoundTripperSendsABodyItCannotReplayOnce: a body without GetBody is
// sent once, and the upstream's 503 comes back to the client as it was.
func TestRoundTripperSendsABodyItCannotReplayOnce(t *testing.T) {
	u, url := serve(t, answer(503, "down for maintenance"))
	clk := newClock()
	c := newClient(t, triage.Config{Clock: clk})
	req, _ := http.NewRequestWithContext(within(t, clk, time.Minute), http.MethodPost, url, io.NopCloser(strings.NewReader("once")))
	resp, err := c.RoundTripper(nil).RoundTrip(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	body, _ := io.ReadAll(resp.Body)
	if resp.StatusCode != 503 || string(body) != "down for maintenance" || len(u.received()) != 1 || len(clk.waits()) != 0 {
		t.Fatalf("status %d body %q after %d sends, waits %v", resp.StatusCode, body, len(u.received()), clk.waits())
	}
}

// TestRoundTripperReturnsTheLastAnswerWhole: a permanent answer larger than
// what the classifier reads comes back whole, and classifies as the client
// would classify it.
func TestRoundTripperReturnsTheLastAnswerWhole(t *testing.T) {
	big := `{"error":{"message":"Incorrect API key provided","type":"invalid_request_error","code":"invalid_api_key"},"pad":"` +
		strings.Repeat("x", 2*failure.MaxBodyBytes) + `"}`
	u, url := serve(t, answer(401, big))
	clk := newClock()
	c := newClient(t, triage.Config{Clock: clk})
	req, _ := http.NewRequestWithContext(within(t, clk, time.Minute), http.MethodGet, url, nil)
	resp, err := c.RoundTripper(nil).RoundTrip(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	body, _ := io.ReadAll(resp.Body)
	if string(body) != big || len(u.received()) != 1 {
		t.Fatalf("got %d bytes of %d after %d sends", len(body), len(big), len(u.received()))
	}
	if cl := triage.ClassifyResponse(resp, body); cl.Class != work.AuthDenied {
		t.Fatalf("ClassifyResponse = %s (%s)", cl.Class, cl.Reason)
	}
}

// TestRoundTripperHandsOffTheRequestsItem: an item in the request's context
// is handed to the fetch queue when the deadline cannot hold the wait; the
// client gets the *Error, and the answer's body is closed.
func TestRoundTripperHandsOffTheRequestsItem(t *testing.T) {
	_, url := serve(t, answer(503, "busy", "Retry-After", "60"))
	clk, q := newClock(), &fakeSQS{}
	c := newClient(t, triage.Config{Clock: clk, SQS: q, FetchQueueURL: "https://sqs.example/q"})
	ctx := triage.WithCall(within(t, clk, 20*time.Second), triage.ForItem(item("h-1")))
	req, _ := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
	resp, err := c.RoundTripper(nil).RoundTrip(req)
	if resp != nil || !errors.Is(err, triage.ErrQueued) || len(q.sent()) != 1 {
		t.Fatalf("RoundTrip = %v, %v; %d sent", resp, err, len(q.sent()))
	}
}

// TestRoundTripperRetriesATransportError: a connection refused is
// NETWORK_TIMEOUT, retried, and given up with the *Error at the deadline.
func TestRoundTripperRetriesATransportError(t *testing.T) {
	s := httptest.NewServer(http.NotFoundHandler())
	url := s.URL
	s.Close()
	clk := newClock()
	c := newClient(t, triage.Config{Clock: clk, Rand: half})
	req, _ := http.NewRequestWithContext(within(t, clk, 4*time.Second), http.MethodGet, url, nil)
	resp, err := c.RoundTripper(nil).RoundTrip(req)
	var e *triage.Error
	if resp != nil || !errors.As(err, &e) || e.Classification.Class != work.NetworkTimeout || e.Calls < 2 {
		t.Fatalf("RoundTrip = %v, %v; want NETWORK_TIMEOUT after retries", resp, err)
	}
}

func TestClassifyResponse(t *testing.T) {
	req, _ := http.NewRequest(http.MethodPost, "https://api.openai.com/v1/chat/completions?key=sk-secret", nil)
	for _, tc := range []struct {
		status int
		header http.Header
		body   string
		want   triage.Class
		delay  time.Duration
	}{
		{429, nil, `{"error":{"message":"You exceeded your current quota","type":"insufficient_quota","code":"insufficient_quota"}}`, work.BudgetExceeded, 0},
		{429, http.Header{"Retry-After": {"20"}}, `{"error":{"message":"Rate limit reached","code":"rate_limit_exceeded"}}`, work.RateLimited, 20 * time.Second},
		{400, nil, `{"error":{"message":"This model's maximum context length is 8192 tokens","code":"context_length_exceeded"}}`, work.TokenLimit, 0},
		{503, nil, "", work.UpstreamUnavailable, 0},
	} {
		resp := &http.Response{StatusCode: tc.status, Header: tc.header, Request: req}
		cl := triage.ClassifyResponse(resp, []byte(tc.body))
		if cl.Class != tc.want || cl.Requested.Delay != tc.delay || strings.Contains(cl.Reason, "sk-secret") {
			t.Errorf("%d %s: %s (%s), delay %v; want %s, %v", tc.status, tc.body, cl.Class, cl.Reason, cl.Requested.Delay, tc.want, tc.delay)
		}
	}
}

// TestDecideIsThePolicys: the package's Decide is the worker's decision on
// the same input, for every class.
func TestDecideIsThePolicys(t *testing.T) {
	p, err := triage.LookupProfile("predictions")
	if err != nil {
		t.Fatal(err)
	}
	for _, class := range work.Classes() {
		for attempt := 1; attempt <= 6; attempt++ {
			e := failure.New(class, "test")
			got := triage.Decide(p, triage.Notify, e, attempt, t0)
			want := p.Decide(retryInput(triage.Notify, e, attempt))
			if got.Reason() != want.Reason() || got.Counts() != want.Counts() {
				t.Fatalf("%s attempt %d: %s; the policy says %s", class, attempt, got.Reason(), want.Reason())
			}
		}
	}
}

// closeCounter is a request body that counts its Close calls.
type closeCounter struct {
	io.Reader
	closed int
}

func (c *closeCounter) Close() error { c.closed++; return nil }

// TestRoundTripperClosesABodyAClosedGateKeptBack: a request the open
// breaker refuses is never sent, and its body is still closed, as a
// RoundTripper must.
func TestRoundTripperClosesABodyAClosedGateKeptBack(t *testing.T) {
	u, url := serve(t, answer(503, "down"))
	clk := newClock()
	c := newClient(t, triage.Config{Clock: clk, Rand: half, Stores: triage.MemoryStores()})
	rt := c.RoundTripper(nil, triage.Service("llm:down"))
	for range 5 { // open the breaker
		req, _ := http.NewRequestWithContext(within(t, clk, 10*time.Second), http.MethodGet, url, nil)
		if resp, err := rt.RoundTrip(req); err == nil {
			resp.Body.Close()
		}
	}
	sends := len(u.received())
	body := &closeCounter{Reader: strings.NewReader("x")}
	req, _ := http.NewRequestWithContext(within(t, clk, 10*time.Second), http.MethodPost, url, body)
	resp, err := rt.RoundTrip(req)
	if resp != nil || !errors.Is(err, triage.ErrWaiting) || len(u.received()) != sends || body.closed != 1 {
		t.Fatalf("RoundTrip = %v, %v; %d more sends, body closed %d times", resp, err, len(u.received())-sends, body.closed)
	}
}

// TestRoundTripperReportsTheCancellationThatEndedItsWait: the caller
// cancels the request while the RoundTripper waits to send it again after a
// 503: the client gets the cancellation, as from any transport, not the
// 503 it was waiting to get past, and the 503's body is closed.
func TestRoundTripperReportsTheCancellationThatEndedItsWait(t *testing.T) {
	u, url := serve(t, answer(503, "busy"))
	ctx, cancel := context.WithCancel(t.Context())
	c := newClient(t, triage.Config{Clock: cancelling{newClock(), cancel}, Rand: half})
	req, _ := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
	resp, err := c.RoundTripper(nil).RoundTrip(req)
	if resp != nil {
		resp.Body.Close()
	}
	if resp != nil || !errors.Is(err, context.Canceled) || len(u.received()) != 1 {
		t.Fatalf("RoundTrip = %v, %v after %d sends; want the cancellation", resp, err, len(u.received()))
	}
}

// TestRoundTripperReturnsTheAnswerThatOpenedTheBreaker: an upstream that
// answers 503 to every send opens its breaker; the request gives up then,
// and, with no item to hand over, the client gets the upstream's last
// answer, so its own error handling runs, as for any answer it gave up on.
func TestRoundTripperReturnsTheAnswerThatOpenedTheBreaker(t *testing.T) {
	u, url := serve(t, answer(503, "down for maintenance"))
	clk := newClock()
	c := newClient(t, triage.Config{Clock: clk, Rand: half, Stores: triage.MemoryStores()})
	req, _ := http.NewRequestWithContext(within(t, clk, time.Hour), http.MethodGet, url, nil)
	resp, err := c.RoundTripper(nil, triage.Service("llm:down")).RoundTrip(req)
	if err != nil {
		t.Fatalf("RoundTrip = %v after %d sends; want the upstream's 503", err, len(u.received()))
	}
	defer resp.Body.Close()
	body, _ := io.ReadAll(resp.Body)
	if resp.StatusCode != 503 || string(body) != "down for maintenance" {
		t.Fatalf("status %d body %q", resp.StatusCode, body)
	}
}

// deniedSQS refuses every send, as a queue the caller may not write to.
type deniedSQS struct{}

func (deniedSQS) SendMessageBatch(context.Context, *sqs.SendMessageBatchInput, ...func(*sqs.Options)) (*sqs.SendMessageBatchOutput, error) {
	return nil, errors.New("AccessDenied: not authorized to perform sqs:SendMessage")
}

// TestRoundTripperReportsAFailedHandOff: the request's item is to go to the
// fetch queue, and the send fails: the client gets the *Error that says so,
// not the upstream's answer, which would leave the item lost unseen.
func TestRoundTripperReportsAFailedHandOff(t *testing.T) {
	_, url := serve(t, answer(503, "busy", "Retry-After", "60"))
	clk := newClock()
	c := newClient(t, triage.Config{Clock: clk, SQS: deniedSQS{}, FetchQueueURL: "https://sqs.example/q"})
	ctx := triage.WithCall(within(t, clk, 20*time.Second), triage.ForItem(item("h-2")))
	req, _ := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
	resp, err := c.RoundTripper(nil).RoundTrip(req)
	if resp != nil {
		resp.Body.Close()
	}
	var e *triage.Error
	if resp != nil || !errors.As(err, &e) || e.HandoffErr == nil {
		t.Fatalf("RoundTrip = %v, %v; want the *Error of the failed hand-off", resp, err)
	}
}
