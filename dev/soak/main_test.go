package soak

import (
	"testing"

	"github.com/triagehq/triage/dev/local/localtest"
)

func TestMain(m *testing.M) { localtest.Main(m) }
