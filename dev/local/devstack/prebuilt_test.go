package devstack

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/triagehq/triage/dev/local/template"
)

// TestPrebuiltBootstraps: with $TRIAGE_BOOTSTRAPS set and Build unset,
// Start takes each bootstrap from that directory (make test's one build)
// and builds nothing; a function missing there is an error naming the
// variable, not a build; Options.Bootstraps still wins; and an explicit
// Build mode ignores the variable.
func TestPrebuiltBootstraps(t *testing.T) {
	root := t.TempDir() // no ./functions: any attempt to build fails
	dir := t.TempDir()
	if err := os.MkdirAll(filepath.Join(dir, "FetchFunc"), 0o755); err != nil {
		t.Fatal(err)
	}
	prebuilt := filepath.Join(dir, "FetchFunc", "bootstrap")
	if err := os.WriteFile(prebuilt, []byte("#!/bin/true\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	t.Setenv(PrebuiltEnv, dir)
	fetch := template.Function{LogicalID: "FetchFunc"}
	llm := template.Function{LogicalID: "LLMFunc"}
	ctx, quiet := context.Background(), func(string, ...any) {}

	bins, err := buildBootstraps(ctx, root, []template.Function{fetch}, Options{BuildDir: t.TempDir()}, quiet)
	if err != nil || bins["FetchFunc"] != prebuilt {
		t.Fatalf("bins %v, err %v; want FetchFunc from %s", bins, err, prebuilt)
	}
	_, err = buildBootstraps(ctx, root, []template.Function{fetch, llm}, Options{}, quiet)
	if err == nil || !strings.Contains(err.Error(), PrebuiltEnv) || !strings.Contains(err.Error(), "LLMFunc") {
		t.Fatalf("err = %v, want one naming $%s and LLMFunc", err, PrebuiltEnv)
	}
	own := filepath.Join(t.TempDir(), "bootstrap")
	bins, err = buildBootstraps(ctx, root, []template.Function{fetch, llm}, Options{Bootstraps: map[string]string{"LLMFunc": own}}, quiet)
	if err != nil || bins["LLMFunc"] != own || bins["FetchFunc"] != prebuilt {
		t.Fatalf("bins %v, err %v; want LLMFunc's own and FetchFunc's prebuilt", bins, err)
	}
	_, err = buildBootstraps(ctx, root, []template.Function{fetch}, Options{Build: BuildAlways, BuildDir: t.TempDir()}, quiet)
	if err == nil || !strings.Contains(err.Error(), "cannot tell FetchFunc's package") {
		t.Fatalf("err = %v, want Build: always to build (and fail: this root has no functions)", err)
	}
}
