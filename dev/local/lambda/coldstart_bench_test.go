package lambda_test

import (
	"context"
	"testing"
	"time"

	"github.com/triagehq/triage/dev/local/lambda"
	"github.com/triagehq/triage/dev/local/lambda/lambdatest"
)

// BenchmarkColdStart cold-starts the real bootstraps through the local
// Runtime API and reports init-ms: process start to the first
// /invocation/next, the figure Lambda reports as Init Duration. The
// configuration is complete but points nowhere: init makes no AWS call
// (the llm key is read from the environment, an env: reference), so this
// is the binary's own start-up. The event is an empty batch.
func BenchmarkColdStart(b *testing.B) {
	base := map[string]string{
		"QUEUE_URL": "https://sqs.us-east-1.amazonaws.com/123456789012/q", "DLQ_URL": "https://sqs.us-east-1.amazonaws.com/123456789012/d",
		"NEXT_QUEUE_URL": "https://sqs.us-east-1.amazonaws.com/123456789012/n", "ITEMS_TABLE": "items",
		"ERRORLOG_TABLE": "errors", "PARKED_TABLE": "parked", "GATES_TABLE": "gates", "BREAKERS_TABLE": "breakers",
		"BODIES_TABLE":      "bodies",
		"AWS_ACCESS_KEY_ID": "x", "AWS_SECRET_ACCESS_KEY": "x",
	}
	stageQueues := map[string]string{}
	for _, st := range []string{"FETCH", "LLM", "NOTIFY"} {
		stageQueues[st+"_QUEUE_URL"] = base["QUEUE_URL"]
		stageQueues[st+"_DLQ_URL"] = base["DLQ_URL"]
	}
	fns := []struct {
		pkg, stage string
		env        map[string]string
		// operator functions take other events than an SQS batch: their
		// answer to the empty batch is not checked, only their init.
		operator bool
	}{
		{"./cmd/fetch", "fetch", nil, false},
		{"./cmd/llm", "llm", map[string]string{"LLM_MODELS": "m", "MODELS_TABLE": "models", "BUDGET_TABLE": "budget",
			"LLM_BASE_URL": "https://api.example.com/v1", "LLM_API_KEY_PARAMETER": "env:BENCH_LLM_KEY", "BENCH_LLM_KEY": "k"}, false},
		// the chain across three providers: an HTTP client each for OpenAI
		// and Anthropic, the Bedrock Runtime SDK client
		{"./cmd/llm", "llm", map[string]string{"BENCH_NAME": "llm-3-providers",
			"LLM_MODELS":   "bedrock:anthropic.claude-3-5-haiku-20241022-v1:0,openai:gpt-4o-mini,anthropic:claude-3-5-haiku-latest",
			"MODELS_TABLE": "models", "BUDGET_TABLE": "budget", "LLM_API_KEY_PARAMETER": "env:BENCH_LLM_KEY", "BENCH_LLM_KEY": "k",
			"LLM_ANTHROPIC_API_KEY_PARAMETER": "env:BENCH_LLM_KEY", "LLM_PRICES": "openai:gpt-4o-mini=0.15/0.60"}, false},
		{"./cmd/notify", "notify", map[string]string{"WEBHOOK_SECRET_PARAMETER": "/triage/webhook"}, false},
		{"./cmd/redrive", "redrive", stageQueues, true},
		{"./cmd/scheduler", "scheduler", stageQueues, true},
		{"./cmd/recovery", "recovery", map[string]string{"MODELS_TABLE": "models"}, true},
	}
	ctx := context.Background()
	for _, fn := range fns {
		name := fn.stage
		if n := fn.env["BENCH_NAME"]; n != "" {
			name = n
		}
		b.Run(name, func(b *testing.B) {
			bin := lambdatest.Build(b, fn.pkg)
			env := map[string]string{"STAGE": fn.stage}
			for k, v := range base {
				env[k] = v
			}
			for k, v := range fn.env {
				env[k] = v
			}
			var init time.Duration
			n := 0
			for b.Loop() {
				svc := lambda.New(lambda.Options{})
				if err := svc.Register(lambda.Function{Name: fn.stage, Bootstrap: bin, Env: env, Timeout: 10 * time.Second}); err != nil {
					b.Fatal(err)
				}
				res, err := svc.Invoke(ctx, fn.stage, []byte(`{"Records":[]}`))
				if err != nil || (!fn.operator && res.FunctionError != nil) || !res.ColdStart || res.InitDuration <= 0 {
					b.Fatal(err, res.FunctionError, res.ColdStart, res.Logs)
				}
				init += res.InitDuration
				n++
				if err := svc.Close(); err != nil {
					b.Fatal(err)
				}
			}
			b.ReportMetric(float64(init.Microseconds())/1000/float64(n), "init-ms")
		})
	}
}
