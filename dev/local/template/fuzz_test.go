package template_test

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"testing"

	"github.com/triagehq/triage/dev/local/template"
)

// FuzzParse feeds arbitrary documents through Parse and, for those that
// parse, through the Resolver: errors are fine, panics and hangs are not.
func FuzzParse(f *testing.F) {
	if b, err := os.ReadFile(filepath.Join("..", "..", "..", "template.yaml")); err == nil {
		f.Add(b)
	}
	for _, s := range []string{
		"Resources: {R: {Type: X, Properties: {V: !Sub [\"${A}\", {A: !GetAtt Q.Arn}]}}}",
		"Conditions: {C: !Equals [a, a]}\nResources: {R: {Type: X, Properties: {V: !If [C, !Ref AWS::NoValue, [1]]}}}",
		"a: &a [x, x]\nb: &b [*a, *a]\nResources: {R: {Type: X, Properties: {V: *b}}}",
		"Resources: {F: {Type: AWS::Serverless::Function, Properties: {Environment: {Variables: {A: !Select [9, !Split [',', '']]}}}}}",
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, src []byte) {
		tpl, err := template.Parse(src)
		if err != nil {
			return
		}
		r, err := template.NewResolver(tpl, template.ResolverConfig{Pseudo: template.Pseudo{StackName: "s"}})
		if err != nil {
			return
		}
		for _, fn := range tpl.Functions() {
			_, _ = r.ResolveEnv(fn)
		}
		for _, res := range tpl.Resources {
			_, _ = r.Resolve(res.Properties)
		}
		for _, o := range tpl.Outputs {
			_, _ = r.String(o.Value)
		}
	})
}

func TestAliasBomb(t *testing.T) {
	t.Parallel()
	src := "a: &a [x, x, x, x, x, x, x, x, x, x]\n"
	prev := "a"
	for _, n := range []string{"b", "c", "d", "e", "f", "g", "h"} {
		src += n + ": &" + n + " [*" + prev + ", *" + prev + ", *" + prev + ", *" + prev + ", *" + prev + ", *" + prev + ", *" + prev + ", *" + prev + ", *" + prev + ", *" + prev + "]\n"
		prev = n
	}
	src += "Resources: {R: {Type: X, Properties: {V: *h}}}\n"
	if _, err := template.Parse([]byte(src)); err == nil {
		t.Fatal("a document of 10^8 values parsed")
	}
}

func TestConditions(t *testing.T) {
	t.Parallel()
	// A chain where every condition uses the previous one twice: evaluated
	// once each, not 2^n times.
	chain := "Conditions:\n  C0: !Equals [a, a]\n"
	for i := 1; i <= 15; i++ {
		chain += fmt.Sprintf("  C%d: !And [!Condition C%d, !Condition C%d]\n", i, i-1, i-1)
	}
	tests := map[string]struct {
		src  string
		want string // "" for an *UnresolvedError
	}{
		"chain":       {chain + "Resources: {R: {Type: X, Properties: {V: !If [C15, yes, no]}}}\n", "yes"},
		"cycle":       {"Conditions: {A: !Condition B, B: !Condition A}\nResources: {R: {Type: X, Properties: {V: !If [A, yes, no]}}}\n", ""},
		"not boolean": {"Conditions: {A: text}\nResources: {R: {Type: X, Properties: {V: !If [A, yes, no]}}}\n", ""},
		"or of nots":  {"Conditions: {A: !Or [!Not [!Equals [1, 1]], !Equals [!Ref AWS::Region, us-east-1]]}\nResources: {R: {Type: X, Properties: {V: !If [A, yes, no]}}}\n", "yes"},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			tpl := parse(t, tc.src)
			got, err := resolver(t, tpl, nil).String(tpl.Resources["R"].Properties["V"])
			if tc.want == "" {
				if !errors.Is(err, template.ErrUnresolved) {
					t.Errorf("got %q, %v; want an unresolved error", got, err)
				}
				return
			}
			if err != nil || got != tc.want {
				t.Errorf("got %q, %v; want %q", got, err, tc.want)
			}
		})
	}
}
