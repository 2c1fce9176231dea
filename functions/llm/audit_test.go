package main

import (
	"context"
	"maps"
	"testing"

	"github.com/triagehq/triage/shared/audit"
	"github.com/triagehq/triage/shared/pipeline"
	"github.com/triagehq/triage/shared/stage"
	"github.com/triagehq/triage/shared/state"
)

// The llm stage's work is audited exactly when the template gives it the
// Audit table.
func TestAuditedOnlyWithATable(t *testing.T) {
	t.Parallel()
	inner := stage.WorkFunc(func(context.Context, state.Item) (state.Output, error) { return state.Output{}, nil })
	audited := func(env map[string]string) stage.Work {
		full := llmEnv()
		maps.Copy(full, env)
		c, err := loadConfig(func(k string) string { return full[k] })
		if err != nil {
			t.Fatal(err)
		}
		return c.audited(inner, stage.Deps{})
	}
	if w := audited(nil); w == nil {
		t.Fatal("nil work")
	} else if _, ok := w.(*audit.Work); ok {
		t.Fatal("audited without AUDIT_TABLE")
	}
	w, ok := audited(map[string]string{"AUDIT_TABLE": "audit"}).(*audit.Work)
	if !ok || w.Stage != pipeline.LLM || w.Trail.(*audit.Trail).Table != "audit" {
		t.Fatalf("audited work %+v", w)
	}
}
