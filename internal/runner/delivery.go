package runner

import (
	"github.com/aws/aws-lambda-go/events"

	"github.com/triagehq/triage/internal/gates"
)

// deliveryOf reads how a message came (gates.Delivery) from its
// attributes, for Work.Run. A gate name that does not parse is ignored: it
// only steers the ramp.
func deliveryOf(msg events.SQSMessage) gates.Delivery {
	var d gates.Delivery
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
