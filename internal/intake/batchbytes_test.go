package intake_test

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/sqs"
	"github.com/aws/smithy-go"

	"github.com/triagehq/triage/internal/intake"
)

// batchLimitSQS is fakeSQS with SQS's limit on a batch's total payload: the
// sum of the bodies of one SendMessageBatch is at most 256 KiB, else the
// whole call is refused.
type batchLimitSQS struct{ fakeSQS }

func (f *batchLimitSQS) SendMessageBatch(ctx context.Context, in *sqs.SendMessageBatchInput, opts ...func(*sqs.Options)) (*sqs.SendMessageBatchOutput, error) {
	total := 0
	for _, e := range in.Entries {
		total += len(aws.ToString(e.MessageBody))
	}
	if total > 256<<10 {
		return nil, &smithy.GenericAPIError{Code: "AWS.SimpleQueueService.BatchRequestTooLong",
			Message: fmt.Sprintf("Batch requests cannot be longer than 262144 bytes. You have sent %d bytes.", total), Fault: smithy.FaultClient}
	}
	return f.fakeSQS.SendMessageBatch(ctx, in, opts...)
}

func TestSubmitBatchKeepsEachCallUnderSQSBatchLimit(t *testing.T) {
	t.Parallel()
	in := specs(10)
	for i := range in {
		in[i].SourceURL += "?ref=" + strings.Repeat("a", intake.MaxURLLen-len(in[i].SourceURL)-len("?ref="))
		in[i].Metadata = map[string]string{}
		for k := range intake.MaxMetadataKeys {
			in[i].Metadata[fmt.Sprintf("key_%02d", k)] = strings.Repeat("語", intake.MaxMetadataValueLen)
		}
		if err := in[i].Validate(); err != nil {
			t.Fatalf("spec %d: %v", i, err)
		}
	}
	total := 0
	for _, s := range in {
		total += len(s.Encode())
	}
	if total <= 256<<10 {
		t.Fatalf("ten specs are %d bytes: the case needs more than 256 KiB", total)
	}
	q := &batchLimitSQS{}
	p, _ := newProducer(&q.fakeSQS)
	p.SQS = q
	for i, r := range p.SubmitBatch(context.Background(), in) {
		if !r.OK() {
			t.Fatalf("spec %d of ten valid ones (%d bytes in all) not sent: %v", i, total, r.Err)
		}
	}
	if len(q.bodies) != 10 {
		t.Fatalf("%d bodies sent, want 10", len(q.bodies))
	}
}

// omittingSQS answers its first call without one of the entries: neither in
// Successful nor in Failed.
type omittingSQS struct {
	fakeSQS
	omitted bool
}

func (f *omittingSQS) SendMessageBatch(ctx context.Context, in *sqs.SendMessageBatchInput, opts ...func(*sqs.Options)) (*sqs.SendMessageBatchOutput, error) {
	out, err := f.fakeSQS.SendMessageBatch(ctx, in, opts...)
	if err == nil && !f.omitted && len(out.Successful) > 0 {
		f.omitted = true
		f.mu.Lock()
		f.bodies = f.bodies[:len(f.bodies)-1]
		f.mu.Unlock()
		out.Successful = out.Successful[:len(out.Successful)-1]
	}
	return out, err
}

func TestSubmitBatchNeverCallsAnUnansweredEntrySent(t *testing.T) {
	t.Parallel()
	q := &omittingSQS{}
	p, _ := newProducer(&q.fakeSQS)
	p.SQS = q
	for i, r := range p.SubmitBatch(context.Background(), specs(3)) {
		if !r.OK() || r.MessageID == "" {
			t.Fatalf("spec %d: %+v (%v): an entry the answer did not name is sent again", i, r, r.Err)
		}
	}
	if len(q.bodies) != 3 {
		t.Fatalf("%d bodies on the queue, want 3", len(q.bodies))
	}
}
