// Command fn is the test bootstrap of package lambda and package poller:
// one aws-lambda-go function whose behaviour the event chooses, and whose
// init the TEST_INIT environment variable can make fail.
//
// A plain event is a JSON object with any of: "echo" (returned), "log"
// (printed), "sleep_ms", "exit" (os.Exit code), "panic" (message), "fail"
// (returned as an error), "big" (a response of that many bytes). An SQS
// event (with "Records") is handled record by record: each body may hold
// "fail" (reported as a batch item failure), "sleep_ms", and
// "sleep_first_ms" (slept only on the first receive, for crash tests).
package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"os"
	"strings"
	"time"

	"github.com/aws/aws-lambda-go/events"
	"github.com/aws/aws-lambda-go/lambda"
	"github.com/aws/aws-lambda-go/lambdacontext"
)

func main() {
	switch os.Getenv("TEST_INIT") {
	case "exit":
		fmt.Println("init: giving up")
		os.Exit(2)
	case "report":
		fmt.Println("init: reporting an init error")
		body := `{"errorMessage":"config: TABLE is required","errorType":"Config.Invalid"}`
		resp, err := http.Post("http://"+os.Getenv("AWS_LAMBDA_RUNTIME_API")+"/2018-06-01/runtime/init/error",
			"application/json", strings.NewReader(body))
		if err == nil {
			fmt.Println("init error reported:", resp.StatusCode)
			resp.Body.Close()
		}
		os.Exit(1)
	case "hang":
		fmt.Println("init: hanging")
		time.Sleep(time.Hour)
	}
	fmt.Println("init done")
	lambda.Start(handle)
}

type input struct {
	Echo    any                 `json:"echo"`
	Log     string              `json:"log"`
	SleepMS int                 `json:"sleep_ms"`
	Exit    *int                `json:"exit"`
	Panic   string              `json:"panic"`
	Fail    string              `json:"fail"`
	Big     int                 `json:"big"`
	Records []events.SQSMessage `json:"Records"`
}

func handle(ctx context.Context, raw json.RawMessage) (any, error) {
	var in input
	if err := json.Unmarshal(raw, &in); err != nil {
		return nil, err
	}
	lc, _ := lambdacontext.FromContext(ctx)
	if in.Records != nil {
		return sqs(ctx, in.Records)
	}
	if in.Log != "" {
		fmt.Println(in.Log)
	}
	if in.SleepMS > 0 {
		time.Sleep(time.Duration(in.SleepMS) * time.Millisecond)
	}
	if in.Exit != nil {
		os.Exit(*in.Exit)
	}
	if in.Panic != "" {
		panic(in.Panic)
	}
	if in.Fail != "" {
		return nil, errors.New(in.Fail)
	}
	if in.Big > 0 {
		return strings.Repeat("x", in.Big), nil
	}
	deadline, _ := ctx.Deadline()
	env := map[string]string{}
	for _, k := range []string{"AWS_LAMBDA_FUNCTION_NAME", "AWS_LAMBDA_FUNCTION_VERSION", "AWS_LAMBDA_FUNCTION_MEMORY_SIZE",
		"AWS_REGION", "AWS_DEFAULT_REGION", "_HANDLER", "LAMBDA_TASK_ROOT", "FROM_FUNCTION", "FROM_BASE", "_X_AMZN_TRACE_ID"} {
		env[k] = os.Getenv(k)
	}
	return map[string]any{
		"echo":        in.Echo,
		"request_id":  lc.AwsRequestID,
		"arn":         lc.InvokedFunctionArn,
		"pid":         os.Getpid(),
		"deadline_ms": deadline.UnixMilli(),
		"env":         env,
	}, nil
}

type recordBody struct {
	Fail         bool `json:"fail"`
	SleepMS      int  `json:"sleep_ms"`
	SleepFirstMS int  `json:"sleep_first_ms"`
}

func sqs(ctx context.Context, records []events.SQSMessage) (events.SQSEventResponse, error) {
	var resp events.SQSEventResponse
	resp.BatchItemFailures = []events.SQSBatchItemFailure{}
	for _, r := range records {
		var b recordBody
		_ = json.Unmarshal([]byte(r.Body), &b)
		fmt.Printf("{\"msg\":\"record\",\"message_id\":%q,\"receive_count\":%q,\"pid\":%d}\n",
			r.MessageId, r.Attributes["ApproximateReceiveCount"], os.Getpid())
		sleep := b.SleepMS
		if r.Attributes["ApproximateReceiveCount"] == "1" {
			sleep += b.SleepFirstMS
		}
		if sleep > 0 {
			select {
			case <-time.After(time.Duration(sleep) * time.Millisecond):
			case <-ctx.Done():
			}
		}
		if b.Fail {
			resp.BatchItemFailures = append(resp.BatchItemFailures, events.SQSBatchItemFailure{ItemIdentifier: r.MessageId})
		}
	}
	return resp, nil
}
