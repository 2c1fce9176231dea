package soak

import (
	"testing"

	"github.com/triagehq/triage/infra/local/localtest"
)

func TestMain(m *testing.M) { localtest.Main(m) }
