package breaker_test

import (
	"testing"

	"github.com/triagehq/triage/dev/local/localtest"
)

// TestMain stops the moto server the DynamoDB tests start.
func TestMain(m *testing.M) { localtest.Main(m) }
