package runner_test

import (
	"context"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/triagehq/triage/internal/conf"
	"github.com/triagehq/triage/internal/runner"
	"github.com/triagehq/triage/internal/work"
)

// TestNewRunnerLoadsTheRules: a stage function's start reads the rules
// its configuration names before it builds its work, and a bad rule fails
// the start with its file, line and reason (docs/design.md "Operator
// rules").
func TestNewRunnerLoadsTheRules(t *testing.T) {
	t.Parallel()
	bad := filepath.Join(t.TempDir(), "rules.yaml")
	if err := os.WriteFile(bad, []byte("rules:\n  - name: x\n    stage: fetch\n    class: SLOW\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	built := false
	env := runner.Env{Stage: work.Fetch, Process: conf.Process{RulesFile: bad}}
	_, err := runner.NewRunner(context.Background(), slog.New(slog.DiscardHandler), env, func(context.Context, runner.Deps) (runner.Work, error) {
		built = true
		return nil, nil
	})
	if err == nil || !strings.Contains(err.Error(), "classification rules: "+bad+`:4: rule "x": class "SLOW"`) {
		t.Errorf("err = %v", err)
	}
	if built {
		t.Error("the work was built before the rules were checked")
	}
}
