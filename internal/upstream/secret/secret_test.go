package secret

import (
	"context"
	"errors"
	"net/http"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	awshttp "github.com/aws/aws-sdk-go-v2/aws/transport/http"
	"github.com/aws/aws-sdk-go-v2/service/secretsmanager"
	smtypes "github.com/aws/aws-sdk-go-v2/service/secretsmanager/types"
	"github.com/aws/aws-sdk-go-v2/service/ssm"
	ssmtypes "github.com/aws/aws-sdk-go-v2/service/ssm/types"
	"github.com/aws/smithy-go"
	smithyhttp "github.com/aws/smithy-go/transport/http"

	"github.com/triagehq/triage/internal/clock"
	"github.com/triagehq/triage/internal/failure"
	"github.com/triagehq/triage/internal/work"
)

// The value every fake returns; tests check that it never reaches an error.
const planted = "s3cr3t-VALUE-never-in-errors"

// fakeSSM answers GetParameter from params, or with err.
type fakeSSM struct {
	calls  atomic.Int32
	params map[string]string
	err    error
	// gate, when set, is received from before answering.
	gate chan struct{}
	// started, when set, is sent to when a call begins.
	started chan struct{}
	mu      sync.Mutex
	inputs  []*ssm.GetParameterInput
}

func (f *fakeSSM) GetParameter(ctx context.Context, in *ssm.GetParameterInput, _ ...func(*ssm.Options)) (*ssm.GetParameterOutput, error) {
	f.calls.Add(1)
	f.mu.Lock()
	f.inputs = append(f.inputs, in)
	f.mu.Unlock()
	if f.started != nil {
		f.started <- struct{}{}
	}
	if f.gate != nil {
		select {
		case <-f.gate:
		case <-ctx.Done():
			return nil, ctx.Err()
		}
	}
	if f.err != nil {
		return nil, f.err
	}
	v, ok := f.params[aws.ToString(in.Name)]
	if !ok {
		return nil, sdkErr("SSM", "GetParameter", 400, &ssmtypes.ParameterNotFound{})
	}
	return &ssm.GetParameterOutput{Parameter: &ssmtypes.Parameter{Name: in.Name, Value: aws.String(v)}}, nil
}

// fakeSM answers GetSecretValue from secrets, or with err.
type fakeSM struct {
	calls   atomic.Int32
	secrets map[string]*secretsmanager.GetSecretValueOutput
	err     error
}

func (f *fakeSM) GetSecretValue(_ context.Context, in *secretsmanager.GetSecretValueInput, _ ...func(*secretsmanager.Options)) (*secretsmanager.GetSecretValueOutput, error) {
	f.calls.Add(1)
	if f.err != nil {
		return nil, f.err
	}
	out, ok := f.secrets[aws.ToString(in.SecretId)]
	if !ok {
		return nil, sdkErr("Secrets Manager", "GetSecretValue", 400, &smtypes.ResourceNotFoundException{})
	}
	return out, nil
}

// sdkErr builds the chain the SDK returns for an API error:
// OperationError → awshttp.ResponseError → the API error.
func sdkErr(service, op string, status int, apiErr error) error {
	return &smithy.OperationError{ServiceID: service, OperationName: op, Err: &awshttp.ResponseError{
		ResponseError: &smithyhttp.ResponseError{
			Response: &smithyhttp.Response{Response: &http.Response{StatusCode: status, Header: http.Header{}}},
			Err:      apiErr,
		},
		RequestID: "req-1",
	}}
}

type testBundle struct {
	clock *clock.Stub
	ssm   *fakeSSM
	sm    *fakeSM
	env   map[string]string
	r     *Resolver
}

