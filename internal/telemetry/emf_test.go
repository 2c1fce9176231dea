package telemetry_test

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/aws/aws-lambda-go/lambdacontext"

	"github.com/triagehq/triage/internal/clock"
	"github.com/triagehq/triage/internal/runner"
	"github.com/triagehq/triage/internal/telemetry"
	"github.com/triagehq/triage/internal/work"
)

var _ runner.Metrics = (*telemetry.EMF)(nil)

var t0 = time.Date(2026, 11, 21, 10, 0, 0, 0, time.UTC)

// emfUnits are the units the specification allows.
var emfUnits = map[string]bool{
	"Seconds": true, "Microseconds": true, "Milliseconds": true, "Bytes": true, "Kilobytes": true, "Megabytes": true,
	"Gigabytes": true, "Terabytes": true, "Bits": true, "Kilobits": true, "Megabits": true, "Gigabits": true,
	"Terabits": true, "Percent": true, "Count": true, "Bytes/Second": true, "Kilobytes/Second": true,
	"Megabytes/Second": true, "Gigabytes/Second": true, "Terabytes/Second": true, "Bits/Second": true,
	"Kilobits/Second": true, "Megabits/Second": true, "Gigabits/Second": true, "Terabits/Second": true,
	"Count/Second": true, "None": true,
}

// validateEMF checks one log line against the CloudWatch embedded metric
// format specification: a JSON object with an _aws metadata object holding
// a millisecond Timestamp and a non-empty CloudWatchMetrics array; each
// directive with a Namespace, Dimensions (an array of at most-30-key arrays
// of names, each a top-level string member) and 1..100 Metrics (Name, an
// allowed Unit), each metric a top-level number (or array of at most 100
// numbers).
func validateEMF(line []byte) error {
	if len(line) > 1<<20 {
		return errors.New("event larger than 1 MB")
	}
	var root map[string]json.RawMessage
	if err := json.Unmarshal(line, &root); err != nil {
		return fmt.Errorf("not a JSON object: %w", err)
	}
	rawAWS, ok := root["_aws"]
	if !ok {
		return errors.New("no _aws member")
	}
	var meta struct {
		Timestamp         *json.Number
		CloudWatchMetrics []json.RawMessage
	}
	dec := json.NewDecoder(bytes.NewReader(rawAWS))
	dec.UseNumber()
	if err := dec.Decode(&meta); err != nil {
		return fmt.Errorf("_aws: %w", err)
	}
	if meta.Timestamp == nil {
		return errors.New("_aws.Timestamp missing")
	}
	ms, err := meta.Timestamp.Int64()
	if err != nil || ms < 1e12 {
		return fmt.Errorf("_aws.Timestamp %s is not epoch milliseconds", meta.Timestamp)
	}
	if len(meta.CloudWatchMetrics) == 0 {
		return errors.New("_aws.CloudWatchMetrics is empty")
	}
	for i, raw := range meta.CloudWatchMetrics {
		var d struct {
			Namespace  *string
			Dimensions *[][]string
			Metrics    []struct {
				Name              *string
				Unit              *string
				StorageResolution *int
			}
		}
		if err := json.Unmarshal(raw, &d); err != nil {
			return fmt.Errorf("directive %d: %w", i, err)
		}
		if d.Namespace == nil || *d.Namespace == "" || len(*d.Namespace) > 255 {
			return fmt.Errorf("directive %d: Namespace missing or invalid", i)
		}
		if d.Dimensions == nil {
			return fmt.Errorf("directive %d: Dimensions missing", i)
		}
		for _, set := range *d.Dimensions {
			if len(set) > telemetry.MaxDimensionsPerSet {
				return fmt.Errorf("directive %d: dimension set of %d keys", i, len(set))
			}
			for _, name := range set {
				var v string
				raw, ok := root[name]
				if !ok || json.Unmarshal(raw, &v) != nil || v == "" {
					return fmt.Errorf("directive %d: dimension %q is not a non-empty top-level string", i, name)
				}
			}
		}
		if len(d.Metrics) == 0 || len(d.Metrics) > telemetry.MaxMetricsPerDirective {
			return fmt.Errorf("directive %d: %d metrics", i, len(d.Metrics))
		}
		for _, m := range d.Metrics {
			if m.Name == nil || *m.Name == "" || len(*m.Name) > 1024 {
				return fmt.Errorf("directive %d: metric without a valid Name", i)
			}
			if m.Unit != nil && !emfUnits[*m.Unit] {
				return fmt.Errorf("metric %s: unit %q", *m.Name, *m.Unit)
			}
			if m.StorageResolution != nil && *m.StorageResolution != 1 && *m.StorageResolution != 60 {
				return fmt.Errorf("metric %s: StorageResolution %d", *m.Name, *m.StorageResolution)
			}
			raw, ok := root[*m.Name]
			if !ok {
				return fmt.Errorf("metric %s has no top-level value", *m.Name)
			}
			var num float64
			var nums []float64
			if json.Unmarshal(raw, &num) != nil {
				if json.Unmarshal(raw, &nums) != nil || len(nums) == 0 || len(nums) > 100 {
					return fmt.Errorf("metric %s value %s is not a number", *m.Name, raw)
				}
			}
		}
	}
	return nil
}

