package simulate

import (
	"context"
	"fmt"
	"testing"
)

// BenchmarkRun simulates the shipped standard mix at 10,000 items per
// policy and reports items per second of wall time (the virtual time
// simulated is hours).
func BenchmarkRun(b *testing.B) {
	for _, name := range []string{"standard", "daily-batch", "naive-redrive", "sdk-retries"} {
		b.Run(name, func(b *testing.B) { benchmarkItems(b, name, 10_000) })
	}
}

// BenchmarkRun100k is the simulator's reference scale: 100,000 items of the standard mix
// under the standard profile. Run it on its own:
//
//	go test ./dev/simulate -run '^$' -bench Run100k -benchtime 1x
func BenchmarkRun100k(b *testing.B) { benchmarkItems(b, "standard", 100_000) }

func benchmarkItems(b *testing.B, policy string, items int) {
	sc, err := Load("../../scenarios/standard-mix.json")
	if err != nil {
		b.Fatal(err)
	}
	sc.Items = items
	if err := sc.Validate(); err != nil {
		b.Fatal(err)
	}
	p, err := LookupPolicy(policy)
	if err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	var events int64
	for b.Loop() {
		r, err := Run(context.Background(), sc, p, Options{})
		if err != nil {
			b.Fatal(err)
		}
		if r.Unfinished != 0 || len(r.Anomalies) > 0 {
			b.Fatal(fmt.Sprintf("%d unfinished, anomalies %v", r.Unfinished, r.Anomalies))
		}
		events += r.Events
	}
	secs := b.Elapsed().Seconds()
	b.ReportMetric(float64(items*b.N)/secs, "items/s")
	b.ReportMetric(float64(events)/secs, "events/s")
}
