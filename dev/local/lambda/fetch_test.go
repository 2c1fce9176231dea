package lambda_test

import (
	"bytes"
	"context"
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/aws/aws-lambda-go/events"
	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/sqs"

	"github.com/triagehq/triage/dev/local/lambda"
	"github.com/triagehq/triage/dev/local/lambda/lambdatest"
	"github.com/triagehq/triage/dev/local/localtest"
	"github.com/triagehq/triage/internal/work"
)

// TestFetchBootstrap runs the real fetch function, built as its bootstrap,
// on events/fetch/normal.json against a moto stack, with the environment
// template.yaml gives it. The event's items are not in the table, so the
// stage dead-letters them (SCHEMA_INVALID) and answers with no batch item
// failures.
func TestFetchBootstrap(t *testing.T) {
	t.Parallel()
	env := localtest.Stack(t, map[string]string{"BlockPrivateNetworks": "false"})
	bin := lambdatest.Build(t, "./cmd/fetch")
	ctx, cancel := context.WithTimeout(t.Context(), time.Minute)
	defer cancel()

	fn, vars := env.Function(t, "FetchFunc")

	var logs localtest.Buffer
	svc := lambda.New(lambda.Options{BaseEnv: env.Environ(), Logs: &logs})
	t.Cleanup(func() { _ = svc.Close() })
	if err := svc.Register(lambda.Function{Name: fn.LogicalID, Bootstrap: bin, Env: vars, Timeout: fn.Timeout, MemoryMB: fn.MemorySize}); err != nil {
		t.Fatal(err)
	}
	event := localtest.Event(t, "fetch/normal.json")

	for i, want := range []bool{true, false} { // cold, then warm
		res, err := svc.Invoke(ctx, fn.LogicalID, event)
		if err != nil {
			t.Fatal(err)
		}
		if res.FunctionError != nil {
			t.Fatalf("invoke %d: %v\nlogs:\n%s", i, res.FunctionError, logs.String())
		}
		dec := json.NewDecoder(bytes.NewReader(res.Payload))
		dec.DisallowUnknownFields()
		var resp events.SQSEventResponse
		if err := dec.Decode(&resp); err != nil {
			t.Fatalf("invoke %d: response %s is not an SQSEventResponse: %v", i, res.Payload, err)
		}
		if len(resp.BatchItemFailures) != 0 {
			t.Errorf("invoke %d: batch item failures %v", i, resp.BatchItemFailures)
		}
		if res.ColdStart != want {
			t.Errorf("invoke %d: cold start %v", i, res.ColdStart)
		}
		if !strings.Contains(res.Logs, `"aws_calls"`) {
			t.Errorf("invoke %d: logs lack the aws_calls line:\n%s", i, res.Logs)
		}
		t.Logf("FetchFunc invoke %d: cold %v init %v duration %v", i, res.ColdStart, res.InitDuration, res.Duration)
	}

	out, err := sqs.NewFromConfig(env.AWS).ReceiveMessage(ctx, &sqs.ReceiveMessageInput{
		QueueUrl: aws.String(env.Stack.DLQURL(work.Fetch)), MaxNumberOfMessages: 10,
	})
	if err != nil {
		t.Fatal(err)
	}
	if len(out.Messages) < 2 {
		t.Fatalf("fetch DLQ holds %d messages, want the event's 2 items", len(out.Messages))
	}
	for _, m := range out.Messages {
		if !strings.Contains(aws.ToString(m.Body), "SCHEMA_INVALID") {
			t.Errorf("dead letter %s is not SCHEMA_INVALID", aws.ToString(m.Body))
		}
	}
}