func TestValidatorRejectsMalformedLines(t *testing.T) {
	t.Parallel()
	good := `{"_aws":{"Timestamp":1763719200000,"CloudWatchMetrics":[{"Namespace":"triage","Dimensions":[["Stage"]],"Metrics":[{"Name":"Failures","Unit":"Count"}]}]},"Stage":"llm","Failures":1}`
	if err := validateEMF([]byte(good)); err != nil {
		t.Fatalf("good line rejected: %v", err)
	}
	for name, bad := range map[string]string{
		"not JSON":             `Failures=1`,
		"no _aws":              `{"Stage":"llm","Failures":1}`,
		"seconds timestamp":    strings.Replace(good, "1763719200000", "1763719200", 1),
		"no namespace":         strings.Replace(good, `"Namespace":"triage",`, "", 1),
		"dimension not a root": strings.Replace(good, `"Stage":"llm",`, "", 1),
		"dimension not string": strings.Replace(good, `"Stage":"llm"`, `"Stage":3`, 1),
		"metric not numeric":   strings.Replace(good, `"Failures":1}`, `"Failures":"1"}`, 1),
		"metric missing":       strings.Replace(good, `,"Failures":1}`, `}`, 1),
		"bad unit":             strings.Replace(good, `"Unit":"Count"`, `"Unit":"Things"`, 1),
		"no metrics":           strings.Replace(good, `{"Name":"Failures","Unit":"Count"}`, ``, 1),
	} {
		if err := validateEMF([]byte(bad)); err == nil {
			t.Errorf("%s: accepted %s", name, bad)
		}
	}
}

func TestEMFLinesValidate(t *testing.T) {
	t.Parallel()
	var buf bytes.Buffer
	e := &telemetry.EMF{W: &buf, Namespace: "triage/prod", Clock: clock.NewStub(t0), Properties: map[string]string{"function": "llm"}}
	var wg sync.WaitGroup
	for range 10 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			e.Count(runner.MetricFailures, work.LLM, work.RateLimited, 1)
			e.Count(runner.MetricRetries, work.LLM, work.RateLimited, 1)
			e.Count(runner.MetricSuccesses, work.LLM, "", 2)
			e.Count(runner.MetricFailures, work.LLM, work.ResponseInvalid, 1)
			e.Count("ModelDisables", work.LLM, work.ResponseInvalid, 0)
		}()
	}
	wg.Wait()
	for i := range 150 {
		e.Count(fmt.Sprintf("Synthetic%03d", i), work.Fetch, "", 1)
	}
	if err := e.Flush(); err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSpace(buf.String()), "\n")
	// llm/RATE_LIMITED, llm/-, llm/RESPONSE_INVALID, and fetch/- split in 100 + 50.
	if len(lines) != 5 {
		t.Fatalf("%d lines, want 5:\n%s", len(lines), buf.String())
	}
	totals := map[string]float64{}
	for _, l := range lines {
		if err := validateEMF([]byte(l)); err != nil {
			t.Fatalf("invalid EMF line: %v\n%s", err, l)
		}
		var doc map[string]any
		_ = json.Unmarshal([]byte(l), &doc)
		if doc["function"] != "llm" || doc["_aws"].(map[string]any)["Timestamp"].(float64) != float64(t0.UnixMilli()) {
			t.Fatalf("properties or timestamp missing: %s", l)
		}
		for _, k := range []string{"Failures", "Retries", "Successes"} {
			if v, ok := doc[k].(float64); ok {
				totals[fmt.Sprint(k, "/", doc["Class"])] += v
			}
		}
	}
	want := map[string]float64{"Failures/RATE_LIMITED": 10, "Retries/RATE_LIMITED": 10, "Successes/<nil>": 20, "Failures/RESPONSE_INVALID": 10}
	if fmt.Sprint(totals) != fmt.Sprint(want) {
		t.Fatalf("aggregated totals %v, want %v", totals, want)
	}
	buf.Reset()
	if err := e.Flush(); err != nil || buf.Len() != 0 {
		t.Fatalf("second flush wrote %q, %v; want nothing", buf.String(), err)
	}
}

