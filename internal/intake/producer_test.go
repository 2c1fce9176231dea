package intake_test

import (
	"context"
	"errors"
	"fmt"
	"net"
	"strconv"
	"sync"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/sqs"
	sqstypes "github.com/aws/aws-sdk-go-v2/service/sqs/types"

	"github.com/triagehq/triage/internal/intake"
)

// fakeSQS records batches and answers each entry by a rule.
type fakeSQS struct {
	mu      sync.Mutex
	calls   int
	bodies  []string
	callErr func(call int) error
	// entry decides an entry's fate on its n-th send: "" is success,
	// "server" a failure on SQS's side, "sender" a sender fault.
	entry func(body string, n int) string
	sends map[string]int
}

func (f *fakeSQS) SendMessageBatch(_ context.Context, in *sqs.SendMessageBatchInput, _ ...func(*sqs.Options)) (*sqs.SendMessageBatchOutput, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.calls++
	if len(in.Entries) > intake.BatchSize {
		return nil, fmt.Errorf("TooManyEntriesInBatchRequest: %d", len(in.Entries))
	}
	if f.callErr != nil {
		if err := f.callErr(f.calls); err != nil {
			return nil, err
		}
	}
	if f.sends == nil {
		f.sends = map[string]int{}
	}
	out := &sqs.SendMessageBatchOutput{}
	for _, e := range in.Entries {
		body := aws.ToString(e.MessageBody)
		f.sends[body]++
		fate := ""
		if f.entry != nil {
			fate = f.entry(body, f.sends[body])
		}
		switch fate {
		case "server":
			out.Failed = append(out.Failed, sqstypes.BatchResultErrorEntry{Id: e.Id, Code: aws.String("InternalError"), Message: aws.String("try again"), SenderFault: false})
		case "sender":
			out.Failed = append(out.Failed, sqstypes.BatchResultErrorEntry{Id: e.Id, Code: aws.String("InvalidMessageContents"), Message: aws.String("bad"), SenderFault: true})
		default:
			f.bodies = append(f.bodies, body)
			out.Successful = append(out.Successful, sqstypes.SendMessageBatchResultEntry{Id: e.Id, MessageId: aws.String("msg-" + strconv.Itoa(len(f.bodies)))})
		}
	}
	return out, nil
}

func specs(n int) []intake.Spec {
	out := make([]intake.Spec, n)
	for i := range out {
		id := fmt.Sprintf("item-%03d", i)
		out[i] = intake.Spec{ItemID: id, SourceURL: "https://news.example.com/" + id, WebhookURL: "https://hooks.example.com/t"}
	}
	return out
}

func newProducer(q *fakeSQS) (*intake.Producer, *[]time.Duration) {
	var slept []time.Duration
	var mu sync.Mutex
	return &intake.Producer{SQS: q, QueueURL: "https://sqs.example/fetch", Rand: func() float64 { return 1 },
		Sleep: func(_ context.Context, d time.Duration) error {
			mu.Lock()
			slept = append(slept, d)
			mu.Unlock()
			return nil
		}}, &slept
}

func TestSubmitBatchSendsTenPerCallInOrder(t *testing.T) {
	t.Parallel()
	q := &fakeSQS{}
	p, _ := newProducer(q)
	var last int
	p.Progress = func(done int) { last = max(last, done) }
	in := specs(25)
	in[7].WebhookURL = "ftp://hooks.example.com/t" // invalid: never sent
	rs := p.SubmitBatch(context.Background(), in)
	if len(rs) != 25 {
		t.Fatalf("%d results", len(rs))
	}
	for i, r := range rs {
		if r.Index != i || r.ItemID != in[i].ItemID {
			t.Fatalf("result %d is %+v", i, r)
		}
		switch {
		case i == 7:
			if r.OK() || !intake.Rejected(r.Err) || !errors.Is(r.Err, intake.ErrInvalid) || r.Attempts != 0 {
				t.Fatalf("invalid spec: %+v", r)
			}
		case !r.OK() || r.MessageID == "" || r.Attempts != 1:
			t.Fatalf("result %d: %+v (%v)", i, r, r.Err)
		}
	}
	if q.calls != 3 || len(q.bodies) != 24 {
		t.Fatalf("%d calls sent %d bodies, want 3 calls and 24", q.calls, len(q.bodies))
	}
	if last != 25 {
		t.Fatalf("progress ended at %d", last)
	}
	for _, b := range q.bodies {
		if _, _, err := intake.Decode(b); err != nil {
			t.Fatalf("sent %q, which the fetch stage rejects: %v", b, err)
		}
	}
}

func TestSubmitRetriesWhatMaySucceed(t *testing.T) {
	t.Parallel()
	tests := map[string]struct {
		q            *fakeSQS
		wantOK       bool
		wantRejected bool
		wantAttempts int
	}{
		"an entry SQS failed on its side is sent again": {
			q:      &fakeSQS{entry: func(_ string, n int) string { return map[bool]string{true: "server"}[n < 3] }},
			wantOK: true, wantAttempts: 3,
		},
		"a sender fault is not retried": {
			q:            &fakeSQS{entry: func(string, int) string { return "sender" }},
			wantRejected: true, wantAttempts: 1,
		},
		"a call that failed on the network is retried": {
			q: &fakeSQS{callErr: func(call int) error {
				if call == 1 {
					return &net.OpError{Op: "dial", Net: "tcp", Err: errors.New("connection refused")}
				}
				return nil
			}},
			wantOK: true, wantAttempts: 2,
		},
		"attempts are bounded": {
			q:            &fakeSQS{entry: func(string, int) string { return "server" }},
			wantAttempts: intake.DefaultMaxAttempts,
		},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			p, slept := newProducer(tc.q)
			r, err := p.Submit(context.Background(), specs(1)[0])
			if (err == nil) != tc.wantOK || r.OK() != tc.wantOK || intake.Rejected(err) != tc.wantRejected {
				t.Fatalf("result %+v, err %v", r, err)
			}
			if r.Attempts != tc.wantAttempts {
				t.Fatalf("attempts %d, want %d", r.Attempts, tc.wantAttempts)
			}
			if len(*slept) != tc.wantAttempts-1 {
				t.Fatalf("slept %v between %d attempts", *slept, tc.wantAttempts)
			}
			for i, d := range *slept { // full jitter at its upper bound: 200 ms doubling
				if want := 200 * time.Millisecond << i; d != want {
					t.Fatalf("backoff %d = %v, want %v", i, d, want)
				}
			}
		})
	}
}

func TestSubmitBatchStopsWhenCancelled(t *testing.T) {
	t.Parallel()
	q := &fakeSQS{}
	p, _ := newProducer(q)
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	rs := p.SubmitBatch(ctx, specs(15))
	for _, r := range rs {
		if r.OK() || !errors.Is(r.Err, context.Canceled) {
			t.Fatalf("result %+v after cancel", r)
		}
	}
	if q.calls != 0 {
		t.Fatalf("%d calls after cancel", q.calls)
	}
}
