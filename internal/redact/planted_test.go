package redact_test

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"testing"

	"github.com/triagehq/triage/internal/redact"
)

// testdata/planted holds the planted cases redaction is judged on, a
// family a file: secrets in the shapes the world writes them, each with
// the facts beside it that an operator needs (docs/design.md "Redaction").
// A file says what its family is ("about") and lists its cases; a case
// names itself, gives the text, the secrets that must not survive and the
// facts that must, and may carry a note on what its group of cases shows.

// plantedFile is one file of testdata/planted.
type plantedFile struct {
	About string        `json:"about"`
	Cases []plantedCase `json:"cases"`
}

// plantedCase is one case of a plantedFile.
type plantedCase struct {
	Note    string   `json:"note"`
	Name    string   `json:"name"`
	In      string   `json:"in"`
	Secrets []string `json:"secrets"`
	Keep    []string `json:"keep"`
}

// plantedFamilies are the files of testdata/planted and how many cases
// each held when it was written: a file may grow, never shrink.
// TestPlanted judges each, but those judgedElsewhere, by its
// plantedJudges entry or else by String alone.
var plantedFamilies = []struct {
	file  string
	cases int
}{
	{"agent-jobs", 19},
	{"assigned-content", 2},
	{"dump-forms", 8},
	{"fact-shapes", 5},
	{"form-prose", 3},
	{"hash-dumps", 2},
	{"iban-value-ends-where-its-account-ends", 3},
	{"interchange-records", 6},
	{"labelled-dumps", 2},
	{"labelled-fields", 2},
	{"labels-of-more-languages", 10},
	{"link-tokens", 3},
	{"markdown-turns", 3},
	{"model-call-literals", 3},
	{"name-keys", 12},
	{"parties-beside-their-numbers", 7},
	{"password-shapes", 4},
	{"pii18-families", 15},
	{"positional-credentials", 15},
	{"prompt-flags", 4},
	{"prose-not-the-systems", 6},
	{"prompt-shapes", 11},
	{"prose-under-unknown-keys", 7},
	{"public-identifiers-stay", 14},
	{"records", 21},
	{"references-are-no-secrets", 2},
	{"round10-families", 24},
	{"round11-agent-steps", 4},
	{"round11-personal", 12},
	{"round11-secrets", 4},
	{"round12-prompts", 10},
	{"round12-secrets", 8},
	{"round13-personal", 3},
	{"round13-prompts", 3},
	{"round13-secrets", 12},
	{"round14-families", 14},
	{"round15-families", 18},
	{"round16-families", 18},
	{"round17-families", 16},
	{"round21-facts", 11},
	{"round21-secret-families", 30},
	{"round9-families", 4},
	{"rows-by-their-columns", 8},
	{"rows-under-their-header", 11},
	{"round29-families", 20},
	{"round31-families", 24},
	{"round32-families", 47},
	{"secrets-in-context", 66},
	{"street-addresses-in-prose", 4},
	{"summaries", 3},
	{"wire-and-table-credentials", 10},
	{"written-variants", 5},
	{"xmlrpc-credential", 3},
}

// judgedElsewhere are the families that tests of their own judge:
// TestStringRemovesPlantedSecrets and TestJSONRemovesPlantedSecrets.
var judgedElsewhere = map[string]bool{"secrets-in-context": true}

// plantedJudges judge the families that String alone does not: by a
// second pass of String too, or by JSON and Value as well.
var plantedJudges = map[string]func(t *testing.T, c planted){
	// Agent frameworks' transcripts, job queues' arguments and secrets
	// deep in a URL's path; runs of words that are no system's.
	"agent-jobs":            stringOnce,
	"prose-not-the-systems": stringOnce,
	// Names, addresses and numbers by the record they stand in, in text
	// and in JSON documents.
	"records": func(t *testing.T, c planted) { c.everyWay(t, false) },
	// Free text under keys that say nothing of it, in text, in JSON
	// documents and in decoded values.
	"prose-under-unknown-keys": func(t *testing.T, c planted) { c.everyWay(t, true) },
	// Personal keys of more languages, in text and in JSON documents.
	"round29-families": func(t *testing.T, c planted) { c.everyWay(t, false) },
	// A summary beside the content it summarizes, in text and in JSON
	// documents; in a decoded value, whose output is compact JSON, only
	// the secrets are sought.
	"summaries": func(t *testing.T, c planted) {
		c.everyWay(t, false)
		if json.Valid([]byte(c.in)) {
			planted{secrets: c.secrets}.check(t, "Value", valueOf(t, c.in))
		}
	},
}

