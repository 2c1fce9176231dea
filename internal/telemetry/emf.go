package telemetry

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"sync"
	"time"

	"github.com/triagehq/triage/internal/clock"
	"github.com/triagehq/triage/internal/work"
)

// DefaultNamespace is the CloudWatch namespace when none is configured;
// template.yaml sets METRICS_NAMESPACE to "triage/<stack name>".
const DefaultNamespace = "triage"

// Dimension names of every EMF line. Stage is always present; Class only on
// counters about a failure.
const (
	DimensionStage = "Stage"
	DimensionClass = "Class"
)

// EMF limits (CloudWatch embedded metric format specification).
const (
	// MaxMetricsPerDirective is the most MetricDefinitions one directive
	// may hold.
	MaxMetricsPerDirective = 100
	// MaxDimensionsPerSet is the most dimension keys one DimensionSet may
	// hold.
	MaxDimensionsPerSet = 30
)

// EMF is a runner.Metrics that aggregates counters in memory and writes them
// as CloudWatch embedded-metric-format lines on Flush — one line per (stage,
// class) pair seen since the last flush, each holding every counter of that
// pair — so a batch of ten records costs a handful of log lines, not one per
// increment. CloudWatch Logs turns the lines into metrics in Namespace with
// the dimension sets [Stage] and, for failure counters, [Stage, Class].
//
// Call Flush at the end of every invocation (the runner's AfterBatch); a
// Lambda environment may be frozen, and counters not flushed are reported
// by the next invocation. It is safe for concurrent use.
type EMF struct {
	// W receives the lines (os.Stdout in Lambda). Required.
	W io.Writer
	// Namespace is the CloudWatch namespace; empty means DefaultNamespace.
	Namespace string
	// Clock stamps each flush (_aws.Timestamp); nil means the wall clock.
	Clock clock.Clock
	// Properties are extra top-level string members of every line (not
	// dimensions), such as the function name, for Logs Insights queries; a
	// property named like a dimension or a metric is overwritten by it.
	Properties map[string]string

	mu     sync.Mutex
	counts map[emfKey]int
	order  []emfKey
}

type emfKey struct {
	name  string
	stage work.Stage
	class work.Class
}

type emfGroup struct {
	stage work.Stage
	class work.Class
}

// Counter receives counters: *EMF in the functions, a test's recorder in
// tests. Class is empty for counters that are not about a failure. The
// runtime's packages name it Metrics.
type Counter interface {
	Count(name string, stage work.Stage, class work.Class, n int)
}

var _ Counter = (*EMF)(nil)

// CounterOr returns c, or a Counter that counts nothing when c is nil: the
// counter of a component whose Metrics is optional (as Or is its logger).
func CounterOr(c Counter) Counter {
	if c == nil {
		return noCounter{}
	}
	return c
}

type noCounter struct{}

func (noCounter) Count(string, work.Stage, work.Class, int) {}

// NewEMF returns an EMF writing to w in namespace (empty: DefaultNamespace).
func NewEMF(w io.Writer, namespace string, c clock.Clock) *EMF {
	return &EMF{W: w, Namespace: namespace, Clock: c}
}

// Count adds n to the counter name for stage and class (class empty for
// counters that are not about a failure). A count of zero still reports the
// metric (with value 0) at the next flush.
func (e *EMF) Count(name string, stage work.Stage, class work.Class, n int) {
	if name == "" {
		return
	}
	k := emfKey{name: name, stage: stage, class: class}
	e.mu.Lock()
	defer e.mu.Unlock()
	if e.counts == nil {
		e.counts = map[emfKey]int{}
	}
	if _, ok := e.counts[k]; !ok {
		e.order = append(e.order, k)
	}
	e.counts[k] += n
}

