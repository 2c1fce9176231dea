package soak

import (
	"context"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"slices"
	"sync/atomic"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/aws/retry"
	"github.com/aws/aws-sdk-go-v2/config"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	dbtypes "github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"github.com/aws/aws-sdk-go-v2/service/sqs"
	sqstypes "github.com/aws/aws-sdk-go-v2/service/sqs/types"
	"github.com/aws/smithy-go"

	"github.com/triagehq/triage/dev/local/moto"
	"github.com/triagehq/triage/internal/clock"
	"github.com/triagehq/triage/internal/failure"
	"github.com/triagehq/triage/internal/work"
)

// backend stands in for moto: it answers every request with an empty JSON
// object and counts them.
type backend struct {
	*httptest.Server
	requests atomic.Int64
}

func newBackend(t *testing.T) *backend {
	t.Helper()
	b := &backend{}
	b.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		_, _ = io.Copy(io.Discard, r.Body)
		b.requests.Add(1)
		w.Header().Set("Content-Type", "application/x-amz-json-1.0")
		_, _ = w.Write([]byte("{}"))
	}))
	t.Cleanup(b.Close)
	return b
}

// clients returns DynamoDB and SQS clients for url with the SDK's standard
// retryer (3 attempts) and a short backoff.
func clients(t *testing.T, url string, attempts int) (*dynamodb.Client, *sqs.Client) {
	t.Helper()
	cfg, err := moto.Config(t.Context(), url, config.WithRetryer(func() aws.Retryer {
		return retry.NewStandard(func(o *retry.StandardOptions) {
			o.MaxAttempts = attempts
			o.MaxBackoff = 5 * time.Millisecond
		})
	}))
	if err != nil {
		t.Fatal(err)
	}
	return dynamodb.NewFromConfig(cfg), sqs.NewFromConfig(cfg)
}

// front serves an Injector in front of b, as the soak does.
func front(t *testing.T, b *backend, f AWSFaults) (*moto.Front, *Injector) {
	t.Helper()
	fr, err := moto.StartFront(b.URL)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = fr.Close() })
	in := NewInjector(f, b.URL, 1)
	fr.SetInterceptor(in.Intercept)
	return fr, in
}

func getItem(ctx context.Context, db *dynamodb.Client) error {
	_, err := db.GetItem(ctx, &dynamodb.GetItemInput{TableName: aws.String("t"),
		Key: map[string]dbtypes.AttributeValue{"item_id": &dbtypes.AttributeValueMemberS{Value: "item-1"}}})
	return err
}

func updateItem(ctx context.Context, db *dynamodb.Client) error {
	_, err := db.UpdateItem(ctx, &dynamodb.UpdateItemInput{TableName: aws.String("t"),
		Key:              map[string]dbtypes.AttributeValue{"item_id": &dbtypes.AttributeValueMemberS{Value: "item-1"}},
		UpdateExpression: aws.String("SET a = :a"), ExpressionAttributeValues: map[string]dbtypes.AttributeValue{":a": &dbtypes.AttributeValueMemberN{Value: "1"}}})
	return err
}

func sendMessage(ctx context.Context, q *sqs.Client, url string) error {
	_, err := q.SendMessage(ctx, &sqs.SendMessageInput{QueueUrl: aws.String(url), MessageBody: aws.String("{}")})
	return err
}

