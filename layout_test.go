package triage_test

import (
	"go/parser"
	"go/token"
	"io/fs"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

const module = "github.com/triagehq/triage"

// layers is the house, lowest first (CONTRIBUTING.md "Layout"): a package
// imports only packages of lower layers. A package not listed fails the
// test, so a new package is placed on purpose; the development tree (dev/)
// and the operator's command line (cmd/triage) stand above the house and
// may import any of it, and nothing in the house imports dev/.
var layers = [][]string{
	// plain types and leaves: what everything shares
	{"internal/work", "internal/clock", "internal/gates", "internal/redact", "internal/store/dynamo", "internal/cfnstack"},
	// what a failure is
	{"internal/failure"},
	// what to do about it, and the small things beside the decision
	{"internal/policy", "internal/rules", "internal/telemetry", "internal/deadletter", "internal/upstream",
		"internal/gates/budget", "internal/upstream/secret"},
	// what is remembered, and a function's configuration
	{"internal/store", "internal/conf", "internal/gates/health"},
	// the facts providers and clients over the store
	{"internal/store/objects", "internal/store/ledger", "internal/gates/breaker", "internal/intake",
		"internal/upstream/llm", "internal/report"},
	{"internal/gates/fallback", "internal/upstream/notice", "internal/replay"},
	// the runners of work
	{"internal/runner", "internal/scheduler", "internal/replay/replaytest"},
	// the Lambda functions' bootstraps and the public package
	{"", "cmd/fetch", "cmd/llm", "cmd/notify", "cmd/scheduler", "cmd/recovery", "cmd/redrive"},
}

func TestLayout(t *testing.T) {
	rank := map[string]int{}
	for i, l := range layers {
		for _, p := range l {
			rank[p] = i
		}
	}
	imports := map[string]map[string]bool{}
	err := filepath.WalkDir(".", func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			if n := d.Name(); n == "testdata" || n == ".git" || n == ".build" || (strings.HasPrefix(n, ".") && n != ".") {
				return filepath.SkipDir
			}
			return nil
		}
		if !strings.HasSuffix(path, ".go") || strings.HasSuffix(path, "_test.go") {
			return nil
		}
		f, err := parser.ParseFile(token.NewFileSet(), path, nil, parser.ImportsOnly)
		if err != nil {
			return err
		}
		dir := filepath.ToSlash(filepath.Dir(path))
		if dir == "." {
			dir = ""
		}
		if imports[dir] == nil {
			imports[dir] = map[string]bool{}
		}
		for _, s := range f.Imports {
			p, _ := strconv.Unquote(s.Path.Value)
			if p == module {
				imports[dir][""] = true
			} else if rest, ok := strings.CutPrefix(p, module+"/"); ok {
				imports[dir][rest] = true
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	for pkg, deps := range imports {
		dev := strings.HasPrefix(pkg, "dev/")
		r, placed := rank[pkg]
		switch {
		case dev || pkg == "cmd/triage" || strings.HasPrefix(pkg, "cmd/triage/"):
			// The development tree and the operator's CLI stand above the house.
		case !placed:
			t.Errorf("package %q has no layer: place it in layers", pkg)
			continue
		}
		for d := range deps {
			if strings.HasPrefix(d, "dev/") && !dev && pkg != "cmd/triage" {
				t.Errorf("%s imports the development tree (%s)", pkg, d)
				continue
			}
			if dev || !placed {
				continue
			}
			dr, ok := rank[d]
			if !ok {
				continue
			}
			if dr > r || (dr == r && d != pkg) {
				t.Errorf("%s (layer %d) imports %s (layer %d): lower layers never import higher ones", pkg, r, d, dr)
			}
		}
	}
}
