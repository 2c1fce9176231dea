package poller_test

import (
	"context"
	"encoding/json"
	"errors"
	"maps"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/aws/aws-lambda-go/events"
	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/sqs"
	"github.com/aws/aws-sdk-go-v2/service/sqs/types"

	"github.com/triagehq/triage/dev/local/lambda"
	"github.com/triagehq/triage/dev/local/lambda/lambdatest"
	"github.com/triagehq/triage/dev/local/localtest"
	"github.com/triagehq/triage/dev/local/moto"
	"github.com/triagehq/triage/dev/local/poller"
	"github.com/triagehq/triage/dev/local/template"
)

func TestMain(m *testing.M) { localtest.Main(m) }

func TestParseBatchResponse(t *testing.T) {
	t.Parallel()
	ids := map[string]bool{"a": true, "b": true}
	tests := map[string]struct {
		payload string
		failed  []string // nil with invalid
		invalid bool
	}{
		"empty payload":              {payload: "", failed: []string{}},
		"null":                       {payload: "null", failed: []string{}},
		"empty object":               {payload: "{}", failed: []string{}},
		"null list":                  {payload: `{"batchItemFailures":null}`, failed: []string{}},
		"empty list":                 {payload: `{"batchItemFailures":[]}`, failed: []string{}},
		"other fields are ignored":   {payload: `{"batchItemFailures":[],"note":1}`, failed: []string{}},
		"one failure":                {payload: `{"batchItemFailures":[{"itemIdentifier":"b"}]}`, failed: []string{"b"}},
		"duplicates":                 {payload: `{"batchItemFailures":[{"itemIdentifier":"a"},{"itemIdentifier":"a"}]}`, failed: []string{"a"}},
		"not JSON":                   {payload: `ok`, invalid: true},
		"JSON string":                {payload: `"ok"`, invalid: true},
		"JSON array":                 {payload: `[]`, invalid: true},
		"list is not a list":         {payload: `{"batchItemFailures":"a"}`, invalid: true},
		"empty itemIdentifier":       {payload: `{"batchItemFailures":[{"itemIdentifier":""}]}`, invalid: true},
		"null itemIdentifier":        {payload: `{"batchItemFailures":[{"itemIdentifier":null}]}`, invalid: true},
		"numeric itemIdentifier":     {payload: `{"batchItemFailures":[{"itemIdentifier":1}]}`, invalid: true},
		"bad key name":               {payload: `{"batchItemFailures":[{"itemId":"a"}]}`, invalid: true},
		"null entry":                 {payload: `{"batchItemFailures":[null]}`, invalid: true},
		"unknown itemIdentifier":     {payload: `{"batchItemFailures":[{"itemIdentifier":"zzz"}]}`, invalid: true},
		"one unknown fails them all": {payload: `{"batchItemFailures":[{"itemIdentifier":"a"},{"itemIdentifier":"c"}]}`, invalid: true},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			failed, err := poller.ParseBatchResponse([]byte(tc.payload), ids)
			if tc.invalid {
				if !errors.Is(err, poller.ErrInvalidResponse) {
					t.Errorf("err = %v, want ErrInvalidResponse", err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if got := slices.Sorted(maps.Keys(failed)); !slices.Equal(got, tc.failed) && !(len(got) == 0 && len(tc.failed) == 0) {
				t.Errorf("failed = %v, want %v", got, tc.failed)
			}
		})
	}
}

// TestEventShape checks that a built event has the keys of a Lambda SQS
// event, as in events/fetch/normal.json.
func TestEventShape(t *testing.T) {
	t.Parallel()
	sample := localtest.Event(t, "fetch/normal.json")
	var want struct{ Records []map[string]json.RawMessage }
	if err := json.Unmarshal(sample, &want); err != nil {
		t.Fatal(err)
	}
	msg := types.Message{
		MessageId: aws.String("id-1"), ReceiptHandle: aws.String("rh-1"), Body: aws.String(`{"x":1}`),
		MD5OfBody:  aws.String("md5"),
		Attributes: map[string]string{"ApproximateReceiveCount": "2", "SentTimestamp": "1", "SenderId": "S", "ApproximateFirstReceiveTimestamp": "2"},
		MessageAttributes: map[string]types.MessageAttributeValue{
			"kind": {DataType: aws.String("String"), StringValue: aws.String("story")},
		},
		MD5OfMessageAttributes: aws.String("md5attrs"),
	}
	b, err := json.Marshal(poller.Event([]types.Message{msg}, "arn:aws:sqs:us-east-1:123456789012:q", "us-east-1"))
	if err != nil {
		t.Fatal(err)
	}
	var got struct{ Records []map[string]json.RawMessage }
	if err := json.Unmarshal(b, &got); err != nil {
		t.Fatal(err)
	}
	for k := range want.Records[0] {
		if _, ok := got.Records[0][k]; !ok {
			t.Errorf("built record lacks %q: %s", k, b)
		}
	}
	var ev events.SQSEvent
	if err := json.Unmarshal(b, &ev); err != nil {
		t.Fatal(err)
	}
	r := ev.Records[0]
	if r.EventSource != "aws:sqs" || r.EventSourceARN != "arn:aws:sqs:us-east-1:123456789012:q" || r.AWSRegion != "us-east-1" ||
		r.Attributes["ApproximateReceiveCount"] != "2" || r.Md5OfBody != "md5" || r.Body != `{"x":1}` || r.ReceiptHandle != "rh-1" {
		t.Errorf("record %+v", r)
	}
	if a := r.MessageAttributes["kind"]; aws.ToString(a.StringValue) != "story" || a.DataType != "String" || a.StringListValues == nil {
		t.Errorf("message attribute %+v", a)
	}
}

func TestFromTemplate(t *testing.T) {
	t.Parallel()
	tpl, err := template.ParseFile(localtest.TemplatePath(t))
	if err != nil {
		t.Fatal(err)
	}
	r, err := template.NewResolver(tpl, template.ResolverConfig{Physical: map[string]string{
		"LLMQueue": "https://sqs.us-east-1.amazonaws.com/123456789012/s-LLMQueue-X",
	}})
	if err != nil {
		t.Fatal(err)
	}
	fn, _ := tpl.Function("LLMFunc")
	m, err := poller.FromTemplate(fn, fn.Events[0], r)
	if err != nil {
		t.Fatal(err)
	}
	want := poller.Mapping{Function: "LLMFunc", QueueURL: "https://sqs.us-east-1.amazonaws.com/123456789012/s-LLMQueue-X",
		QueueARN: "arn:aws:sqs:us-east-1:123456789012:s-LLMQueue-X", BatchSize: 10, BatchingWindow: time.Second,
		MaxConcurrency: 10, ReportBatchItemFailures: true}
	if m != want {
		t.Errorf("mapping %+v\nwant    %+v", m, want)
	}
	fetch, _ := tpl.Function("FetchFunc") // its queue has no physical id here
	if _, err := poller.FromTemplate(fetch, fetch.Events[0], r); !errors.Is(err, template.ErrUnresolved) {
		t.Errorf("unresolvable queue: %v", err)
	}
}

func TestRunRejectsIncompleteMapping(t *testing.T) {
	t.Parallel()
	for name, p := range map[string]*poller.Poller{
		"empty":          {},
		"no invoker":     {Mapping: poller.Mapping{Function: "F", QueueURL: "u", QueueARN: "a"}, SQS: &sqs.Client{}},
		"batch too big":  {Mapping: poller.Mapping{Function: "F", QueueURL: "u", QueueARN: "a", BatchSize: 10001}, SQS: &sqs.Client{}, Invoker: invokerFunc(nil)},
		"window too big": {Mapping: poller.Mapping{Function: "F", QueueURL: "u", QueueARN: "a", BatchingWindow: time.Hour}, SQS: &sqs.Client{}, Invoker: invokerFunc(nil)},
	} {
		if err := p.Run(t.Context()); !errors.Is(err, poller.ErrInvalidMapping) {
			t.Errorf("%s: %v, want ErrInvalidMapping", name, err)
		}
	}
}

// --- against moto -------------------------------------------------------

type invokerFunc func(ctx context.Context, fn string, payload []byte) (lambda.Result, error)

func (f invokerFunc) Invoke(ctx context.Context, fn string, payload []byte) (lambda.Result, error) {
	return f(ctx, fn, payload)
}

// deliveries records every record an invoker saw: body → receive counts.
type deliveries struct {
	mu     sync.Mutex
	counts map[string][]string
}

func (d *deliveries) record(ev events.SQSEvent) {
	d.mu.Lock()
	defer d.mu.Unlock()
	if d.counts == nil {
		d.counts = map[string][]string{}
	}
	for _, r := range ev.Records {
		d.counts[r.Body] = append(d.counts[r.Body], r.Attributes["ApproximateReceiveCount"])
	}
}

func (d *deliveries) of(body string) []string {
	d.mu.Lock()
	defer d.mu.Unlock()
	return slices.Clone(d.counts[body])
}

type queue struct {
	url, arn string
	client   *sqs.Client
}

// newQueue creates a uniquely named queue in the shared moto and sets its
// visibility timeout, so kept messages come back quickly.
func newQueue(t *testing.T, visibility time.Duration) *queue {
	t.Helper()
	endpoint := localtest.Endpoint(t)
	cfg, err := moto.Config(t.Context(), endpoint)
	if err != nil {
		t.Fatal(err)
	}
	client := sqs.NewFromConfig(cfg)
	out, err := client.CreateQueue(t.Context(), &sqs.CreateQueueInput{QueueName: aws.String(localtest.UniqueName(t))})
	if err != nil {
		t.Fatal(err)
	}
	q := &queue{url: aws.ToString(out.QueueUrl), client: client}
	if _, err := client.SetQueueAttributes(t.Context(), &sqs.SetQueueAttributesInput{QueueUrl: out.QueueUrl,
		Attributes: map[string]string{"VisibilityTimeout": strconv.Itoa(int(visibility / time.Second))}}); err != nil {
		t.Fatal(err)
	}
	attrs, err := client.GetQueueAttributes(t.Context(), &sqs.GetQueueAttributesInput{QueueUrl: out.QueueUrl,
		AttributeNames: []types.QueueAttributeName{types.QueueAttributeNameQueueArn}})
	if err != nil {
		t.Fatal(err)
	}
	q.arn = attrs.Attributes[string(types.QueueAttributeNameQueueArn)]
	return q
}

func (q *queue) send(t *testing.T, bodies ...string) {
	t.Helper()
	for _, b := range bodies {
		if _, err := q.client.SendMessage(t.Context(), &sqs.SendMessageInput{QueueUrl: aws.String(q.url), MessageBody: aws.String(b),
			MessageAttributes: map[string]types.MessageAttributeValue{"origin": {DataType: aws.String("String"), StringValue: aws.String("test")}},
		}); err != nil {
			t.Fatal(err)
		}
	}
}

// depth is the number of messages in the queue, visible or in flight.
func (q *queue) depth(t *testing.T) int {
	t.Helper()
	out, err := q.client.GetQueueAttributes(t.Context(), &sqs.GetQueueAttributesInput{QueueUrl: aws.String(q.url),
		AttributeNames: []types.QueueAttributeName{types.QueueAttributeNameApproximateNumberOfMessages, types.QueueAttributeNameApproximateNumberOfMessagesNotVisible}})
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	for _, v := range out.Attributes {
		i, _ := strconv.Atoi(v)
		n += i
	}
	return n
}

func (q *queue) mapping(fn string, reportFailures bool) poller.Mapping {
	return poller.Mapping{Function: fn, QueueURL: q.url, QueueARN: q.arn, BatchSize: 10, BatchingWindow: time.Second,
		MaxConcurrency: 2, ReportBatchItemFailures: reportFailures}
}

// start runs p until the test ends; stop cancels Run's context and waits
// (at most 15 s) for Run to return.
func start(t *testing.T, p *poller.Poller) (stop func()) {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- p.Run(ctx) }()
	var once sync.Once
	stop = func() {
		once.Do(func() {
			cancel()
			select {
			case err := <-done:
				if err != nil {
					t.Errorf("Run: %v", err)
				}
			case <-time.After(15 * time.Second):
				t.Error("Run did not return within 15s of cancellation")
			}
		})
	}
	t.Cleanup(func() { stop() })
	return stop
}

