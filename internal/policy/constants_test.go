package policy_test

import (
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"maps"
	"os"
	"path"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
)

// retryName is an identifier that names a retry decision's number: an
// attempt limit, a backoff, a wait or a delay, a cooldown, a give-up
// threshold.
var retryName = regexp.MustCompile(`(?i:attempt|retr(y|ies)|backoff|cooldown|wait|delay|threshold|giveup|jitter|redeliver)|Tries|^tries`)

// longPoll is an identifier that names an SQS receive's long poll
// (WaitTimeSeconds), which is how long a receive listens, not a wait
// between attempts.
var longPoll = regexp.MustCompile(`(?i)pollwait|waittime`)

// sleeps are the calls that wait: a literal duration passed to one is a
// wait decided on the spot.
var sleeps = []string{"Sleep", "After", "NewTimer", "AfterFunc"}

// constantsAllowed are the places outside the policy package that hold a
// constant with a retry-like name or build a schedule, each with why it is
// not a retry decision of triage's. The key is "<file name>:<name>": a line
// moving keeps its entry, and so does a file moving to another package.
var constantsAllowed = map[string]string{

	// Limits of a parser, a store or an AWS API: not a wait between attempts.
	"delay.go:maxDelayScan":               "how much of a body the delay-hint parser reads",
	"delay.go:maxDelayCandidates":         "how many delay hints the parser weighs",
	"delay.go:maxDelayParts":              "how many parts a delay like 1h2m3s may have",
	"retryafter.go:MaxRequestedDelay":     "an overflow guard on a parsed Retry-After; the policy's RequestedCap decides",
	"bodies.go:DefaultBodyThreshold":      "the size above which a body is stored in S3",
	"parked.go:MaxWaitingPage":            "the page size of a gate's waiters' query",
	"items_requests.go:CooldownTolerance": "clock skew a claim forgives on a due time the policy decided",
	"words.go:Delay":                      "the classifier reads a requested delay under an hour as a rate limit's: evidence, not a wait",
	"poller.go:wait":                      "the local event source's long-poll window",
	"report.go:DefaultRepeatThreshold":    "how many repeats a report groups as one pattern",
	"aws.go:wait":                         "an SQS receive's long poll (-1: short polls)",
	"attributes.go:maxDelay":              "SQS's DelaySeconds limit, which the local SQS enforces",
	"attributes.go:maxWait":               "SQS's WaitTimeSeconds limit, which the local SQS enforces",
	"positional.go:tries":                 "how many lines past a line that announces a secret the finder reads",

	// What a fake upstream or a scenario asks of triage: the input to its
	// decisions, not one.
	"articles.go:DefaultArticleRetryAfter": "the fake article host's Retry-After",
	"llm.go:DefaultLLMRetryAfter":          "the fake LLM provider's Retry-After",
	"webhook.go:DefaultWebhookRetryAfter":  "the fake webhook's Retry-After",
	"webhook.go:DefaultDiscordRetryAfter":  "the fake Discord webhook's Retry-After",
	"demo.go:RetryAfter":                   "the demo's fakes' Retry-After",
	"soak.go:RetryAfter":                   "the soak's fakes' Retry-After",
	"soak.go:AttemptRate":                  "the soak's share of AWS requests that fail",
	"notices.go:retryOptIn":                "the soak's share of owners who ask for item.retry_scheduled",
	"policy.go:SDKRetries":                 "the simulated SDK-retry baseline triage is measured against",
	"policy.go:SDKBackoff":                 "the simulated SDK-retry baseline triage is measured against",
	"sizes.go:RetryCount":                  "a sample failure record whose size is measured",
	"sizes.go:MaxRetries":                  "a sample failure record whose size is measured",

	// Development tooling's own pace: how a local tool waits for a process
	// or a condition, never for a record's retry.
	"owner.go:After":              "the demo polls for the owner's notices every 250 ms",
	"phases.go:After":             "the demo polls for a phase's end every 250 ms",
	"lambda.go:settleWait":        "how long the local Lambda waits for a runtime to poll again",
	"lambdatest.go:WaitDelay":     "os/exec's grace for a test runtime's pipes",
	"volume.go:attempt":           "the volume tool's final check gives up after 10 rounds of unprocessed keys",
	"moto.go:portAttempts":        "tries of a free port for the local moto server",
	"poller.go:receiveRetryDelay": "the local event source's pause after a failed receive, as Lambda's poller pauses",
	"up.go:WithTimeout":           "the local stack's bound on one scheduled invocation",
	"devstack.go:WithTimeout":     "the local stack's bound on one scheduled invocation",
	"localtest.go:WithTimeout":    "a test stack's bound on creating its tables and queues",
	"front.go:WithTimeout":        "the local moto front's bound on its shutdown",
	"soak.go:WithTimeout":         "the soak's bound on dumping moto's state after a run",

	// The operator's command line, which answers a person at a terminal.
	"classify_response.go:WithTimeout": "triage classify-response's bound on judging a recorded answer",
}

// TestNoRetryConstantsOutsideThePolicy holds docs/design.md "The decision
// table": every retry constant — an attempt limit, a backoff, a wait, a
// threshold — is the policy's. It parses every non-test Go file of the
// module outside this package and reports a constant with a retry-like name
// (a const, a var, a := or = of a literal number or duration, a field
// keyed so in a composite literal, a comparison with a literal such as
// attempt >= 5), a literal duration passed to a timer (time.Sleep,
// time.After, time.NewTimer, time.AfterFunc) or as a call's bound
// (context.WithTimeout), and any schedule built with
// this package's types from literals. They catch `const maxAttempts = 5`
// and `backoff := 2 * time.Second` wherever they are added.
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
		key, _, _ := strings.Cut(path.Base(f), " ")
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
	"context"
	"net/http"
	"time"

	"github.com/triagehq/triage/internal/policy"
)

