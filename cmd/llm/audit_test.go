package main

import (
	"context"
	"maps"
	"testing"

	"github.com/triagehq/triage/internal/runner"
	"github.com/triagehq/triage/internal/store"
	"github.com/triagehq/triage/internal/store/ledger"
	"github.com/triagehq/triage/internal/work"
)

// The llm stage's work is audited exactly when the template gives it the
// Audit table.
func TestAuditedOnlyWithATable(t *testing.T) {
	t.Parallel()
	inner := runner.WorkFunc(func(context.Context, store.Item) (work.Output, error) { return work.Output{}, nil })
	audited := func(env map[string]string) runner.Work {
		full := llmEnv()
		maps.Copy(full, env)
		c, err := loadConfig(func(k string) string { return full[k] })
		if err != nil {
			t.Fatal(err)
		}
		return c.audited(inner, runner.Deps{})
	}
	if w := audited(nil); w == nil {
		t.Fatal("nil work")
	} else if _, ok := w.(*ledger.Work); ok {
		t.Fatal("audited without AUDIT_TABLE")
	}
	w, ok := audited(map[string]string{"AUDIT_TABLE": "audit"}).(*ledger.Work)
	if !ok || w.Stage != work.LLM || w.Trail.(*ledger.Trail).Table != "audit" {
		t.Fatalf("audited work %+v", w)
	}
}
