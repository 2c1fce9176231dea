package devstack

import (
	"context"
	"encoding/json"
	"fmt"
	"maps"
	"os"
	"runtime/pprof"
	"strconv"
	"strings"
	"sync"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	dbtypes "github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"github.com/aws/aws-sdk-go-v2/service/sqs"
	sqstypes "github.com/aws/aws-sdk-go-v2/service/sqs/types"

	"github.com/triagehq/triage/internal/store/dynamo"
	"github.com/triagehq/triage/internal/work"
)

// What the harnesses (demo, soak) read back from a running stack.

const maxScanPages = 1000

// StageQueueURLs returns the stage queues' URLs in pipeline order.
func (s *Stack) StageQueueURLs() []string {
	out := make([]string, 0, len(work.Stages()))
	for _, st := range work.Stages() {
		out = append(out, s.QueueURL(st))
	}
	return out
}

// QueueDepth sums the visible, in-flight and delayed messages of the queues.
func (s *Stack) QueueDepth(ctx context.Context, urls ...string) (int, error) {
	total := 0
	for _, u := range urls {
		out, err := s.SQS.GetQueueAttributes(ctx, &sqs.GetQueueAttributesInput{QueueUrl: aws.String(u),
			AttributeNames: []sqstypes.QueueAttributeName{sqstypes.QueueAttributeNameApproximateNumberOfMessages,
				sqstypes.QueueAttributeNameApproximateNumberOfMessagesNotVisible, sqstypes.QueueAttributeNameApproximateNumberOfMessagesDelayed}})
		if err != nil {
			return 0, fmt.Errorf("queue attributes: %w", err)
		}
		for _, v := range out.Attributes {
			n, _ := strconv.Atoi(v)
			total += n
		}
	}
	return total, nil
}

// Scan calls fn with every row of table (only the projected attributes when
// projection is set), page by page.
func (s *Stack) Scan(ctx context.Context, table, projection string, names map[string]string,
	fn func(map[string]dbtypes.AttributeValue)) error {
	in := &dynamodb.ScanInput{TableName: aws.String(table)}
	if projection != "" {
		in.ProjectionExpression, in.ExpressionAttributeNames = aws.String(projection), names
	}
	err := dynamo.Scan(ctx, dynamodb.NewFromConfig(s.AWS), in, maxScanPages, func(it map[string]dbtypes.AttributeValue) error {
		fn(it)
		return nil
	})
	if err != nil {
		return fmt.Errorf("scan %s: %w", table, err)
	}
	return nil
}

// Str is the value of a string attribute of a row Scan read; empty for a
// missing attribute or one of another type.
func Str(v dbtypes.AttributeValue) string {
	if s, ok := v.(*dbtypes.AttributeValueMemberS); ok {
		return s.Value
	}
	return ""
}

// AWSCalls sums the functions' per-invocation "aws calls" log lines (the
// runner logs every AWS request its invocation made, retries included). Its
// Observe is an Options.OnLog. It is safe for concurrent use.
type AWSCalls struct {
	mu     sync.Mutex
	counts map[string]int64
}

// Observe adds the counts of an "aws calls" line; other lines are ignored.
func (c *AWSCalls) Observe(_, line string) {
	if !strings.Contains(line, `"aws_calls"`) {
		return
	}
	var rec struct {
		Calls map[string]int64 `json:"aws_calls"`
	}
	if json.Unmarshal([]byte(line), &rec) != nil {
		return
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.counts == nil {
		c.counts = map[string]int64{}
	}
	for k, v := range rec.Calls {
		c.counts[k] += v
	}
}

// Snapshot returns the sums so far, by "Service.Operation".
func (c *AWSCalls) Snapshot() map[string]int64 {
	c.mu.Lock()
	defer c.mu.Unlock()
	out := make(map[string]int64, len(c.counts))
	maps.Copy(out, c.counts)
	return out
}

// DumpGoroutines writes every goroutine's stack to path: what a harness
// (the pollers, the Lambda service, the fakes) was doing when a pipeline
// stopped moving, for the post-mortem. Errors are ignored: it is a
// diagnostic on a path that is already failing.
func DumpGoroutines(path string) {
	f, err := os.Create(path)
	if err != nil {
		return
	}
	defer f.Close()
	_ = pprof.Lookup("goroutine").WriteTo(f, 2)
}

// NoticeQueueURL is the owner-notice queue; "" for a template without one.
func (s *Stack) NoticeQueueURL() string { return s.Info.Outputs["NoticeQueueUrl"] }

// PipelineQueueURLs returns the stage queues and the notice queue: where
// the pipeline still has work while any holds a message.
func (s *Stack) PipelineQueueURLs() []string {
	out := s.StageQueueURLs()
	if u := s.NoticeQueueURL(); u != "" {
		out = append(out, u)
	}
	return out
}
