package conf

import (
	"context"
	"fmt"
	"maps"
	"os"
	"sort"
	"strings"
	"sync"

	"github.com/aws/aws-sdk-go-v2/aws"
	awsmiddleware "github.com/aws/aws-sdk-go-v2/aws/middleware"
	awshttp "github.com/aws/aws-sdk-go-v2/aws/transport/http"
	"github.com/aws/aws-sdk-go-v2/config"
	"github.com/aws/smithy-go/middleware"
)

// DefaultRegion is used when neither AWS_REGION nor AWS_DEFAULT_REGION is set
// (local runs); Lambda always sets AWS_REGION.
const DefaultRegion = "us-east-1"

// Load returns the SDK config for this process. counter, if non-nil, counts
// every request (each retry attempt included). Options are applied last.
// A plain *http.Client would break when AWS_CA_BUNDLE is set; the SDK's
// buildable client is required.
func Load(ctx context.Context, counter *Counter, opts ...func(*config.LoadOptions) error) (aws.Config, error) {
	base := []func(*config.LoadOptions) error{
		config.WithHTTPClient(awshttp.NewBuildableClient()),
	}
	if os.Getenv("AWS_REGION") == "" && os.Getenv("AWS_DEFAULT_REGION") == "" {
		base = append(base, config.WithRegion(DefaultRegion))
	}
	cfg, err := config.LoadDefaultConfig(ctx, append(base, opts...)...)
	if err != nil {
		return aws.Config{}, fmt.Errorf("load AWS config: %w", err)
	}
	if counter != nil {
		cfg.APIOptions = append(cfg.APIOptions, counter.Register)
	}
	return cfg, nil
}

// Counter counts AWS requests by "Service.Operation" (e.g.
// "DynamoDB.UpdateItem"). It is safe for concurrent use.
type Counter struct {
	mu     sync.Mutex
	counts map[string]int64
}

// NewCounter returns an empty Counter.
func NewCounter() *Counter { return &Counter{counts: map[string]int64{}} }

// Register adds the counting middleware to an SDK client stack (for
// aws.Config.APIOptions) after the retry middleware, so every
// attempt that goes on the wire is counted.
func (c *Counter) Register(stack *middleware.Stack) error {
	return stack.Finalize.Add(middleware.FinalizeMiddlewareFunc("triage.awsconf.count",
		func(ctx context.Context, in middleware.FinalizeInput, next middleware.FinalizeHandler) (middleware.FinalizeOutput, middleware.Metadata, error) {
			c.Add(awsmiddleware.GetServiceID(ctx)+"."+awsmiddleware.GetOperationName(ctx), 1)
			return next.HandleFinalize(ctx, in)
		}), middleware.After)
}

// Add adds n to key.
func (c *Counter) Add(key string, n int64) {
	c.mu.Lock()
	c.counts[key] += n
	c.mu.Unlock()
}

// Snapshot returns a copy of the counts.
func (c *Counter) Snapshot() map[string]int64 {
	c.mu.Lock()
	defer c.mu.Unlock()
	return maps.Clone(c.counts)
}

// Take returns the counts and resets them, for per-invocation reporting.
func (c *Counter) Take() map[string]int64 {
	c.mu.Lock()
	defer c.mu.Unlock()
	out := c.counts
	c.counts = map[string]int64{}
	return out
}

// Total sums counts whose key starts with prefix ("" for all, "DynamoDB." for
// one service).
func Total(counts map[string]int64, prefix string) int64 {
	var n int64
	for k, v := range counts {
		if strings.HasPrefix(k, prefix) {
			n += v
		}
	}
	return n
}

// Format renders counts as "DynamoDB.UpdateItem=2 SQS.SendMessageBatch=1",
// sorted by key.
func Format(counts map[string]int64) string {
	keys := make([]string, 0, len(counts))
	for k := range counts {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	var b strings.Builder
	for i, k := range keys {
		if i > 0 {
			b.WriteByte(' ')
		}
		fmt.Fprintf(&b, "%s=%d", k, counts[k])
	}
	return b.String()
}
