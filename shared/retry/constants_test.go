package retry_test

import (
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"maps"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
)

// retryName is an identifier that names a retry decision's number: an
// attempt limit, a backoff, a wait or a delay, a cooldown, a give-up
// threshold.
var retryName = regexp.MustCompile(`(?i)attempt|retr(y|ies)|backoff|cooldown|wait|delay|threshold|giveup|jitter|redeliver`)

// constantsAllowed are the places outside the policy package that hold a
// constant with a retry-like name or build a schedule, each with why it is
// not a retry decision of triage's. The key is "<path from the module
// root>:<name>", so that a line moving keeps its entry.
var constantsAllowed = map[string]string{}

// TestNoRetryConstantsOutsideThePolicy holds docs/design.md "The decision
// table": every retry constant — an attempt limit, a backoff, a wait, a
// threshold — is the policy's. It parses every non-test Go file of the
// module outside this package and reports a constant with a retry-like name
// (a const, a var, a := or = of a literal number or duration, a field
// keyed so in a composite literal), and any schedule built with this
// package's types from literals. Both catch `const maxAttempts = 5` and
// `backoff := 2 * time.Second` wherever they are added.
func TestNoRetryConstantsOutsideThePolicy(t *testing.T) {
	here, err := os.Getwd()
	if err != nil {
		t.Fatal(err)
	}
	root := moduleRoot(t, here)
	self := importPathOf(t, root, here)
	var found []string
	err = filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		name := d.Name()
		if d.IsDir() {
			if path != root && (strings.HasPrefix(name, ".") || strings.HasPrefix(name, "_") || name == "testdata" || name == "vendor") {
				return filepath.SkipDir
			}
			if path == here {
				return filepath.SkipDir
			}
			return nil
		}
		if !strings.HasSuffix(name, ".go") || strings.HasSuffix(name, "_test.go") {
			return nil
		}
		rel, _ := filepath.Rel(root, path)
		found = append(found, retryConstants(t, path, filepath.ToSlash(rel), self)...)
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	seen := map[string]bool{}
	for _, f := range found {
		key, _, _ := strings.Cut(f, " ")
		seen[key] = true
		if _, ok := constantsAllowed[key]; !ok {
			t.Errorf("%s: a retry constant outside the policy: make it a row or an output of the policy (docs/design.md \"The decision table\")", f)
		}
	}
	for _, key := range slices.Sorted(maps.Keys(constantsAllowed)) {
		if !seen[key] {
			t.Errorf("allow-list entry %s matches nothing: remove it", key)
		}
	}
}

// TestRetryConstantsScannerCatches proves the scanner finds what it is for,
// and leaves alone what is not a retry decision.
func TestRetryConstantsScannerCatches(t *testing.T) {
	src := `package p

import (
	"net/http"
	"time"

	"github.com/triagehq/triage/shared/retry"
)

const maxAttempts = 5

const (
	pageSize = 100
	DefaultRetryDelay = 2 * time.Second
)

var giveUpThreshold = 3

func f() {
	backoff := 2 * time.Second
	var cooldown time.Duration = time.Minute
	c := &http.Client{Timeout: 10 * time.Second}
	s := retry.Exponential{Initial: 100 * time.Millisecond, Multiplier: 2}
	o := struct{ MaxAttempts int }{MaxAttempts: 7}
	waitFor := time.Duration(3) * time.Second
	n := 0
	n = 4
	retries := len(s.String())
	_, _, _, _, _, _, _ = backoff, cooldown, c, o, waitFor, n, retries
}
`
	dir := t.TempDir()
	path := filepath.Join(dir, "p.go")
	if err := os.WriteFile(path, []byte(src), 0o600); err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, f := range retryConstants(t, path, "p.go", "github.com/triagehq/triage/shared/retry") {
		key, _, _ := strings.Cut(f, " ")
		got = append(got, key)
	}
	want := []string{"p.go:maxAttempts", "p.go:DefaultRetryDelay", "p.go:giveUpThreshold", "p.go:backoff", "p.go:cooldown",
		"p.go:retry.Exponential", "p.go:MaxAttempts", "p.go:waitFor"}
	if !slices.Equal(got, want) {
		t.Errorf("found %q, want %q", got, want)
	}
}