// The injected answers must be what the SDK makes of AWS's own: the
// modelled exception types where there is one, the code the SDK's retryer
// and triage's classifier key on, the HTTP status.
func TestInjectedErrorsParseAsAWSErrors(t *testing.T) {
	t.Parallel()
	tests := map[string]struct {
		e         awsError
		dynamo    bool
		code      string
		status    int
		class     work.Class
		typed     func(error) bool
		retryable bool
	}{
		"dynamodb throughput": {e: dynamoErrors[0], dynamo: true, code: "ProvisionedThroughputExceededException", status: 400,
			class: work.RateLimited, retryable: true,
			typed: func(err error) bool { var e *dbtypes.ProvisionedThroughputExceededException; return errors.As(err, &e) }},
		"dynamodb throttling": {e: dynamoErrors[1], dynamo: true, code: "ThrottlingException", status: 400,
			class: work.RateLimited, retryable: true},
		"dynamodb internal": {e: dynamoErrors[2], dynamo: true, code: "InternalServerError", status: 500,
			class: work.UpstreamUnavailable, retryable: true,
			typed: func(err error) bool { var e *dbtypes.InternalServerError; return errors.As(err, &e) }},
		"sqs throttled": {e: sqsErrors[0], code: "RequestThrottled", status: 403, class: work.RateLimited, retryable: true,
			typed: func(err error) bool { var e *sqstypes.RequestThrottled; return errors.As(err, &e) }},
		"sqs internal":    {e: sqsErrors[1], code: "InternalError", status: 500, class: work.UpstreamUnavailable, retryable: true},
		"sqs unavailable": {e: sqsErrors[2], code: "ServiceUnavailable", status: 503, class: work.UpstreamUnavailable, retryable: true},
	}
	for name, tt := range tests {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				_, _ = io.Copy(io.Discard, r.Body)
				writeAWSError(w, tt.e)
			}))
			defer srv.Close()
			db, q := clients(t, srv.URL, 1)
			var err error
			if tt.dynamo {
				err = getItem(t.Context(), db)
			} else {
				err = sendMessage(t.Context(), q, srv.URL+"/123456789012/q")
			}
			var ae smithy.APIError
			if !errors.As(err, &ae) {
				t.Fatalf("%v is not a smithy.APIError", err)
			}
			if ae.ErrorCode() != tt.code {
				t.Errorf("code %q, want %q", ae.ErrorCode(), tt.code)
			}
			var re interface{ HTTPStatusCode() int }
			if !errors.As(err, &re) || re.HTTPStatusCode() != tt.status {
				t.Errorf("status: %v", err)
			}
			if tt.typed != nil && !tt.typed(err) {
				t.Errorf("%T is not the modelled exception", ae)
			}
			if got := retry.IsErrorRetryables(retry.DefaultRetryables).IsErrorRetryable(err); got != aws.BoolTernary(tt.retryable) {
				t.Errorf("the SDK's retryer says %v", got)
			}
			if c := failure.Classify(err); c.Class != tt.class {
				t.Errorf("classified %s (%s), want %s", c.Class, c.Reason, tt.class)
			}
		})
	}
}

