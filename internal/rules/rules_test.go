package rules_test

import (
	"context"
	"errors"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/ssm"
	ssmtypes "github.com/aws/aws-sdk-go-v2/service/ssm/types"

	"github.com/triagehq/triage/internal/failure"
	"github.com/triagehq/triage/internal/rules"
	"github.com/triagehq/triage/internal/work"
)

// TestParseErrorsNameTheLine: every bad rule fails the file with its line
// and the reason — all of them at once, in line order — and no file with
// a bad rule yields a Set.
func TestParseErrorsNameTheLine(t *testing.T) {
	t.Parallel()
	for name, tc := range map[string]struct {
		file string
		want []string // "LINE: fragment", in order
	}{
		"unknown field": {"rules:\n  - name: a\n    code: X\n    clas: RATE_LIMITED\n",
			[]string{`2: rule "a": the rule names no class`, `4: rule "a": unknown field "clas"`}},
		"unknown class":         {"rules:\n  - name: a\n    code: X\n    class: SLOW\n", []string{`4: rule "a": class "SLOW" is not one of RATE_LIMITED`}},
		"a class in lower case": {"rules:\n  - name: a\n    code: X\n    class: rate_limited\n", []string{`4: rule "a": class "rate_limited"`}},
		"bad regexp": {"rules:\n  - name: a\n    pattern: 'rate (limit'\n    class: RATE_LIMITED\n",
			[]string{`3: rule "a": pattern does not compile: missing closing )`}},
		"bad status range": {"rules:\n  - name: a\n    status: [429, 6xx, 504-500, abc]\n    class: RATE_LIMITED\n",
			[]string{`3: rule "a": status "6xx"`, `3: rule "a": status "504-500"`, `3: rule "a": status "abc"`}},
		"bad delay": {"rules:\n  - name: a\n    code: X\n    class: RATE_LIMITED\n    delay: soon\n",
			[]string{`5: rule "a": delay "soon": not a duration`}},
		"negative delay": {"rules:\n  - name: a\n    code: X\n    class: RATE_LIMITED\n    delay: -5s\n",
			[]string{`5: rule "a": delay "-5s": not a positive duration`}},
		"a delay past the cap": {"rules:\n  - name: a\n    code: X\n    class: RATE_LIMITED\n    delay: 9999h\n",
			[]string{`5: rule "a": delay "9999h": longer than 720h`}},
		"bad stage":       {"rules:\n  - name: a\n    stage: LLM\n    class: RATE_LIMITED\n", []string{`3: rule "a": stage "LLM" is not one of fetch, llm, notify`}},
		"matches nothing": {"rules:\n  - name: a\n    class: RATE_LIMITED\n", []string{`2: rule "a": the rule matches on nothing`}},
		"no name":         {"rules:\n  - code: X\n    class: RATE_LIMITED\n", []string{`2: the rule has no name`}},
		"a name with spaces": {"rules:\n  - name: my rule\n    code: X\n    class: RATE_LIMITED\n",
			[]string{`2: name "my rule" is not 1 to 64`}},
		"a name taken": {"rules:\n  - name: a\n    code: X\n    class: RATE_LIMITED\n  - name: a\n    code: Y\n    class: NOT_FOUND\n",
			[]string{`5: rule "a": the name is taken by the rule at line 2`}},
		"a field twice":     {"rules:\n  - name: a\n    code: X\n    code: Y\n    class: RATE_LIMITED\n", []string{`4: field "code" is given twice`}},
		"not YAML":          {"rules:\n  - name: a\n    code: X: Y\n", []string{`3: not YAML: mapping values are not allowed`}},
		"a rule not a map":  {"rules:\n  - just a string\n", []string{`2: a rule is a mapping of fields`}},
		"rules not a list":  {"rules: yes\n", []string{`1: "rules" is a value`}},
		"unknown top field": {"rule:\n  - name: a\n", []string{`1: unknown field "rule"`}},
		"a future version":  {"version: 2\nrules: []\n", []string{`1: version "2" is not 1`}},
		"a nested value":    {"rules:\n  - name: a\n    code: {x: 1}\n    class: RATE_LIMITED\n", []string{`3: rule "a": code is a mapping`}},
		"an empty list":     {"rules:\n  - name: a\n    code: []\n    class: RATE_LIMITED\n", []string{`3: rule "a": code is a list of 0 values`}},
		"two bad rules, both": {"rules:\n  - name: a\n    code: X\n    class: NOPE\n  - name: b\n    pattern: '('\n    class: RATE_LIMITED\n",
			[]string{`4: rule "a": class "NOPE"`, `6: rule "b": pattern does not compile`}},
		"too large": {"rules: []\n#" + strings.Repeat("x", rules.MaxFileBytes), []string{`bytes, more than the`}},
	} {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			set, err := rules.Parse("rules.yaml", []byte(tc.file))
			if err == nil {
				t.Fatalf("parsed: %d rules", set.Len())
			}
			if set != nil {
				t.Errorf("a Set with a bad rule left out: %d rules", set.Len())
			}
			var le *rules.LineError
			if !errors.As(err, &le) || le.Source != "rules.yaml" {
				t.Errorf("not a *LineError of rules.yaml: %T %v", err, err)
			}
			lines := strings.Split(err.Error(), "\n")
			if len(lines) != len(tc.want) {
				t.Fatalf("%d errors, want %d:\n%s", len(lines), len(tc.want), err)
			}
			for i, want := range tc.want {
				if num, frag, ok := strings.Cut(want, ": "); ok && strings.IndexFunc(num, func(r rune) bool { return r < '0' || r > '9' }) < 0 {
					if !strings.HasPrefix(lines[i], "rules.yaml:"+num+": ") || !strings.Contains(lines[i], frag) {
						t.Errorf("error %d = %q, want line %s and %q", i, lines[i], num, frag)
					}
				} else if !strings.Contains(lines[i], want) {
					t.Errorf("error %d = %q, want %q", i, lines[i], want)
				}
			}
		})
	}
}