// retryConstants lists the retry constants of one file as
// "<rel>:<name> (line N)".
func retryConstants(t *testing.T, path, rel, policyPath string) []string {
	t.Helper()
	fset := token.NewFileSet()
	f, err := parser.ParseFile(fset, path, nil, parser.SkipObjectResolution)
	if err != nil {
		t.Fatalf("%s: %v", rel, err)
	}
	policy := "" // the name this file imports the policy package as
	for _, im := range f.Imports {
		if strings.Trim(im.Path.Value, `"`) == policyPath {
			policy = filepath.Base(policyPath)
			if im.Name != nil {
				policy = im.Name.Name
			}
		}
	}
	var out []string
	add := func(name string, at token.Pos) {
		out = append(out, fmt.Sprintf("%s:%s (line %d)", rel, name, fset.Position(at).Line))
	}
	named := func(id *ast.Ident, v ast.Expr) {
		if id != nil && id.Name != "_" && v != nil && retryName.MatchString(id.Name) && constantNumber(v) {
			add(id.Name, id.Pos())
		}
	}
	ast.Inspect(f, func(n ast.Node) bool {
		switch n := n.(type) {
		case *ast.ValueSpec:
			for i, id := range n.Names {
				if i < len(n.Values) {
					named(id, n.Values[i])
				}
			}
		case *ast.AssignStmt:
			if len(n.Lhs) == len(n.Rhs) {
				for i, l := range n.Lhs {
					id, _ := l.(*ast.Ident)
					if sel, ok := l.(*ast.SelectorExpr); ok {
						id = sel.Sel
					}
					named(id, n.Rhs[i])
				}
			}
		case *ast.CompositeLit:
			if sel, ok := n.Type.(*ast.SelectorExpr); ok && policy != "" {
				if x, ok := sel.X.(*ast.Ident); ok && x.Name == policy {
					for _, e := range n.Elts {
						if kv, ok := e.(*ast.KeyValueExpr); ok && constantNumber(kv.Value) {
							add(policy+"."+sel.Sel.Name, n.Pos())
							return false
						}
					}
				}
			}
			for _, e := range n.Elts {
				if kv, ok := e.(*ast.KeyValueExpr); ok {
					id, _ := kv.Key.(*ast.Ident)
					named(id, kv.Value)
				}
			}
		}
		return true
	})
	return out
}

// constantNumber reports whether e is a number or a duration made of
// literals and the time package's units: 5, 2 * time.Second,
// time.Duration(3) * time.Minute, time.Hour.
func constantNumber(e ast.Expr) bool {
	switch e := e.(type) {
	case *ast.BasicLit:
		return e.Kind == token.INT || e.Kind == token.FLOAT
	case *ast.ParenExpr:
		return constantNumber(e.X)
	case *ast.UnaryExpr:
		return constantNumber(e.X)
	case *ast.BinaryExpr:
		return constantNumber(e.X) && constantNumber(e.Y)
	case *ast.SelectorExpr:
		x, ok := e.X.(*ast.Ident)
		return ok && x.Name == "time" && slices.Contains([]string{"Nanosecond", "Microsecond", "Millisecond", "Second", "Minute", "Hour"}, e.Sel.Name)
	case *ast.CallExpr:
		// time.Duration(n): a conversion of a constant.
		if sel, ok := e.Fun.(*ast.SelectorExpr); ok && len(e.Args) == 1 {
			if x, ok := sel.X.(*ast.Ident); ok && x.Name == "time" && sel.Sel.Name == "Duration" {
				return constantNumber(e.Args[0])
			}
		}
	}
	return false
}

// moduleRoot is the nearest directory at or above dir holding go.mod.
func moduleRoot(t *testing.T, dir string) string {
	t.Helper()
	for d := dir; ; d = filepath.Dir(d) {
		if _, err := os.Stat(filepath.Join(d, "go.mod")); err == nil {
			return d
		}
		if filepath.Dir(d) == d {
			t.Fatalf("no go.mod above %s", dir)
		}
	}
}

// importPathOf is dir's import path: the module's path and dir below root.
func importPathOf(t *testing.T, root, dir string) string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(root, "go.mod"))
	if err != nil {
		t.Fatal(err)
	}
	for _, line := range strings.Split(string(b), "\n") {
		if m, ok := strings.CutPrefix(strings.TrimSpace(line), "module "); ok {
			rel, _ := filepath.Rel(root, dir)
			return strings.TrimSpace(m) + "/" + filepath.ToSlash(rel)
		}
	}
	t.Fatal("go.mod names no module")
	return ""
}
