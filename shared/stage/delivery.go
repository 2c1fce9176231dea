package stage

import (
	"context"

	"github.com/aws/aws-lambda-go/events"

	"github.com/triagehq/triage/shared/gate"
)

// Delivery is what a record's message says about how it came: the gate
// whose waiters the scheduler released it from, and, for the one waiter
// released as a breaker's probe, the probe lease the scheduler took for it
// (docs/design.md "Waits and parking"). The zero value is a plain delivery.
type Delivery struct {
	// Gate is the gate the scheduler released the record from; empty for a
	// message that did not wait behind a gate.
	Gate gate.Name
	// Probe is the owner of the breaker's probe lease this record carries;
	// empty when it is no probe.
	Probe string
}

type deliveryKey struct{}

// WithDelivery returns ctx carrying d, for Work (breaker.Guard reads the
// probe lease from it).
func WithDelivery(ctx context.Context, d Delivery) context.Context {
	if d == (Delivery{}) {
		return ctx
	}
	return context.WithValue(ctx, deliveryKey{}, d)
}

// DeliveryFrom returns the Delivery ctx carries; the zero value if none.
func DeliveryFrom(ctx context.Context) Delivery {
	d, _ := ctx.Value(deliveryKey{}).(Delivery)
	return d
}

// deliveryOf reads a message's Delivery from its attributes. A gate name
// that does not parse is ignored: it only steers the ramp.
func deliveryOf(msg events.SQSMessage) Delivery {
	var d Delivery
	if a, ok := msg.MessageAttributes[gate.AttrGate]; ok && a.StringValue != nil {
		if g, err := gate.Parse(*a.StringValue); err == nil && !g.IsDue() {
			d.Gate = g
		}
	}
	if a, ok := msg.MessageAttributes[gate.AttrProbe]; ok && a.StringValue != nil && len(*a.StringValue) <= 128 {
		d.Probe = *a.StringValue
	}
	return d
}
