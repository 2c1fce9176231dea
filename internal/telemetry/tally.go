package telemetry

import (
	"fmt"
	"maps"
	"sync"

	"github.com/triagehq/triage/internal/work"
)

// Tally is a Counter that keeps its totals in memory, for a test (or a
// tool) that reads back what a component counted. It is safe for
// concurrent use; the zero value is empty and ready.
type Tally struct {
	mu      sync.Mutex
	names   map[string]int
	classes map[tallyKey]int
}

type tallyKey struct {
	name  string
	class work.Class
}

var _ Counter = (*Tally)(nil)

// Count adds n to name's total and, for a counter about a failure, to the
// total of name and class.
func (t *Tally) Count(name string, _ work.Stage, class work.Class, n int) {
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.names == nil {
		t.names, t.classes = map[string]int{}, map[tallyKey]int{}
	}
	t.names[name] += n
	if class != "" {
		t.classes[tallyKey{name, class}] += n
	}
}

// Get returns name's total, whatever the class.
func (t *Tally) Get(name string) int {
	t.mu.Lock()
	defer t.mu.Unlock()
	return t.names[name]
}

// Of returns the total name counted with class.
func (t *Tally) Of(name string, class work.Class) int {
	t.mu.Lock()
	defer t.mu.Unlock()
	return t.classes[tallyKey{name, class}]
}

// Totals returns every counter's total by name.
func (t *Tally) Totals() map[string]int {
	t.mu.Lock()
	defer t.mu.Unlock()
	return maps.Clone(t.names)
}

// String prints the totals by name, for a test's failure message.
func (t *Tally) String() string { return fmt.Sprint(t.Totals()) }