const maxAttempts = 5

const (
	pageSize = 100
	DefaultRetryDelay = 2 * time.Second
)

var giveUpThreshold = 3

const verdictTries = 3

const maxBatchEntries = 10

func f() {
	backoff := 2 * time.Second
	var cooldown time.Duration = time.Minute
	c := &http.Client{Timeout: 10 * time.Second}
	s := policy.Exponential{Initial: 100 * time.Millisecond, Multiplier: 2}
	o := struct{ MaxAttempts int }{MaxAttempts: 7}
	waitFor := time.Duration(3) * time.Second
	n := 0
	n = 4
	retries := len(s.String())
	for attempt := 1; attempt < retries; attempt++ {
		if attempt >= 3 || attempt == 1 {
			break
		}
		time.Sleep(time.Duration(attempt) * 100 * time.Millisecond)
	}
	var pollWait = 20 * time.Second
	attempts := 0
	<-time.After(d)
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	bounded, stop := context.WithTimeout(ctx, policy.InlineHandoff)
	_, _, _, _ = cancel, bounded, stop, ctx
	_, _, _, _, _, _, _, _, _ = backoff, cooldown, c, o, waitFor, n, retries, pollWait, attempts
}

var d time.Duration
`
	dir := t.TempDir()
	path := filepath.Join(dir, "p.go")
	if err := os.WriteFile(path, []byte(src), 0o600); err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, f := range retryConstants(t, path, "p.go", "github.com/triagehq/triage/internal/policy") {
		key, _, _ := strings.Cut(f, " ")
		got = append(got, key)
	}
	want := []string{"p.go:maxAttempts", "p.go:DefaultRetryDelay", "p.go:giveUpThreshold", "p.go:verdictTries", "p.go:backoff", "p.go:cooldown",
		"p.go:policy.Exponential", "p.go:MaxAttempts", "p.go:waitFor", "p.go:attempt", "p.go:Sleep", "p.go:WithTimeout"}
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
		if id != nil && id.Name != "_" && v != nil && retryName.MatchString(id.Name) && !longPoll.MatchString(id.Name) && constantNumber(v) {
			add(id.Name, id.Pos())
		}
	}
	// set is named for a value set in code rather than declared: a zero
	// there is a start or a switch-off, never a limit.
	set := func(id *ast.Ident, v ast.Expr) {
		if lit, ok := v.(*ast.BasicLit); !ok || lit.Value != "0" {
			named(id, v)
		}
	}
	counters := map[ast.Stmt]bool{} // a for loop's init and post: its counter
	ast.Inspect(f, func(n ast.Node) bool {
		switch n := n.(type) {
		case *ast.ForStmt:
			counters[n.Init], counters[n.Post] = true, true
		case *ast.ValueSpec:
			for i, id := range n.Names {
				if i < len(n.Values) {
					named(id, n.Values[i])
				}
			}
		case *ast.AssignStmt:
			if len(n.Lhs) == len(n.Rhs) && !counters[n] {
				for i, l := range n.Lhs {
					id, _ := l.(*ast.Ident)
					if sel, ok := l.(*ast.SelectorExpr); ok {
						id = sel.Sel
					}
					set(id, n.Rhs[i])
				}
			}
		case *ast.BinaryExpr:
			// attempt >= 5: a limit compared in place.
			switch n.Op {
			case token.LSS, token.LEQ, token.GTR, token.GEQ, token.EQL, token.NEQ:
				for _, side := range [][2]ast.Expr{{n.X, n.Y}, {n.Y, n.X}} {
					if id := identOf(side[0]); id != nil && !longPoll.MatchString(id.Name) && retryName.MatchString(id.Name) &&
						constantNumber(side[1]) && !zeroOrOne(side[1]) {
						add(id.Name, n.Pos())
					}
				}
			}
		case *ast.CallExpr:
			sel, ok := n.Fun.(*ast.SelectorExpr)
			if ok && slices.Contains(sleeps, sel.Sel.Name) && len(n.Args) > 0 && literalDuration(n.Args[0]) {
				add(sel.Sel.Name, n.Pos())
			}
			if ok && sel.Sel.Name == "WithTimeout" && len(n.Args) == 2 && literalDuration(n.Args[1]) {
				add(sel.Sel.Name, n.Pos())
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
					set(id, kv.Value)
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

// identOf is the identifier e names: x, or the field of a.b.x.
func identOf(e ast.Expr) *ast.Ident {
	switch e := e.(type) {
	case *ast.Ident:
		return e
	case *ast.SelectorExpr:
		return e.Sel
	}
	return nil
}

// zeroOrOne reports whether e is the literal 0 or 1: a start, not a limit.
func zeroOrOne(e ast.Expr) bool {
	lit, ok := e.(*ast.BasicLit)
	return ok && (lit.Value == "0" || lit.Value == "1")
}

// literalDuration reports whether e computes a duration from a literal:
// it holds a number literal and one of the time package's units, e.g.
// time.Duration(min(n, 10)) * 50 * time.Millisecond.
func literalDuration(e ast.Expr) bool {
	var lit, unit bool
	ast.Inspect(e, func(n ast.Node) bool {
		switch n := n.(type) {
		case *ast.BasicLit:
			lit = lit || n.Kind == token.INT || n.Kind == token.FLOAT
		case *ast.SelectorExpr:
			unit = unit || constantNumber(n)
		}
		return true
	})
	return lit && unit || constantNumber(e)
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