// plantedCases are the cases of one family of testdata/planted; a family
// plantedFamilies does not list, or a file with fewer cases than it says,
// fails t.
func plantedCases(t testing.TB, family string) []planted {
	t.Helper()
	for _, fam := range plantedFamilies {
		if fam.file != family {
			continue
		}
		cases := readPlanted(t, "testdata/planted/"+family+".json")
		if len(cases) < fam.cases {
			t.Fatalf("%s: %d cases, want at least %d", family, len(cases), fam.cases)
		}
		return cases
	}
	t.Fatalf("no family %s in plantedFamilies", family)
	return nil
}

// readPlanted reads the cases of one file of testdata/planted; a file that
// is missing, is not one JSON document of the plantedFile shape, or holds
// a case without a name, a text or anything to judge fails t.
func readPlanted(t testing.TB, path string) []planted {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	cases, err := decodePlanted(data)
	if err != nil {
		t.Fatalf("%s: %v", path, err)
	}
	return cases
}

func decodePlanted(data []byte) ([]planted, error) {
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	var f plantedFile
	if err := dec.Decode(&f); err != nil {
		return nil, err
	}
	if dec.More() {
		return nil, errors.New("more than one JSON document")
	}
	if f.About == "" || len(f.Cases) == 0 {
		return nil, errors.New("a file says what its family is and holds at least one case")
	}
	seen := map[string]bool{}
	out := make([]planted, 0, len(f.Cases))
	for i, c := range f.Cases {
		switch {
		case c.Name == "" || c.In == "":
			return nil, fmt.Errorf("case %d: a case has a name and a text", i+1)
		case len(c.Secrets) == 0 && len(c.Keep) == 0:
			return nil, fmt.Errorf("%s: a case names a secret or a fact to judge", c.Name)
		case seen[c.Name]:
			return nil, fmt.Errorf("%s: two cases of one name", c.Name)
		}
		seen[c.Name] = true
		out = append(out, planted{name: c.Name, in: c.In, secrets: c.Secrets, keep: c.Keep})
	}
	return out, nil
}

// stringOnce judges c by String, and wants a second pass to leave String's
// output as it is.
func stringOnce(t *testing.T, c planted) {
	out := redact.String(c.in)
	c.check(t, "String", out)
	if again := redact.String(out); again != out {
		t.Errorf("not idempotent\n once: %s\ntwice: %s", out, again)
	}
}

// TestPlanted judges each case of each family in testdata/planted but
// those judgedElsewhere: its secrets gone, its facts kept.
func TestPlanted(t *testing.T) {
	t.Parallel()
	files, err := filepath.Glob("testdata/planted/*.json")
	if err != nil {
		t.Fatal(err)
	}
	listed := map[string]bool{}
	for _, fam := range plantedFamilies {
		listed["testdata/planted/"+fam.file+".json"] = true
	}
	for _, f := range files {
		if !listed[f] {
			t.Errorf("%s is not in plantedFamilies", f)
		}
	}
	for _, fam := range plantedFamilies {
		if judgedElsewhere[fam.file] {
			continue
		}
		judge := plantedJudges[fam.file]
		if judge == nil {
			judge = func(t *testing.T, c planted) { c.check(t, "String", redact.String(c.in)) }
		}
		t.Run(fam.file, func(t *testing.T) {
			t.Parallel()
			for _, c := range plantedCases(t, fam.file) {
				t.Run(c.name, func(t *testing.T) {
					t.Parallel()
					judge(t, c)
				})
			}
		})
	}
}

// TestPlantedRefusesMalformedFiles: a file that would let a case pass
// unjudged is an error, not an empty family.
func TestPlantedRefusesMalformedFiles(t *testing.T) {
	t.Parallel()
	for name, doc := range map[string]string{
		"empty":            ``,
		"no cases":         `{"about": "x", "cases": []}`,
		"no about":         `{"cases": [{"name": "a", "in": "b", "keep": ["b"]}]}`,
		"unknown field":    `{"about": "x", "cases": [{"name": "a", "in": "b", "secret": ["b"]}]}`,
		"nothing to judge": `{"about": "x", "cases": [{"name": "a", "in": "b"}]}`,
		"no text":          `{"about": "x", "cases": [{"name": "a", "keep": ["b"]}]}`,
		"a name twice":     `{"about": "x", "cases": [{"name": "a", "in": "b", "keep": ["b"]}, {"name": "a", "in": "c", "keep": ["c"]}]}`,
		"two documents":    `{"about": "x", "cases": [{"name": "a", "in": "b", "keep": ["b"]}]} {}`,
		"cut short":        `{"about": "x", "cases": [{"name": "a", "in": "b", "keep": ["b"]}`,
	} {
		if cases, err := decodePlanted([]byte(doc)); err == nil {
			t.Errorf("%s: read %d cases, want an error", name, len(cases))
		}
	}
}