func setup(t *testing.T) *testBundle {
	t.Helper()
	b := &testBundle{
		clock: clock.NewStub(time.Date(2026, 5, 1, 12, 0, 0, 0, time.UTC)),
		ssm: &fakeSSM{params: map[string]string{
			"/triage/prod/openai-key":                                 planted,
			"arn:aws:ssm:us-east-1:123456789012:parameter/triage/key": planted,
		}},
		sm: &fakeSM{secrets: map[string]*secretsmanager.GetSecretValueOutput{
			"triage/webhook": {SecretString: aws.String(planted)},
			"arn:aws:secretsmanager:us-east-1:123456789012:secret:triage/webhook-AbCdEf": {SecretString: aws.String(planted)},
			"triage/binary": {SecretBinary: []byte(planted)},
			"triage/empty":  {SecretString: aws.String("")},
		}},
		env: map[string]string{"TRIAGE_SECRET": planted},
	}
	b.r = NewResolver(Config{
		SSM:            b.ssm,
		SecretsManager: b.sm,
		Clock:          b.clock,
		Getenv:         func(k string) string { return b.env[k] },
	})
	return b
}

func TestParseRef(t *testing.T) {
	t.Parallel()
	tests := []struct {
		in      string
		want    Ref
		wantErr bool
	}{
		{in: "ssm:/triage/key", want: Ref{SourceSSM, "/triage/key"}},
		{in: "  /triage/key  ", want: Ref{SourceSSM, "/triage/key"}},
		{in: "ssm:triage-key", want: Ref{SourceSSM, "triage-key"}},
		{in: "arn:aws:ssm:us-east-1:1:parameter/x", want: Ref{SourceSSM, "arn:aws:ssm:us-east-1:1:parameter/x"}},
		{in: "secretsmanager:triage/webhook", want: Ref{SourceSecretsManager, "triage/webhook"}},
		{in: "arn:aws:secretsmanager:us-east-1:1:secret:x-AbC", want: Ref{SourceSecretsManager, "arn:aws:secretsmanager:us-east-1:1:secret:x-AbC"}},
		{in: "arn:aws-cn:secretsmanager:cn-north-1:1:secret:x", want: Ref{SourceSecretsManager, "arn:aws-cn:secretsmanager:cn-north-1:1:secret:x"}},
		{in: "env:TRIAGE_SECRET", want: Ref{SourceEnv, "TRIAGE_SECRET"}},
		{in: "", wantErr: true},
		{in: "   ", wantErr: true},
		{in: "ssm:", wantErr: true},
		{in: "env:", wantErr: true},
		{in: "secretsmanager:  ", wantErr: true},
		{in: "plain-name", wantErr: true},
		{in: "vault:secret/x", wantErr: true},
		{in: "arn:aws:s3:::bucket/key", wantErr: true},
		{in: "arn:aws:ssm", wantErr: true},
	}
	for _, tt := range tests {
		t.Run(tt.in, func(t *testing.T) {
			t.Parallel()
			got, err := ParseRef(tt.in)
			if tt.wantErr {
				if err == nil {
					t.Fatalf("ParseRef(%q) = %+v, want error", tt.in, got)
				}
				if c := failure.Classify(err); c.Class != work.InternalBug {
					t.Errorf("class = %s, want INTERNAL_BUG", c.Class)
				}
				return
			}
			if err != nil {
				t.Fatalf("ParseRef(%q): %v", tt.in, err)
			}
			if got != tt.want {
				t.Errorf("ParseRef(%q) = %+v, want %+v", tt.in, got, tt.want)
			}
		})
	}
}

func TestResolveSources(t *testing.T) {
	t.Parallel()
	for _, ref := range []string{
		"ssm:/triage/prod/openai-key",
		"/triage/prod/openai-key",
		"arn:aws:ssm:us-east-1:123456789012:parameter/triage/key",
		"secretsmanager:triage/webhook",
		"arn:aws:secretsmanager:us-east-1:123456789012:secret:triage/webhook-AbCdEf",
		"secretsmanager:triage/binary",
		"env:TRIAGE_SECRET",
	} {
		t.Run(ref, func(t *testing.T) {
			t.Parallel()
			b := setup(t)
			got, err := b.r.Resolve(t.Context(), ref)
			if err != nil {
				t.Fatalf("Resolve: %v", err)
			}
			if got != planted {
				t.Errorf("Resolve = %q, want %q", got, planted)
			}
			bs, err := b.r.Bytes(t.Context(), ref)
			if err != nil || string(bs) != planted {
				t.Errorf("Bytes = %q, %v", bs, err)
			}
		})
	}
}

