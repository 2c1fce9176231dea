package lambda_test

import (
	"context"
	"maps"
	"testing"
	"time"

	"github.com/triagehq/triage/dev/local/devstack"
	"github.com/triagehq/triage/dev/local/lambda"
	"github.com/triagehq/triage/dev/local/lambda/lambdatest"
	"github.com/triagehq/triage/dev/local/localtest"
)

// BenchmarkColdStart cold-starts the real bootstraps through the local
// Runtime API and reports init-ms: process start to the first
// /invocation/next, the figure Lambda reports as Init Duration. Each
// function has the environment template.yaml gives it (resolved with no
// stack, localtest.OfflineFunction), which points nowhere: init makes no
// AWS call (the llm keys are read from the environment, env: references),
// so this is the binary's own start-up. The event is an empty batch.
func BenchmarkColdStart(b *testing.B) {
	keys := map[string]string{"LLM_API_KEY_PARAMETER": "env:BENCH_LLM_KEY", "LLM_ANTHROPIC_API_KEY_PARAMETER": "env:BENCH_LLM_KEY",
		"BENCH_LLM_KEY": "k", "AWS_ACCESS_KEY_ID": "x", "AWS_SECRET_ACCESS_KEY": "x", "AWS_REGION": "us-east-1"}
	fns := []struct {
		name, logicalID string
		params          map[string]string
		// operator functions take other events than an SQS batch: their
		// answer to the empty batch is not checked, only their init.
		operator bool
	}{
		{"fetch", "FetchFunc", nil, false},
		{"llm", "LLMFunc", map[string]string{"LLMBaseUrl": "https://api.example.com/v1"}, false},
		// the chain across three providers: an HTTP client each for OpenAI
		// and Anthropic, the Bedrock Runtime SDK client
		{"llm-3-providers", "LLMFunc", map[string]string{
			"LLMModels": "bedrock:anthropic.claude-3-5-haiku-20241022-v1:0,openai:gpt-4o-mini,anthropic:claude-3-5-haiku-latest",
			"LLMPrices": "openai:gpt-4o-mini=0.15/0.60"}, false},
		{"notify", "NotifyFunc", nil, false},
		{"redrive", "RedriveFunc", nil, true},
		{"scheduler", "SchedulerFunc", nil, true},
		{"recovery", "RecoveryFunc", nil, true},
	}
	ctx := context.Background()
	for _, fn := range fns {
		b.Run(fn.name, func(b *testing.B) {
			_, env := localtest.OfflineFunction(b, fn.logicalID, fn.params)
			bin := lambdatest.Build(b, "./cmd/"+devstack.ShortName(fn.logicalID))
			maps.Copy(env, keys)
			var init time.Duration
			n := 0
			for b.Loop() {
				svc := lambda.New(lambda.Options{})
				if err := svc.Register(lambda.Function{Name: fn.name, Bootstrap: bin, Env: env, Timeout: 10 * time.Second}); err != nil {
					b.Fatal(err)
				}
				res, err := svc.Invoke(ctx, fn.name, []byte(`{"Records":[]}`))
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