// eventually waits (bounded) for cond, which reads real SQS state whose
// changes take a visibility timeout to happen.
func eventually(t *testing.T, timeout time.Duration, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(timeout)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("timed out after %v waiting for %s", timeout, what)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

func decode(t *testing.T, payload []byte) events.SQSEvent {
	var ev events.SQSEvent
	if err := json.Unmarshal(payload, &ev); err != nil {
		t.Errorf("event %s: %v", payload, err)
	}
	return ev
}

func TestPollerMoto(t *testing.T) {
	t.Parallel()

	t.Run("successes deleted, reported failures come back", func(t *testing.T) {
		t.Parallel()
		q := newQueue(t, time.Second)
		q.send(t, "ok-1", "ok-2", "fail-once")
		var seen deliveries
		var reports []poller.BatchReport
		var mu sync.Mutex
		p := &poller.Poller{Mapping: q.mapping("F", true), SQS: q.client, WaitTime: time.Second,
			OnBatch: func(r poller.BatchReport) { mu.Lock(); reports = append(reports, r); mu.Unlock() },
			Invoker: invokerFunc(func(_ context.Context, fn string, payload []byte) (lambda.Result, error) {
				ev := decode(t, payload)
				seen.record(ev)
				resp := events.SQSEventResponse{BatchItemFailures: []events.SQSBatchItemFailure{}}
				for _, r := range ev.Records {
					if fn != "F" || r.EventSource != "aws:sqs" || r.EventSourceARN != q.arn || r.AWSRegion != "us-east-1" ||
						r.Attributes["SentTimestamp"] == "" || r.Attributes["SenderId"] == "" ||
						r.Attributes["ApproximateFirstReceiveTimestamp"] == "" || r.Attributes["ApproximateReceiveCount"] == "" || r.Md5OfBody == "" || aws.ToString(r.MessageAttributes["origin"].StringValue) != "test" {
						t.Errorf("record %+v", r)
					}
					if r.Body == "fail-once" && r.Attributes["ApproximateReceiveCount"] == "1" {
						resp.BatchItemFailures = append(resp.BatchItemFailures, events.SQSBatchItemFailure{ItemIdentifier: r.MessageId})
					}
				}
				b, _ := json.Marshal(resp)
				return lambda.Result{Payload: b}, nil
			})}
		start(t, p)
		eventually(t, 15*time.Second, "all three deleted", func() bool { return p.Counters().Deleted == 3 })
		c := p.Counters()
		if c.Kept != 1 || c.Received != 4 || c.FunctionErrors != 0 || c.InvalidResponses != 0 || c.DeleteErrors != 0 {
			t.Errorf("counters %+v", c)
		}
		if got := seen.of("fail-once"); !slices.Equal(got, []string{"1", "2"}) {
			t.Errorf("fail-once receive counts %v, want [1 2]", got)
		}
		if got := seen.of("ok-1"); !slices.Equal(got, []string{"1"}) {
			t.Errorf("ok-1 receive counts %v, want [1]", got)
		}
		if n := q.depth(t); n != 0 {
			t.Errorf("queue depth %d", n)
		}
		mu.Lock()
		defer mu.Unlock()
		if len(reports) == 0 || reports[0].Outcome != poller.OutcomePartial && reports[0].Outcome != poller.OutcomeSuccess {
			t.Errorf("reports %+v", reports)
		}
	})

	// Each case answers the first invocation badly; the whole batch must
	// come back and succeed on its second delivery.
	wholeBatch := map[string]struct {
		first   func(ev events.SQSEvent) lambda.Result
		counter func(poller.Counters) int64
		outcome poller.Outcome
	}{
		"function error": {
			first: func(events.SQSEvent) lambda.Result {
				return lambda.Result{FunctionError: &lambda.FunctionError{Type: "errorString", Message: "boom"},
					Payload: []byte(`{"errorMessage":"boom","errorType":"errorString"}`)}
			},
			counter: func(c poller.Counters) int64 { return c.FunctionErrors },
			outcome: poller.OutcomeFunctionError,
		},
		"malformed response": {
			first:   func(events.SQSEvent) lambda.Result { return lambda.Result{Payload: []byte(`not json`)} },
			counter: func(c poller.Counters) int64 { return c.InvalidResponses },
			outcome: poller.OutcomeInvalidResponse,
		},
		"unknown itemIdentifier": {
			first: func(events.SQSEvent) lambda.Result {
				return lambda.Result{Payload: []byte(`{"batchItemFailures":[{"itemIdentifier":"no-such-message"}]}`)}
			},
			counter: func(c poller.Counters) int64 { return c.InvalidResponses },
			outcome: poller.OutcomeInvalidResponse,
		},
		"empty itemIdentifier": {
			first: func(events.SQSEvent) lambda.Result {
				return lambda.Result{Payload: []byte(`{"batchItemFailures":[{"itemIdentifier":""}]}`)}
			},
			counter: func(c poller.Counters) int64 { return c.InvalidResponses },
			outcome: poller.OutcomeInvalidResponse,
		},
	}
	for name, tc := range wholeBatch {
		t.Run("whole batch fails on "+name, func(t *testing.T) {
			t.Parallel()
			q := newQueue(t, time.Second)
			q.send(t, "a", "b")
			var calls atomic.Int32
			var seen deliveries
			var firstOutcome atomic.Value
			p := &poller.Poller{Mapping: q.mapping("F", true), SQS: q.client, WaitTime: time.Second,
				OnBatch: func(r poller.BatchReport) { firstOutcome.CompareAndSwap(nil, r.Outcome) },
				Invoker: invokerFunc(func(_ context.Context, _ string, payload []byte) (lambda.Result, error) {
					ev := decode(t, payload)
					seen.record(ev)
					if calls.Add(1) == 1 {
						if len(ev.Records) != 2 {
							t.Errorf("first batch has %d records, want both", len(ev.Records))
						}
						return tc.first(ev), nil
					}
					return lambda.Result{Payload: []byte(`{"batchItemFailures":[]}`)}, nil
				})}
			start(t, p)
			eventually(t, 15*time.Second, "both deleted", func() bool { return p.Counters().Deleted == 2 })
			c := p.Counters()
			if tc.counter(c) != 1 || c.Kept != 2 || c.Received != 4 {
				t.Errorf("counters %+v", c)
			}
			for _, body := range []string{"a", "b"} {
				if got := seen.of(body); !slices.Equal(got, []string{"1", "2"}) {
					t.Errorf("%s receive counts %v, want [1 2]", body, got)
				}
			}
			if got := firstOutcome.Load(); got != tc.outcome {
				t.Errorf("first outcome %v, want %v", got, tc.outcome)
			}
		})
	}

	t.Run("without ReportBatchItemFailures a response deletes all", func(t *testing.T) {
		t.Parallel()
		q := newQueue(t, time.Second)
		q.send(t, "a", "b")
		p := &poller.Poller{Mapping: q.mapping("F", false), SQS: q.client, WaitTime: time.Second,
			Invoker: invokerFunc(func(_ context.Context, _ string, payload []byte) (lambda.Result, error) {
				var failures []events.SQSBatchItemFailure
				for _, r := range decode(t, payload).Records {
					failures = append(failures, events.SQSBatchItemFailure{ItemIdentifier: r.MessageId})
				}
				b, _ := json.Marshal(events.SQSEventResponse{BatchItemFailures: failures})
				return lambda.Result{Payload: b}, nil
			})}
		start(t, p)
		eventually(t, 15*time.Second, "both deleted", func() bool { return p.Counters().Deleted == 2 })
		if c := p.Counters(); c.Kept != 0 || c.Received != 2 {
			t.Errorf("counters %+v", c)
		}
	})

	t.Run("shutdown cancels the long poll", func(t *testing.T) {
		t.Parallel()
		q := newQueue(t, time.Second)
		polling, ended := make(chan struct{}, 1), make(chan error, 1)
		p := &poller.Poller{Mapping: q.mapping("F", true), WaitTime: poller.MaxWaitTime,
			SQS:     signalSQS{SQSAPI: q.client, polling: polling, ended: ended},
			Invoker: invokerFunc(func(context.Context, string, []byte) (lambda.Result, error) { return lambda.Result{}, nil })}
		stop := start(t, p)
		<-polling // a 20 s long poll is under way
		stop()
		// The long poll Run was in ends by the cancellation, not by its
		// wait running out.
		select {
		case err := <-ended:
			if !errors.Is(err, context.Canceled) {
				t.Errorf("the long poll under way at the shutdown ended with %v, want context.Canceled", err)
			}
		default:
			t.Error("the long poll under way at the shutdown had not ended")
		}
	})

	t.Run("shutdown during an invocation keeps the batch", func(t *testing.T) {
		t.Parallel()
		q := newQueue(t, time.Second)
		q.send(t, "a")
		invoked := make(chan struct{})
		p := &poller.Poller{Mapping: q.mapping("F", true), SQS: q.client, WaitTime: time.Second,
			Invoker: invokerFunc(func(ctx context.Context, _ string, _ []byte) (lambda.Result, error) {
				close(invoked)
				<-ctx.Done() // a function that outlives the shutdown
				return lambda.Result{}, ctx.Err()
			})}
		stop := start(t, p)
		<-invoked
		stop() // returns only once the invocation saw the cancellation
		if c := p.Counters(); c.InvokeErrors != 1 || c.Kept != 1 || c.Deleted != 0 {
			t.Errorf("counters %+v", c)
		}
		if n := q.depth(t); n != 1 {
			t.Errorf("queue depth %d, want the kept message", n)
		}
	})

	t.Run("drain lets the invocation finish", func(t *testing.T) {
		t.Parallel()
		q := newQueue(t, time.Second)
		q.send(t, "a")
		invoked := make(chan struct{})
		release := make(chan struct{})
		p := &poller.Poller{Mapping: q.mapping("F", true), SQS: q.client, WaitTime: time.Second, Drain: 10 * time.Second,
			Invoker: invokerFunc(func(ctx context.Context, _ string, _ []byte) (lambda.Result, error) {
				close(invoked)
				select {
				case <-release:
					return lambda.Result{Payload: []byte(`{}`)}, nil
				case <-ctx.Done():
					return lambda.Result{}, ctx.Err()
				}
			})}
		stop := start(t, p)
		<-invoked
		stopped := make(chan struct{})
		go func() { stop(); close(stopped) }()
		close(release)
		<-stopped
		if c := p.Counters(); c.Deleted != 1 || c.InvokeErrors != 0 {
			t.Errorf("counters %+v", c)
		}
	})

	// The acceptance test: the runtime is killed mid-batch; the batch's
	// messages come back after their visibility timeout and finish on a
	// fresh environment.
	t.Run("runtime killed mid-batch", func(t *testing.T) {
		t.Parallel()
		bin := lambdatest.Build(t, lambdatest.TestFunction)
		q := newQueue(t, 2*time.Second)
		q.send(t, `{"sleep_first_ms":30000}`, `{}`, `{}`)

		type recordLine struct {
			Msg          string `json:"msg"`
			MessageID    string `json:"message_id"`
			ReceiveCount string `json:"receive_count"`
			PID          int    `json:"pid"`
		}
		var mu sync.Mutex
		var lines []recordLine
		firstRecord := make(chan int, 1)
		svc := lambda.New(lambda.Options{BaseEnv: moto.Environ(localtest.Endpoint(t), nil), StopGrace: time.Second,
			OnLog: func(_, line string) {
				var l recordLine
				if json.Unmarshal([]byte(line), &l) != nil || l.Msg != "record" {
					return
				}
				mu.Lock()
				lines = append(lines, l)
				mu.Unlock()
				select {
				case firstRecord <- l.PID:
				default:
				}
			}})
		t.Cleanup(func() { _ = svc.Close() })
		if err := svc.Register(lambda.Function{Name: "Crashy", Bootstrap: bin, Timeout: time.Minute}); err != nil {
			t.Fatal(err)
		}
		var reports []poller.BatchReport
		p := &poller.Poller{Mapping: q.mapping("Crashy", true), SQS: q.client, Invoker: svc, WaitTime: time.Second,
			OnBatch: func(r poller.BatchReport) { mu.Lock(); reports = append(reports, r); mu.Unlock() }}
		start(t, p)

		var victim int
		select {
		case victim = <-firstRecord:
		case <-time.After(20 * time.Second):
			t.Fatal("the batch never reached the function")
		}
		if !slices.Contains(svc.PIDs("Crashy"), victim) {
			t.Fatalf("pid %d is not one of the service's environments %v", victim, svc.PIDs("Crashy"))
		}
		if err := syscall.Kill(victim, syscall.SIGKILL); err != nil { // a process this test started, through svc
			t.Fatal(err)
		}
		eventually(t, 20*time.Second, "the batch to finish after redelivery", func() bool { return p.Counters().Deleted == 3 })

		c := p.Counters()
		if c.FunctionErrors != 1 || c.Kept != 3 || c.Received != 6 {
			t.Errorf("counters %+v", c)
		}
		st, _ := svc.Stats("Crashy")
		if st.ColdStarts != 2 || st.Crashes != 1 {
			t.Errorf("lambda stats %+v", st)
		}
		mu.Lock()
		defer mu.Unlock()
		if r := reports[0]; r.Outcome != poller.OutcomeFunctionError || r.Result.FunctionError.Type != lambda.ErrorTypeExit ||
			!strings.HasSuffix(r.Result.FunctionError.Message, "Runtime exited with error: signal: killed") {
			t.Errorf("first batch %+v", r)
		}
		redelivered := 0
		for _, l := range lines {
			if l.ReceiveCount == "2" {
				redelivered++
				if l.PID == victim {
					t.Errorf("record %s redelivered to the killed pid %d", l.MessageID, victim)
				}
			}
		}
		if redelivered != 3 {
			t.Errorf("%d records redelivered, want 3: %+v", redelivered, lines)
		}
		if n := q.depth(t); n != 0 {
			t.Errorf("queue depth %d", n)
		}
	})
}

// signalSQS signals when a ReceiveMessage starts and, when ended is set,
// sends the error it ends with.
type signalSQS struct {
	poller.SQSAPI
	polling chan struct{}
	ended   chan error
}

func (s signalSQS) ReceiveMessage(ctx context.Context, in *sqs.ReceiveMessageInput, opts ...func(*sqs.Options)) (*sqs.ReceiveMessageOutput, error) {
	select {
	case s.polling <- struct{}{}:
	default:
	}
	out, err := s.SQSAPI.ReceiveMessage(ctx, in, opts...)
	if s.ended != nil {
		select {
		case s.ended <- err:
		default:
		}
	}
	return out, err
}