func TestResolveSSMDecrypts(t *testing.T) {
	t.Parallel()
	b := setup(t)
	if _, err := b.r.Resolve(t.Context(), "/triage/prod/openai-key"); err != nil {
		t.Fatal(err)
	}
	in := b.ssm.inputs[0]
	if aws.ToString(in.Name) != "/triage/prod/openai-key" || !aws.ToBool(in.WithDecryption) {
		t.Errorf("GetParameter input = {Name: %q, WithDecryption: %v}", aws.ToString(in.Name), aws.ToBool(in.WithDecryption))
	}
}

func TestResolveCache(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name      string
		ttl       time.Duration
		advance   time.Duration
		wantCalls int32
	}{
		{name: "fresh within default TTL", advance: DefaultTTL - time.Second, wantCalls: 1},
		{name: "expired at default TTL", advance: DefaultTTL, wantCalls: 2},
		{name: "custom TTL fresh", ttl: time.Hour, advance: 59 * time.Minute, wantCalls: 1},
		{name: "custom TTL expired", ttl: time.Minute, advance: 2 * time.Minute, wantCalls: 2},
		{name: "negative TTL disables cache", ttl: -1, advance: 0, wantCalls: 2},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			b := setup(t)
			r := NewResolver(Config{SSM: b.ssm, Clock: b.clock, TTL: tt.ttl})
			for i := range 2 {
				if i == 1 {
					b.clock.Advance(tt.advance)
				}
				if _, err := r.Resolve(t.Context(), "ssm:/triage/prod/openai-key"); err != nil {
					t.Fatal(err)
				}
			}
			if got := b.ssm.calls.Load(); got != tt.wantCalls {
				t.Errorf("GetParameter calls = %d, want %d", got, tt.wantCalls)
			}
		})
	}
}

func TestResolveErrors(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name      string
		ref       string
		ssmErr    error
		smErr     error
		noClients bool
		wantClass work.Class
	}{
		{name: "ssm parameter not found", ref: "ssm:/triage/missing", wantClass: work.InternalBug},
		{name: "ssm access denied", ref: "ssm:/triage/prod/openai-key",
			ssmErr:    sdkErr("SSM", "GetParameter", 400, &smithy.GenericAPIError{Code: "AccessDeniedException", Message: "not authorized"}),
			wantClass: work.AuthDenied},
		{name: "ssm throttled", ref: "ssm:/triage/prod/openai-key",
			ssmErr:    sdkErr("SSM", "GetParameter", 400, &smithy.GenericAPIError{Code: "ThrottlingException"}),
			wantClass: work.RateLimited},
		{name: "ssm deadline", ref: "ssm:/triage/prod/openai-key", ssmErr: context.DeadlineExceeded, wantClass: work.NetworkTimeout},
		{name: "secretsmanager not found", ref: "secretsmanager:triage/missing", wantClass: work.InternalBug},
		{name: "secretsmanager access denied", ref: "secretsmanager:triage/webhook",
			smErr:     sdkErr("Secrets Manager", "GetSecretValue", 400, &smithy.GenericAPIError{Code: "AccessDeniedException"}),
			wantClass: work.AuthDenied},
		{name: "secretsmanager decryption failure", ref: "secretsmanager:triage/webhook",
			smErr: sdkErr("Secrets Manager", "GetSecretValue", 400, &smtypes.DecryptionFailure{}), wantClass: work.InternalBug},
		{name: "secretsmanager empty value", ref: "secretsmanager:triage/empty", wantClass: work.InternalBug},
		{name: "env unset", ref: "env:TRIAGE_MISSING", wantClass: work.InternalBug},
		{name: "no ssm client", ref: "ssm:/triage/prod/openai-key", noClients: true, wantClass: work.InternalBug},
		{name: "no secretsmanager client", ref: "secretsmanager:triage/webhook", noClients: true, wantClass: work.InternalBug},
		{name: "bad reference", ref: "nonsense", wantClass: work.InternalBug},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			b := setup(t)
			b.ssm.err, b.sm.err = tt.ssmErr, tt.smErr
			r := b.r
			if tt.noClients {
				r = NewResolver(Config{Clock: b.clock})
			}
			_, err := r.Resolve(t.Context(), tt.ref)
			if err == nil {
				t.Fatal("Resolve succeeded, want error")
			}
			if c := failure.Classify(err); c.Class != tt.wantClass {
				t.Errorf("class = %s (%s), want %s; err = %v", c.Class, c.Reason, tt.wantClass, err)
			}
			msg := err.Error()
			if strings.Contains(msg, planted) {
				t.Errorf("error %q contains the secret value", msg)
			}
			if p, perr := ParseRef(tt.ref); perr == nil && !strings.Contains(msg, p.Name) {
				t.Errorf("error %q does not name the reference %q", msg, p.Name)
			}
		})
	}
}