// Flush writes the counters aggregated since the last flush, one line per
// (stage, class), and resets them; nothing is written when there are none.
// Each line is written with a single Write. On a write error the counters
// are dropped (metrics must never block the pipeline) and the error is
// returned.
func (e *EMF) Flush() error {
	e.mu.Lock()
	counts, order := e.counts, e.order
	e.counts, e.order = nil, nil
	e.mu.Unlock()
	if len(counts) == 0 {
		return nil
	}
	lines, err := e.lines(counts, order)
	if err != nil {
		return err
	}
	var buf bytes.Buffer
	for _, l := range lines {
		buf.Reset()
		buf.Write(l)
		buf.WriteByte('\n')
		if _, err := e.W.Write(buf.Bytes()); err != nil {
			return fmt.Errorf("write EMF line: %w", err)
		}
	}
	return nil
}

// lines renders the counters, grouped by (stage, class) in first-seen order.
func (e *EMF) lines(counts map[emfKey]int, order []emfKey) ([][]byte, error) {
	groups := map[emfGroup][]emfKey{}
	var gorder []emfGroup
	for _, k := range order {
		g := emfGroup{stage: k.stage, class: k.class}
		if _, ok := groups[g]; !ok {
			gorder = append(gorder, g)
		}
		groups[g] = append(groups[g], k)
	}
	ts := e.now().UnixMilli()
	var out [][]byte
	for _, g := range gorder {
		keys := groups[g]
		for start := 0; start < len(keys); start += MaxMetricsPerDirective {
			chunk := keys[start:min(start+MaxMetricsPerDirective, len(keys))]
			line, err := e.line(ts, g, chunk, counts)
			if err != nil {
				return nil, err
			}
			out = append(out, line)
		}
	}
	return out, nil
}

// emfMetric is a MetricDefinition.
type emfMetric struct {
	Name string `json:"Name"`
	Unit string `json:"Unit"`
}

// emfDirective is a MetricDirective.
type emfDirective struct {
	Namespace  string      `json:"Namespace"`
	Dimensions [][]string  `json:"Dimensions"`
	Metrics    []emfMetric `json:"Metrics"`
}

func (e *EMF) line(ts int64, g emfGroup, keys []emfKey, counts map[emfKey]int) ([]byte, error) {
	doc := make(map[string]any, len(keys)+len(e.Properties)+3)
	for k, v := range e.Properties {
		doc[k] = v
	}
	stage := string(g.stage)
	if stage == "" {
		stage = "none"
	}
	doc[DimensionStage] = stage
	dims := [][]string{{DimensionStage}}
	if g.class != "" {
		doc[DimensionClass] = string(g.class)
		dims = append(dims, []string{DimensionStage, DimensionClass})
	}
	d := emfDirective{Namespace: e.namespace(), Dimensions: dims}
	for _, k := range keys {
		if k.name == DimensionStage || k.name == DimensionClass || k.name == "_aws" {
			return nil, fmt.Errorf("EMF metric name %q collides with a reserved member", k.name)
		}
		d.Metrics = append(d.Metrics, emfMetric{Name: k.name, Unit: "Count"})
		doc[k.name] = counts[k]
	}
	doc["_aws"] = map[string]any{"Timestamp": ts, "CloudWatchMetrics": []emfDirective{d}}
	b, err := json.Marshal(doc)
	if err != nil {
		return nil, fmt.Errorf("encode EMF line: %w", err)
	}
	return b, nil
}

// Snapshot returns the counters not yet flushed, keyed "Name/Stage/Class"
// (Class empty for counters without one), for tests and the demo.
func (e *EMF) Snapshot() map[string]int {
	e.mu.Lock()
	defer e.mu.Unlock()
	out := make(map[string]int, len(e.counts))
	for k, v := range e.counts {
		out[k.name+"/"+string(k.stage)+"/"+string(k.class)] = v
	}
	return out
}

func (e *EMF) namespace() string {
	if e.Namespace == "" {
		return DefaultNamespace
	}
	return e.Namespace
}

func (e *EMF) now() time.Time {
	return clock.Or(e.Clock).Now()
}
