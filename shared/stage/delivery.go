package stage

import (
	"context"

	"github.com/aws/aws-lambda-go/events"

	"github.com/triagehq/triage/shared/gate"
)

// Delivery is how a record came (gate.Delivery): the runner reads it from
// the message and passes it to Work.Run.
type Delivery = gate.Delivery

type deliveryKey struct{}

// WithDelivery returns ctx carrying d too, for code inside a Work that
// has only the context (a test's work counting probes). Work receives its
// delivery as Run's argument; gate providers read it from there.
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
