package health_test

import (
	"fmt"
	"sync/atomic"
	"testing"

	"github.com/triagehq/triage/dev/local/localtest"
)

// TestMain stops the moto server the DynamoDB tests start.
func TestMain(m *testing.M) { localtest.Main(m) }

var items atomic.Int64

// newItem names a new item: a model's streak counts distinct items, so
// every failure a test means as the model's comes from another item.
func newItem() string { return fmt.Sprint("item-", items.Add(1)) }