// TestParseReadsEveryField: a rule's fields as written, a list's values
// and YAML's own spellings (an integer status, an anchor) included; an
// empty file and a file of comments are no rules.
func TestParseReadsEveryField(t *testing.T) {
	t.Parallel()
	set, err := rules.Parse("r.yaml", []byte(`
version: 1
rules:
  - name: first
    description: a note
    provider: [Together-AI, acme]
    stage: [llm, notify]
    status: [429, 5xx, 520-530]
    code: &codes [E_SLOW, e_busy]
    pattern: (?i)slow down
    class: RATE_LIMITED
    delay: 1m30s
  - name: second
    code: *codes
    class: UPSTREAM_UNAVAILABLE
`))
	if err != nil {
		t.Fatal(err)
	}
	if set.Len() != 2 {
		t.Fatalf("%d rules", set.Len())
	}
	r := set.Rules[0]
	if r.Name != "first" || r.Line != 4 || r.Description != "a note" || strings.Join(r.Providers, ",") != "togetherai,acme" ||
		len(r.Stages) != 2 || r.Stages[1] != work.Notify || len(r.Statuses) != 3 ||
		r.Statuses[1] != (failure.StatusRange{From: 500, To: 599}) || r.Statuses[2] != (failure.StatusRange{From: 520, To: 530}) ||
		r.Pattern == nil || r.Class != work.RateLimited || r.Delay != 90*time.Second {
		t.Errorf("first rule: %+v", r)
	}
	if strings.Join(set.Rules[1].Codes, ",") != "E_SLOW,e_busy" || set.Rules[1].Line != 13 {
		t.Errorf("second rule: %+v", set.Rules[1])
	}
	for _, empty := range []string{"", "# nothing yet\n", "rules:\n", "version: 1\nrules: []\n"} {
		if set, err := rules.Parse("r.yaml", []byte(empty)); err != nil || set.Len() != 0 {
			t.Errorf("%q: %v, %d rules", empty, err, set.Len())
		}
	}
}