func TestEMFRejectsReservedNames(t *testing.T) {
	t.Parallel()
	e := telemetry.NewEMF(&bytes.Buffer{}, "", clock.NewStub(t0))
	e.Count("Stage", work.LLM, "", 1)
	if err := e.Flush(); err == nil {
		t.Fatal("a metric named Stage was written")
	}
}

// The runner counts; the invocation's end flushes one line per stage and
// class.
func ExampleEMF() {
	e := telemetry.NewEMF(os.Stdout, "triage/prod", clock.NewStub(t0))
	e.Count("Failures", work.LLM, work.ResponseInvalid, 1)
	e.Count("Retries", work.LLM, work.ResponseInvalid, 1)
	e.Count("Failures", work.LLM, work.ResponseInvalid, 1)
	_ = e.Flush()
	// Output:
	// {"Class":"RESPONSE_INVALID","Failures":2,"Retries":1,"Stage":"llm","_aws":{"CloudWatchMetrics":[{"Namespace":"triage/prod","Dimensions":[["Stage"],["Stage","Class"]],"Metrics":[{"Name":"Failures","Unit":"Count"},{"Name":"Retries","Unit":"Count"}]}],"Timestamp":1795255200000}}
}

func TestContextLogger(t *testing.T) {
	t.Parallel()
	var buf bytes.Buffer
	log := telemetry.NewContextLogger(&buf, "info")
	ctx := telemetry.WithAttrs(context.Background(), "item_id", "i-1", "correlation_id", "c-1")
	ctx = telemetry.WithAttrs(ctx, "item_id", "i-1", "model", "gpt")
	ctx = lambdacontext.NewContext(ctx, &lambdacontext.LambdaContext{AwsRequestID: "req-9"})
	log.InfoContext(ctx, "breaker opened", "service", "api.example")
	var got map[string]any
	if err := json.Unmarshal(buf.Bytes(), &got); err != nil {
		t.Fatal(err)
	}
	for k, v := range map[string]string{"item_id": "i-1", "correlation_id": "c-1", "model": "gpt", "request_id": "req-9", "service": "api.example"} {
		if got[k] != v {
			t.Errorf("%s = %v, want %s in %s", k, got[k], v, buf.String())
		}
	}
	if strings.Count(buf.String(), `"item_id"`) != 1 {
		t.Errorf("item_id duplicated: %s", buf.String())
	}
}

func TestCounterOr(t *testing.T) {
	t.Parallel()
	e := telemetry.NewEMF(&bytes.Buffer{}, "", clock.NewStub(t0))
	if telemetry.CounterOr(e) != telemetry.Counter(e) {
		t.Fatal("CounterOr replaced a counter it was given")
	}
	telemetry.CounterOr(e).Count("Kept", work.LLM, work.RateLimited, 1)
	if got := e.Snapshot(); len(got) != 1 {
		t.Fatalf("counts %v, want the one counted through CounterOr", got)
	}
	quiet := telemetry.CounterOr(nil)
	if quiet == nil {
		t.Fatal("CounterOr(nil) is nil")
	}
	quiet.Count("Dropped", work.LLM, "", 1) // must not panic
}

func TestTally(t *testing.T) {
	t.Parallel()
	var tally telemetry.Tally
	if tally.Get("Unseen") != 0 || tally.Of("Unseen", work.NotFound) != 0 || len(tally.Totals()) != 0 {
		t.Fatal("an empty tally has totals")
	}
	var wg sync.WaitGroup
	for range 4 {
		wg.Go(func() {
			tally.Count("Failures", work.LLM, work.RateLimited, 2)
			tally.Count("Failures", work.Fetch, work.NotFound, 1)
			tally.Count("Successes", work.LLM, "", 1)
		})
	}
	wg.Wait()
	if got := tally.Get("Failures"); got != 12 {
		t.Errorf("Failures = %d, want 12 across stages and classes", got)
	}
	if got := tally.Of("Failures", work.RateLimited); got != 8 {
		t.Errorf("Failures of RATE_LIMITED = %d, want 8", got)
	}
	if got := tally.Of("Successes", ""); got != 0 {
		t.Errorf("a counter without a class has a class total %d", got)
	}
	if got, want := tally.String(), "map[Failures:12 Successes:4]"; got != want {
		t.Errorf("String() = %s, want %s", got, want)
	}
}