func TestResolveDoesNotCacheFailures(t *testing.T) {
	t.Parallel()
	b := setup(t)
	b.ssm.err = sdkErr("SSM", "GetParameter", 400, &smithy.GenericAPIError{Code: "AccessDeniedException"})
	if _, err := b.r.Resolve(t.Context(), "/triage/prod/openai-key"); err == nil {
		t.Fatal("first Resolve succeeded, want error")
	}
	b.ssm.err = nil // the operator fixed the policy
	got, err := b.r.Resolve(t.Context(), "/triage/prod/openai-key")
	if err != nil || got != planted {
		t.Fatalf("second Resolve = %q, %v", got, err)
	}
	if n := b.ssm.calls.Load(); n != 2 {
		t.Errorf("calls = %d, want 2", n)
	}
}

func TestResolveSSMErrorKeepsSDKChain(t *testing.T) {
	t.Parallel()
	b := setup(t)
	_, err := b.r.Resolve(t.Context(), "ssm:/triage/missing")
	var nf *ssmtypes.ParameterNotFound
	if !errors.As(err, &nf) {
		t.Fatalf("errors.As(ParameterNotFound) failed for %v", err)
	}
	if got := failure.Details(err)["secret_ref"]; got != "ssm:/triage/missing" {
		t.Errorf("secret_ref detail = %q", got)
	}
}

func TestResolveEnvIsNotCached(t *testing.T) {
	t.Parallel()
	b := setup(t)
	if _, err := b.r.Resolve(t.Context(), "env:TRIAGE_SECRET"); err != nil {
		t.Fatal(err)
	}
	b.env = map[string]string{"TRIAGE_SECRET": "rotated"}
	if got, _ := b.r.Resolve(t.Context(), "env:TRIAGE_SECRET"); got != "rotated" {
		t.Errorf("Resolve = %q, want rotated", got)
	}
}

func TestForget(t *testing.T) {
	t.Parallel()
	b := setup(t)
	for range 2 {
		if _, err := b.r.Resolve(t.Context(), "ssm:/triage/prod/openai-key"); err != nil {
			t.Fatal(err)
		}
	}
	b.r.Forget("/triage/prod/openai-key") // the same reference, bare form
	b.r.Forget("not a ref")               // ignored
	if _, err := b.r.Resolve(t.Context(), "ssm:/triage/prod/openai-key"); err != nil {
		t.Fatal(err)
	}
	if n := b.ssm.calls.Load(); n != 2 {
		t.Errorf("calls = %d, want 2", n)
	}
}

