package runner

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"strings"
	"time"

	"github.com/aws/aws-lambda-go/events"

	"github.com/triagehq/triage/internal/failure"
	"github.com/triagehq/triage/internal/intake"
	"github.com/triagehq/triage/internal/redact"
	"github.com/triagehq/triage/internal/store"
	"github.com/triagehq/triage/internal/work"
)

// maxUnknownFieldNames bounds the field names a runner remembers having
// logged, so a producer inventing names cannot grow its memory.
const maxUnknownFieldNames = 256

// decode reads a message body: a pipeline envelope, or — on the first stage
// only — a producer's item spec (package intake), for which it also returns
// the envelope the rest of the record works with. Unknown fields are
// accepted and reported (unknownFields).
func (b *batch) decode(msg events.SQSMessage) (work.Envelope, *intake.Spec, error) {
	if intake.IsSpec(msg.Body) {
		spec, unknown, err := intake.Decode(msg.Body)
		b.unknownFields(msg, unknown)
		if err != nil {
			return work.Envelope{}, nil, err
		}
		if first := work.Stages()[0]; b.r.Stage != first {
			return work.Envelope{}, nil, fmt.Errorf("%w: an item spec on the %s queue; producers send items to the %s queue",
				work.ErrEnvelope, b.r.Stage, first)
		}
		return work.Envelope{ItemID: spec.ItemID, Stage: b.r.Stage, CorrelationID: spec.CorrelationID}, &spec, nil
	}
	env, unknown, err := work.Decode(msg.Body, b.r.Stage)
	b.unknownFields(msg, unknown)
	return env, nil, err
}

// unknownFields counts a message that carries fields this version does not
// know and logs each field name the first time this runner sees it: a
// producer a version ahead is accepted, and noticed, without a log line per
// message.
func (b *batch) unknownFields(msg events.SQSMessage, fields []string) {
	if len(fields) == 0 {
		return
	}
	r := b.r
	r.metrics().Count(MetricUnknownFields, r.Stage, "", 1)
	var fresh []string
	r.unknownMu.Lock()
	for _, f := range fields {
		f = work.Ellipsis(redact.String(f), 64)
		if r.unknownSeen[f] || len(r.unknownSeen) >= maxUnknownFieldNames {
			continue
		}
		if r.unknownSeen == nil {
			r.unknownSeen = map[string]bool{}
		}
		r.unknownSeen[f] = true
		fresh = append(fresh, f)
	}
	r.unknownMu.Unlock()
	if len(fresh) > 0 {
		b.log.Warn("message has fields this version does not know; accepted and ignored (logged once per field)",
			"unknown_fields", strings.Join(fresh, ","), "message_id", msg.MessageId)
	}
}

// create makes the Items row a producer's spec describes, with one
// conditional put (store.Items.Create). done is false when the record goes
// on to its claim: the item was created, or it already exists with the same
// spec — a duplicate submission, which the claim tells apart from a
// redelivery of this very message. An existing item with another spec is
// dead-lettered SCHEMA_INVALID naming the fields that differ.
func (b *batch) create(ctx context.Context, log *slog.Logger, msg events.SQSMessage, env *work.Envelope, spec intake.Spec,
	owner string, now time.Time) (out outcome, done bool) {
	r := b.r
	_, err := r.Items.Create(ctx, spec.NewItem(owner, now))
	if err == nil {
		r.metrics().Count(MetricCreated, r.Stage, "", 1)
		log.Info("item created from its spec", "kind", string(spec.Kind))
		return outcome{}, false
	}
	if errors.Is(err, store.ErrInvalidItem) {
		// The store refuses the spec (its check is the one Decode ran, so
		// only a store with rules of its own does): no retry would succeed.
		return b.deadLetterMessage(msg, failure.Wrap(work.SchemaInvalid, err, "the item store refuses the spec"), spec.CorrelationID), true
	}
	var ee *store.ExistsError
	if !errors.As(err, &ee) {
		return b.storeUnavailable(log, receiveCount(msg), "create", err), true
	}
	if ee.Current == nil {
		return outcome{}, false
	}
	if cs := spec.Differences(*ee.Current); len(cs) > 0 {
		return b.deadLetterMessage(msg, failure.New(work.SchemaInvalid, "%s", differenceText(spec.ItemID, cs)), spec.CorrelationID), true
	}
	// The item keeps the correlation id of its first submission.
	env.CorrelationID = ee.Current.CorrelationID
	log.Info("item already exists with the same spec: a duplicate submission")
	return outcome{}, false
}

// differenceText names the fields a resubmitted spec changes, with both
// values redacted and cut short.
func differenceText(id string, cs []intake.Difference) string {
	parts := make([]string, len(cs))
	for i, c := range cs {
		parts[i] = fmt.Sprintf("%s is %q on the item, %q in the message", c.Field,
			work.Ellipsis(redact.String(c.Have), 120), work.Ellipsis(redact.String(c.Got), 120))
	}
	return fmt.Sprintf("item %s already exists with another spec: %s (submit a new item id to change it)", id, strings.Join(parts, "; "))
}
