package lambda_test

import (
	"context"
	"testing"
	"time"

	"github.com/triagehq/triage/dev/local/lambda"
	"github.com/triagehq/triage/dev/local/lambda/lambdatest"
)

// BenchmarkInvoke measures the local Lambda service with the test
// bootstrap: a warm invocation (Runtime API round trip) and a cold start,
// whose init duration — process start to the first /invocation/next — is
// reported as init-ms.
func BenchmarkInvoke(b *testing.B) {
	bin := lambdatest.Build(b, lambdatest.TestFunction)
	ctx := context.Background()
	payload := []byte(`{"echo":"x"}`)

	b.Run("warm", func(b *testing.B) {
		svc := lambda.New(lambda.Options{})
		defer svc.Close()
		if err := svc.Register(lambda.Function{Name: "Bench", Bootstrap: bin}); err != nil {
			b.Fatal(err)
		}
		if _, err := svc.Invoke(ctx, "Bench", payload); err != nil { // the cold start
			b.Fatal(err)
		}
		b.ResetTimer()
		for b.Loop() {
			res, err := svc.Invoke(ctx, "Bench", payload)
			if err != nil || res.FunctionError != nil || res.ColdStart {
				b.Fatal(err, res.FunctionError, res.ColdStart)
			}
		}
	})

	b.Run("cold", func(b *testing.B) {
		var init time.Duration
		n := 0
		for b.Loop() {
			svc := lambda.New(lambda.Options{})
			if err := svc.Register(lambda.Function{Name: "Bench", Bootstrap: bin}); err != nil {
				b.Fatal(err)
			}
			res, err := svc.Invoke(ctx, "Bench", payload)
			if err != nil || res.FunctionError != nil || !res.ColdStart {
				b.Fatal(err, res.FunctionError, res.ColdStart)
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