func TestInjector(t *testing.T) {
	t.Parallel()
	t.Run("an operation refused fails every attempt and never reaches moto", func(t *testing.T) {
		t.Parallel()
		b := newBackend(t)
		fr, in := front(t, b, AWSFaults{OperationRate: 1})
		in.Arm()
		db, _ := clients(t, fr.URL, 3)
		if err := getItem(t.Context(), db); err == nil {
			t.Fatal("the operation succeeded")
		}
		c := in.Counts()
		if b.requests.Load() != 0 || c[FaultOperationRefused] != 1 ||
			c[FaultDynamoThroughput]+c[FaultDynamoThrottling]+c[FaultDynamoInternal] != 3 {
			t.Fatalf("backend saw %d requests; counts %v", b.requests.Load(), c)
		}
	})
	t.Run("a dropped write is applied, and the client retries it", func(t *testing.T) {
		t.Parallel()
		b := newBackend(t)
		fr, in := front(t, b, AWSFaults{DropRate: 1})
		in.Arm()
		db, _ := clients(t, fr.URL, 3)
		err := updateItem(t.Context(), db)
		if err == nil {
			t.Fatal("the client saw an answer")
		}
		if b.requests.Load() != 3 || in.Counts()[FaultDynamoDropped] != 3 {
			t.Fatalf("backend saw %d requests, counts %v (err %v)", b.requests.Load(), in.Counts(), err)
		}
		// Reads are never dropped.
		if err := getItem(t.Context(), db); err != nil {
			t.Fatalf("a read was dropped: %v", err)
		}
	})
	t.Run("the DLQ outage refuses DLQ sends for its window only", func(t *testing.T) {
		t.Parallel()
		b := newBackend(t)
		fr, in := front(t, b, AWSFaults{DLQOutageAfter: time.Minute, DLQOutageFor: time.Minute})
		t0 := time.Unix(1_700_000_000, 0)
		c := clock.NewStub(t0)
		in.clock = c
		in.SetDLQs(fr.URL + "/123456789012/stack-FetchDLQ-ABC")
		in.Arm()
		_, q := clients(t, fr.URL, 1)
		dlq, queue := fr.URL+"/123456789012/stack-FetchDLQ-ABC", fr.URL+"/123456789012/stack-FetchQueue-ABC"
		steps := []struct {
			at      time.Duration
			url     string
			refused bool
		}{
			{0, dlq, false},                               // before DLQOutageAfter
			{time.Minute, queue, false},                   // not a DLQ
			{time.Minute, dlq, true},                      // opens the window
			{time.Minute + 59*time.Second, dlq, true},     // inside it
			{2*time.Minute + time.Second, dlq, false},     // over
			{2*time.Minute + 2*time.Second, queue, false}, // still not a DLQ
		}
		for _, s := range steps {
			c.Set(t0.Add(s.at))
			err := sendMessage(t.Context(), q, s.url)
			if (err != nil) != s.refused {
				t.Fatalf("at %v to %s: err %v, want refused %v", s.at, queueName(s.url), err, s.refused)
			}
		}
		if n := in.Counts()[FaultDLQOutage]; n != 2 {
			t.Fatalf("%d refusals counted, want 2", n)
		}
		if from, dur := in.OutageWindow(); from.IsZero() || dur != time.Minute {
			t.Fatalf("window %v for %v", from, dur)
		}
	})
	t.Run("EveryKind injects each error of a service, then nothing at rate 0", func(t *testing.T) {
		t.Parallel()
		b := newBackend(t)
		fr, in := front(t, b, AWSFaults{EveryKind: true})
		in.Arm()
		db, q := clients(t, fr.URL, 1)
		url := fr.URL + "/123456789012/q"
		for range 200 {
			_ = getItem(t.Context(), db)
			_ = sendMessage(t.Context(), q, url)
		}
		c := in.Counts()
		for _, e := range append(slices.Clone(dynamoErrors), sqsErrors...) {
			if c[e.kind] != 1 {
				t.Errorf("%s injected %d times, want once", e.kind, c[e.kind])
			}
		}
		if b.requests.Load() != 400-6 {
			t.Errorf("backend saw %d of 400 requests with 6 injected", b.requests.Load())
		}
	})
	t.Run("nothing is injected before Arm or after Disarm", func(t *testing.T) {
		t.Parallel()
		b := newBackend(t)
		fr, in := front(t, b, AWSFaults{AttemptRate: 1, OperationRate: 1, DropRate: 1})
		db, _ := clients(t, fr.URL, 1)
		if err := updateItem(t.Context(), db); err != nil {
			t.Fatal(err)
		}
		in.Arm()
		in.Disarm()
		if err := updateItem(t.Context(), db); err != nil {
			t.Fatal(err)
		}
		if len(in.Counts()) != 0 || in.Requests()["dynamodb"] != 2 {
			t.Fatalf("counts %v, requests %v", in.Counts(), in.Requests())
		}
	})
}

func TestInjectionLogNamesTheItem(t *testing.T) {
	t.Parallel()
	tests := map[string]string{
		"dynamodb key":      `{"TableName":"t","Key":{"item_id":{"S":"item-1"}}}`,
		"message attribute": `{"QueueUrl":"q","MessageAttributes":{"item_id":{"DataType":"String","StringValue":"item-1"}}}`,
		"envelope":          `{"QueueUrl":"q","Entries":[{"Id":"0","MessageBody":"{\"item_id\":\"item-1\",\"stage\":\"llm\"}"}]}`,
	}
	for name, body := range tests {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			m := itemRE.FindStringSubmatch(body)
			if m == nil || m[1]+m[2]+m[3] != "item-1" {
				t.Fatalf("matched %q", m)
			}
		})
	}
}
