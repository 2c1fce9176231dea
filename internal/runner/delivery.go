package runner

import (
	"github.com/aws/aws-lambda-go/events"

	"github.com/triagehq/triage/internal/gates"
)

// Delivery is how a record came (gates.Delivery): the runner reads it from
// the message and passes it to Work.Run.
type Delivery = gates.Delivery

// deliveryOf reads a message's Delivery from its attributes. A gate name
// that does not parse is ignored: it only steers the ramp.
func deliveryOf(msg events.SQSMessage) Delivery {
	var d Delivery
	if a, ok := msg.MessageAttributes[gates.AttrGate]; ok && a.StringValue != nil {
		if g, err := gates.Parse(*a.StringValue); err == nil && !g.IsDue() {
			d.Gate = g
		}
	}
	if a, ok := msg.MessageAttributes[gates.AttrProbe]; ok && a.StringValue != nil && len(*a.StringValue) <= 128 {
		d.Probe = *a.StringValue
	}
	return d
}
