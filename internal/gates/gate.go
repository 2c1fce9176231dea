// Package gates names what a waiting item waits for, and paces how the items
// behind a gate are let through once it opens.
//
// A gate is a condition outside the item that keeps it from running: an
// open circuit breaker (Breaker, keyed by the upstream service), an
// exhausted provider quota (Quota, keyed by the service), a model chain with
// no enabled model (Models, keyed by the chain), the day's spent budget
// (Budget, keyed by the UTC day) — or nothing but the clock (Due: a plain
// due time, such as a long Retry-After). The stage runner parks an item that
// waits behind a closed gate under the gate's Name; the scheduler finds the
// waiters of one gate through an index, asks the gate's owner whether it is
// open, and releases its waiters in a Ramp (docs/design.md "Waits and
// parking").
//
// A Work says which gate a wait or a failure is behind by wrapping its error
// with Wrap; the runner reads it back with Of.
package gates

import (
	"errors"
	"fmt"
	"strings"
)

// Kind is the type of a gate.
type Kind string

const (
	// Breaker is an open circuit breaker; its key is the upstream service.
	// It opens when the breaker closes after a successful probe.
	Breaker Kind = "breaker"
	// Quota is a provider's exhausted quota; its key is the upstream
	// service. It is the service's breaker tripped by the quota answer, and
	// opens like one.
	Quota Kind = "quota"
	// Models is a model chain without an enabled model; its key is the
	// chain ("m1,m2"). It opens when any of its models is enabled again.
	Models Kind = "models"
	// Budget is the day's spent budget; its key is the UTC day
	// ("2006-01-02"). It opens when that day is over.
	Budget Kind = "budget"
	// Due is a plain due time: no condition but the clock.
	Due Kind = "due"
)

// Kinds lists every kind.
func Kinds() []Kind { return []Kind{Breaker, Quota, Models, Budget, Due} }

// MaxNameLen bounds a gate's name: it is a DynamoDB key (2048 bytes at
// most) and appears in every log line of a parked item.
const MaxNameLen = 1024

// Name identifies one gate: "<kind>:<key>", or "due" for a plain due time.
// The zero value is Due.
type Name string

// DueName is the name of the plain due time.
const DueName Name = "due"

// New returns the name of kind's gate keyed by key; Due (or an empty
// kind) is DueName whatever the key.
func New(k Kind, key string) Name {
	if k == Due || k == "" {
		return DueName
	}
	return Name(string(k) + ":" + key)
}

// Kind returns n's kind; Due for the zero value.
func (n Name) Kind() Kind {
	if n == "" || n == DueName {
		return Due
	}
	k, _, _ := strings.Cut(string(n), ":")
	return Kind(k)
}

// Key returns n's key ("" for Due).
func (n Name) Key() string {
	_, key, _ := strings.Cut(string(n), ":")
	return key
}

// IsDue reports whether n is the plain due time.
func (n Name) IsDue() bool { return n.Kind() == Due }

// String returns n, "due" for the zero value.
func (n Name) String() string {
	if n == "" {
		return string(DueName)
	}
	return string(n)
}

// Parse checks s and returns it as a Name: a known kind, and a non-empty
// key for every kind but Due.
func Parse(s string) (Name, error) {
	if s == "" || s == string(DueName) {
		return DueName, nil
	}
	if len(s) > MaxNameLen {
		return "", fmt.Errorf("gate name longer than %d bytes", MaxNameLen)
	}
	k, key, ok := strings.Cut(s, ":")
	if !ok || key == "" {
		return "", fmt.Errorf("gate %q: want <kind>:<key>", s)
	}
	for _, known := range Kinds() {
		if Kind(k) == known && known != Due {
			return Name(s), nil
		}
	}
	return "", fmt.Errorf("gate %q: unknown kind %q", s, k)
}

// Error attaches the gate a wait or a failure is behind to an error; it
// unwraps to the error, so errors.Is and errors.As see through it.
type Error struct {
	Err  error
	Gate Name
}

// Error returns the wrapped error's text.
func (e *Error) Error() string { return e.Err.Error() }

// Unwrap returns the wrapped error.
func (e *Error) Unwrap() error { return e.Err }

// Wrap attaches gate n to err; nil stays nil.
func Wrap(err error, n Name) error {
	if err == nil {
		return nil
	}
	return &Error{Err: err, Gate: n}
}

// Named is an error that reports a gate of its own (a gate provider's
// report that the gate is closed); Of reads it.
type Named interface {
	error
	GateName() Name
}

// Of returns the gate err is behind: the innermost Wrap's, or, innermost
// still, a Named error's; ok is false when err names none.
func Of(err error) (n Name, ok bool) {
	for err != nil {
		var ge *Error
		if !errors.As(err, &ge) {
			break
		}
		n, ok = ge.Gate, true
		err = ge.Err
	}
	var named Named
	if err != nil && errors.As(err, &named) && named.GateName() != "" {
		n, ok = named.GateName(), true
	}
	return n, ok
}

// SQS message attributes of an envelope the scheduler released: the gate it
// waited behind (so the stage can signal congestion to the gate's ramp),
// and, for a probe, the probe lease the scheduler took for it.
const (
	AttrGate  = "triage_gate"
	AttrProbe = "triage_probe"
)

// Delivery is what a record's message says about how it came: the gate
// whose waiters the scheduler released it from, and, for the one waiter
// released as a breaker's probe, the probe lease the scheduler took for it
// (docs/design.md "Waits and parking"). The runner reads it from the
// message (AttrGate, AttrProbe) and hands it to the stage's work as an
// argument. The zero value is a plain delivery.
type Delivery struct {
	// Gate is the gate the scheduler released the record from; empty for a
	// message that did not wait behind a gate.
	Gate Name
	// Probe is the owner of the breaker's probe lease this record carries;
	// empty when it is no probe.
	Probe string
}