func TestBytesFunc(t *testing.T) {
	t.Parallel()
	b := setup(t)
	f := b.r.BytesFunc("secretsmanager:triage/webhook")
	got, err := f(t.Context())
	if err != nil || string(got) != planted {
		t.Fatalf("BytesFunc() = %q, %v", got, err)
	}
}

// TestResolveConcurrentMissesShareOneCall starts n callers on a cold cache;
// the first blocks inside GetParameter until the other n-1 have joined it.
func TestResolveConcurrentMissesShareOneCall(t *testing.T) {
	t.Parallel()
	const n = 16
	b := setup(t)
	b.ssm.gate = make(chan struct{})
	b.ssm.started = make(chan struct{}, n)
	var joined sync.WaitGroup
	joined.Add(n - 1)
	b.r.onWait = func(Ref) { joined.Done() }

	var wg sync.WaitGroup
	results := make([]string, n)
	errs := make([]error, n)
	for i := range n {
		wg.Go(func() { results[i], errs[i] = b.r.Resolve(t.Context(), "ssm:/triage/prod/openai-key") })
	}
	<-b.ssm.started
	joined.Wait()
	close(b.ssm.gate)
	wg.Wait()

	if got := b.ssm.calls.Load(); got != 1 {
		t.Errorf("GetParameter calls = %d, want 1", got)
	}
	for i := range n {
		if errs[i] != nil || results[i] != planted {
			t.Errorf("caller %d: %q, %v", i, results[i], errs[i])
		}
	}
}

func TestResolveWaiterHonoursItsContext(t *testing.T) {
	t.Parallel()
	b := setup(t)
	b.ssm.gate = make(chan struct{})
	b.ssm.started = make(chan struct{}, 1)
	joined := make(chan struct{})
	b.r.onWait = func(Ref) { close(joined) }

	leader := make(chan error, 1)
	go func() {
		_, err := b.r.Resolve(t.Context(), "/triage/prod/openai-key")
		leader <- err
	}()
	<-b.ssm.started

	ctx, cancel := context.WithCancel(t.Context())
	waiter := make(chan error, 1)
	go func() {
		_, err := b.r.Resolve(ctx, "/triage/prod/openai-key")
		waiter <- err
	}()
	<-joined
	cancel()
	if err := <-waiter; !errors.Is(err, context.Canceled) {
		t.Errorf("waiter err = %v, want context.Canceled", err)
	}
	close(b.ssm.gate)
	if err := <-leader; err != nil {
		t.Errorf("leader err = %v", err)
	}
}

func TestResolveWaiterRefetchesWhenLeaderGivesUp(t *testing.T) {
	t.Parallel()
	b := setup(t)
	b.ssm.gate = make(chan struct{})
	b.ssm.started = make(chan struct{}, 2)
	joined := make(chan struct{})
	b.r.onWait = func(Ref) { close(joined) }

	leaderCtx, cancelLeader := context.WithCancel(t.Context())
	leader := make(chan error, 1)
	go func() {
		_, err := b.r.Resolve(leaderCtx, "/triage/prod/openai-key")
		leader <- err
	}()
	<-b.ssm.started

	waiter := make(chan string, 1)
	go func() {
		v, err := b.r.Resolve(t.Context(), "/triage/prod/openai-key")
		if err != nil {
			v = "error: " + err.Error()
		}
		waiter <- v
	}()
	<-joined
	cancelLeader()
	if err := <-leader; !errors.Is(err, context.Canceled) {
		t.Fatalf("leader err = %v, want context.Canceled", err)
	}
	<-b.ssm.started // the waiter's own fetch
	close(b.ssm.gate)
	if v := <-waiter; v != planted {
		t.Errorf("waiter = %q, want the value", v)
	}
	if got := b.ssm.calls.Load(); got != 2 {
		t.Errorf("calls = %d, want 2", got)
	}
}