const rulesFile = `
rules:
  - name: acme-slowdown
    provider: acme
    code: E_SLOWDOWN
    class: RATE_LIMITED
    delay: 45s
  - name: quota-is-a-rate-here
    provider: openai
    code: insufficient_quota
    class: RATE_LIMITED
  - name: fetch-4xx-bot-wall
    stage: fetch
    status: 4xx
    pattern: (?i)are you a robot
    class: AUTH_DENIED
  - name: any-fetch-gone
    stage: fetch
    status: 404
    class: UPSTREAM_UNAVAILABLE
  - name: notify-throttled
    stage: notify
    pattern: tenant throttled
    class: RATE_LIMITED
`

func setup(t *testing.T) *rules.Set {
	t.Helper()
	set, err := rules.Parse("rules.yaml", []byte(rulesFile))
	if err != nil {
		t.Fatal(err)
	}
	return set
}

// TestRuleBeatsTheTables: a rule decides before every built-in table (a
// code, a phrase, a status), first match wins, its delay is the delay,
// its reason names it, and a failure no rule matches gets the tables'
// class; the process's stage stands in for a failure that names none.
func TestRuleBeatsTheTables(t *testing.T) {
	t.Parallel()
	set := setup(t)
	quota := `{"error":{"message":"You exceeded your current quota, please check your plan and billing details.","type":"insufficient_quota","code":"insufficient_quota"}}`
	for name, tc := range map[string]struct {
		err   error
		stage work.Stage
		want  work.Class
		rule  string
		delay time.Duration
	}{
		"a vendor's code": {err: &failure.HTTPError{Provider: "acme", Stage: work.LLM, Status: 400, Body: []byte(`{"error":{"code":"E_SLOWDOWN","message":"x"}}`),
			Header: http.Header{"Retry-After": {"5"}}}, want: work.RateLimited, rule: "acme-slowdown", delay: 45 * time.Second},
		"a rule beats a definite code": {err: &failure.HTTPError{Provider: failure.OpenAI, Stage: work.LLM, Status: 429, Body: []byte(quota)},
			want: work.RateLimited, rule: "quota-is-a-rate-here"},
		"the same code from another provider": {err: &failure.HTTPError{Provider: "groq", Stage: work.LLM, Status: 429, Body: []byte(quota)},
			want: work.BudgetExceeded},
		"the first of two that match": {err: &failure.HTTPError{Provider: failure.HTTP, Stage: work.Fetch, Status: 404, Body: []byte("<h1>Are you a robot?</h1>")},
			want: work.AuthDenied, rule: "fetch-4xx-bot-wall"},
		"the second when the first does not": {err: &failure.HTTPError{Provider: failure.HTTP, Stage: work.Fetch, Status: 404, Body: []byte("<h1>Gone</h1>")},
			want: work.UpstreamUnavailable, rule: "any-fetch-gone"},
		"a status outside the range": {err: &failure.HTTPError{Provider: failure.HTTP, Stage: work.Fetch, Status: 503, Body: []byte("Are you a robot?")},
			want: work.UpstreamUnavailable},
		"the process's stage for a failure of none": {err: errors.New("webhook call: tenant throttled"), stage: work.Notify,
			want: work.RateLimited, rule: "notify-throttled"},
		"another process's stage": {err: errors.New("webhook call: tenant throttled"), stage: work.Fetch, want: work.RateLimited},
	} {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			s := *set
			s.Stage = tc.stage
			c := failure.ClassifyWith(&s, tc.err)
			if c.Class != tc.want {
				t.Fatalf("class = %s (%s), want %s", c.Class, c.Reason, tc.want)
			}
			if tc.rule == "" {
				if strings.HasPrefix(c.Reason, "rule ") {
					t.Errorf("no rule should match: %s", c.Reason)
				}
				if b := failure.Classify(tc.err); b.Class != c.Class {
					t.Errorf("the tables say %s, with the rules %s", b.Class, c.Class)
				}
				return
			}
			if c.Reason != "rule "+tc.rule || c.Default || c.Retryable != tc.want.Traits().Retryable || c.Counts != tc.want.Traits().Counts {
				t.Errorf("classification %+v", c)
			}
			if tc.delay != 0 && c.Requested.Delay != tc.delay {
				t.Errorf("delay %s, want %s", c.Requested.Delay, tc.delay)
			}
		})
	}
}

// fakeSSM serves one parameter.
type fakeSSM struct {
	name, value string
	calls       int
}

