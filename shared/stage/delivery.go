package stage

import (
	"github.com/aws/aws-lambda-go/events"

	"github.com/triagehq/triage/shared/gate"
)

// Delivery is how a record came (gate.Delivery): the runner reads it from
// the message and passes it to Work.Run.
type Delivery = gate.Delivery

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
