package simulate

import (
	"context"
	"errors"
	"net/http"
	"strconv"
	"time"

	"github.com/aws/aws-lambda-go/events"
	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/sqs"
	sqstypes "github.com/aws/aws-sdk-go-v2/service/sqs/types"

	"github.com/triagehq/triage/internal/failure"
	"github.com/triagehq/triage/internal/runner"
	"github.com/triagehq/triage/internal/work"
)

// baseline is the stage handler of the two baselines. It is not triage's
// code. Both keep the item in the same table as triage (the producer's
// PutItem, one eventually consistent GetItem of the item per attempt, one
// UpdateItem of the stage's output per success), forward successes with
// SendMessageBatch, run records on the same lanes with the same event
// source mapping, and — generously — stop before their deadline the way
// triage's runner does (a record not started is reported as a failure;
// a call running into the deadline fails with it), so neither loses work
// to a function timeout.
//
//   - naive redrive: no classification and no retries in the handler; a
//     failed record is reported as a batch item failure and reappears after
//     the queue's fixed visibility timeout (NaiveVisibility), until the
//     redrive policy moves it to the DLQ after NaiveMaxReceives receives.
//   - SDK retries: up to SDKRetries quick retries inside the invocation for
//     the failures an SDK retries (408, 409, 429, 5xx and transport errors,
//     whatever the body says), then the record is sent to the DLQ and
//     acknowledged. Invalid model output is a 200 to an SDK: not retried.
type baseline struct {
	e    *engine
	sr   *stageRT
	kind Kind
}

// Handle processes one batch.
func (b *baseline) Handle(ctx context.Context, ev events.SQSEvent) (events.SQSEventResponse, error) {
	e, sr := b.e, b.sr
	var resp events.SQSEventResponse
	deadline := vt(1<<62 - 1)
	if d, ok := ctx.Deadline(); ok {
		deadline = fromTime(d) - int64(runner.DefaultSafetyMargin)
	}
	var forwards []string
	for _, rec := range ev.Records {
		if e.clock.now()+int64(runner.DefaultMinRecordTime) > deadline {
			resp.BatchItemFailures = append(resp.BatchItemFailures, events.SQSBatchItemFailure{ItemIdentifier: rec.MessageId})
			continue
		}
		e.clock.startRecord()
		env, err := work.DecodeEnvelope(rec.Body, sr.st)
		i, known := e.index[env.ItemID]
		if err != nil || !known {
			e.anomaly("baseline %s: undecodable record %s", sr.st, rec.MessageId)
			continue
		}
		var callErr error
		for attempt := 0; ; attempt++ {
			e.dyn(ddbGetItem, load{key: itemKey(env.ItemID), r: rru(e.baselineBytes(i), false)})
			if callErr = e.charge(sr.idx); callErr != nil {
				break
			}
			callErr = e.up.call(sr.idx, i, deadline)
			if callErr == nil || b.kind != KindSDKRetries || attempt >= SDKRetries || !sdkRetries(callErr) {
				break
			}
			base := SDKBackoff << attempt
			e.clock.spend(base + time.Duration(e.rng.Float64()*float64(base)))
			if e.clock.lane() >= deadline {
				break
			}
		}
		if callErr == nil {
			before := e.baselineBytes(i)
			it := &e.items[i]
			it.progress = max(it.progress, int8(sr.idx+1))
			it.passed[sr.idx] = e.clock.lane()
			e.dyn(ddbUpdateItem, load{key: itemKey(env.ItemID), w: wru(max(before, e.baselineBytes(i)))})
			if sr.next == nil {
				e.finish(i, outcomeDone, "", "", e.clock.lane())
			} else {
				forwards = append(forwards, work.Envelope{ItemID: env.ItemID, Stage: work.Stages()[sr.idx+1],
					CorrelationID: env.CorrelationID}.Encode())
			}
			continue
		}
		if b.kind == KindSDKRetries {
			class := failure.Classify(callErr).Class
			_, err := e.sqs.SendMessage(ctx, &sqs.SendMessageInput{
				QueueUrl: aws.String(sr.dlq.url), MessageBody: aws.String(rec.Body),
				MessageAttributes: map[string]sqstypes.MessageAttributeValue{
					"item_id":     {DataType: aws.String("String"), StringValue: aws.String(env.ItemID)},
					"error_class": {DataType: aws.String("String"), StringValue: aws.String(string(class))},
				},
			})
			if err == nil {
				continue
			}
		}
		resp.BatchItemFailures = append(resp.BatchItemFailures, events.SQSBatchItemFailure{ItemIdentifier: rec.MessageId})
	}
	for start := 0; start < len(forwards); start += 10 {
		chunk := forwards[start:min(start+10, len(forwards))]
		entries := make([]sqstypes.SendMessageBatchRequestEntry, len(chunk))
		for k, body := range chunk {
			entries[k] = sqstypes.SendMessageBatchRequestEntry{Id: aws.String(strconv.Itoa(k)), MessageBody: aws.String(body)}
		}
		if _, err := e.sqs.SendMessageBatch(ctx, &sqs.SendMessageBatchInput{QueueUrl: aws.String(sr.next.url), Entries: entries}); err != nil {
			return resp, err
		}
	}
	return resp, nil
}

// sdkRetries reports whether an SDK's built-in retry would retry err: by
// HTTP status (408, 409, 429, 5xx) or for a transport failure; an answer
// the SDK accepted (a 200 whose content is unusable) is not retried.
func sdkRetries(err error) bool {
	var he *failure.HTTPError
	if errors.As(err, &he) {
		s := he.Status
		return s == http.StatusRequestTimeout || s == http.StatusConflict || s == http.StatusTooManyRequests || s >= 500
	}
	var fe *failure.Error
	return !errors.As(err, &fe)
}