func (f *fakeSSM) GetParameter(_ context.Context, in *ssm.GetParameterInput, _ ...func(*ssm.Options)) (*ssm.GetParameterOutput, error) {
	f.calls++
	if aws.ToString(in.Name) != f.name {
		return nil, &ssmtypes.ParameterNotFound{Message: aws.String("not found")}
	}
	return &ssm.GetParameterOutput{Parameter: &ssmtypes.Parameter{Name: in.Name, Value: aws.String(f.value)}}, nil
}

// TestLoad: the parameter, when named, is the rules (the file is not
// read); else the bundled file; a missing file is no rules; a parameter
// that cannot be read or a bad rule anywhere fails with its source and
// line.
func TestLoad(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	good := filepath.Join(dir, "rules.yaml")
	if err := os.WriteFile(good, []byte(rulesFile), 0o600); err != nil {
		t.Fatal(err)
	}
	bad := filepath.Join(dir, "bad.yaml")
	if err := os.WriteFile(bad, []byte("rules:\n  - name: x\n    code: X\n    class: NOPE\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	params := &fakeSSM{name: "/triage/rules", value: "rules:\n  - name: from-ssm\n    code: X\n    class: NOT_FOUND\n"}
	ctx := context.Background()
	for name, tc := range map[string]struct {
		src     rules.Source
		n       int
		source  string
		wantErr string
	}{
		"the bundled file":              {src: rules.Source{File: good, Stage: work.LLM}, n: 5, source: good},
		"no file deployed":              {src: rules.Source{File: filepath.Join(dir, "none.yaml")}, n: 0},
		"nothing configured":            {src: rules.Source{}, n: 0},
		"the parameter, not the file":   {src: rules.Source{Parameter: "/triage/rules", File: good}, n: 1, source: "ssm:/triage/rules"},
		"a bad file":                    {src: rules.Source{File: bad}, wantErr: bad + `:4: rule "x": class "NOPE"`},
		"a parameter that is not there": {src: rules.Source{Parameter: "/triage/other", File: good}, wantErr: "rules ssm:/triage/other: "},
	} {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			set, err := rules.Load(ctx, tc.src, params)
			if tc.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tc.wantErr) {
					t.Fatalf("err = %v, want %q", err, tc.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if set.Len() != tc.n || set.Source != tc.source || set.Stage != tc.src.Stage {
				t.Errorf("%d rules from %q at %q", set.Len(), set.Source, set.Stage)
			}
		})
	}
}

// TestInstall puts the rules in front of every classification of the
// process and takes them away when there are none. It changes the
// process's rule, so it does not run in parallel.
func TestInstall(t *testing.T) {
	prev := failure.OperatorRule()
	t.Cleanup(func() { failure.SetOperatorRule(prev) })
	dir := t.TempDir()
	path := filepath.Join(dir, "rules.yaml")
	if err := os.WriteFile(path, []byte(rulesFile), 0o600); err != nil {
		t.Fatal(err)
	}
	set, err := rules.Install(context.Background(), rules.Source{File: path, Stage: work.Notify}, nil)
	if err != nil || set.Len() != 5 {
		t.Fatalf("install: %v (%d rules)", err, set.Len())
	}
	wrapped := failure.Mark(errors.New("POST webhook: tenant throttled"))
	if c := failure.Classify(wrapped); c.Reason != "rule notify-throttled" {
		t.Errorf("installed rules not used: %+v", c)
	}
	if _, err := rules.Install(context.Background(), rules.Source{File: filepath.Join(dir, "none.yaml")}, nil); err != nil {
		t.Fatal(err)
	}
	if failure.OperatorRule() != failure.Rule(set) {
		t.Error("a process with no rules changed the installed ones")
	}
	bad := filepath.Join(dir, "bad.yaml")
	if err := os.WriteFile(bad, []byte("rules:\n  - name: x\n    pattern: '('\n    class: RATE_LIMITED\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	_, err = rules.ForFunction(context.Background(), rules.Source{File: bad}, aws.Config{}, nil)
	if err == nil || !strings.Contains(err.Error(), "classification rules: "+bad+`:3: rule "x": pattern does not compile`) {
		t.Errorf("a bad rule at start: %v", err)
	}
}
