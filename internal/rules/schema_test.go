package rules_test

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/santhosh-tekuri/jsonschema/v6"
	"go.yaml.in/yaml/v3"

	"github.com/triagehq/triage/dev/schematest"
	"github.com/triagehq/triage/internal/rules"
	"github.com/triagehq/triage/internal/work"
)

// schemaPath is the published format; the bundled file and the examples
// are what operators copy.
var (
	schemaPath  = filepath.Join("..", "..", "docs", "rules.schema.json")
	bundledPath = filepath.Join("..", "..", rules.BundledFile)
	examplePath = filepath.Join("..", "..", "docs", "rules.example.yaml")
)

// schemaValid validates a YAML rules file with the schema, as its JSON.
func schemaValid(t *testing.T, sch *jsonschema.Schema, file string) error {
	t.Helper()
	var v any
	if err := yaml.Unmarshal([]byte(file), &v); err != nil {
		return err
	}
	if v == nil {
		v = map[string]any{}
	}
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatalf("%q as JSON: %v", file, err)
	}
	inst, err := jsonschema.UnmarshalJSON(bytes.NewReader(b))
	if err != nil {
		t.Fatal(err)
	}
	return sch.Validate(inst)
}

// TestShippedFilesMeetTheSchema: the bundled rules.yaml (no rule: it
// changes nothing) and docs/rules.example.yaml are valid for the schema
// and for the loader.
func TestShippedFilesMeetTheSchema(t *testing.T) {
	t.Parallel()
	sch := schematest.Compile(t, schemaPath)
	for path, n := range map[string]int{bundledPath: 0, examplePath: 4} {
		b, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		if err := schemaValid(t, sch, string(b)); err != nil {
			t.Errorf("%s: schema: %v", path, err)
		}
		set, err := rules.Parse(path, b)
		if err != nil {
			t.Errorf("%s: %v", path, err)
			continue
		}
		if set.Len() != n {
			t.Errorf("%s: %d rules, want %d", path, set.Len(), n)
		}
	}
}

// TestSchemaAndLoaderAgree: every file the schema rejects, the loader
// rejects; the loader rejects more only where a JSON Schema cannot say it
// (a pattern that does not compile, a range that runs backwards, a delay
// that is zero or past the cap, a name given twice), each listed here.
func TestSchemaAndLoaderAgree(t *testing.T) {
	t.Parallel()
	sch := schematest.Compile(t, schemaPath)
	rule := func(fields string) string { return "rules:\n  - name: r\n" + fields }
	for name, tc := range map[string]struct {
		file         string
		schema, load bool
	}{
		"every field":         {rule("    description: d\n    provider: [acme, groq]\n    stage: [llm]\n    status: [429, 5xx, 520-530]\n    code: X\n    pattern: (?i)x\n    class: RATE_LIMITED\n    delay: 1m30s\n"), true, true},
		"one field":           {rule("    code: X\n    class: NOT_FOUND\n"), true, true},
		"an integer status":   {rule("    status: 503\n    class: UPSTREAM_UNAVAILABLE\n"), true, true},
		"no rules":            {"rules: []\n", true, true},
		"rules: null":         {"rules:\n", true, true},
		"version 1":           {"version: 1\nrules: []\n", true, true},
		"an empty file":       {"", true, true},
		"unknown field":       {rule("    code: X\n    clas: RATE_LIMITED\n    class: RATE_LIMITED\n"), false, false},
		"unknown class":       {rule("    code: X\n    class: SLOW\n"), false, false},
		"no class":            {rule("    code: X\n"), false, false},
		"no name":             {"rules:\n  - code: X\n    class: RATE_LIMITED\n", false, false},
		"a bad name":          {"rules:\n  - name: a b\n    code: X\n    class: RATE_LIMITED\n", false, false},
		"matches nothing":     {rule("    class: RATE_LIMITED\n"), false, false},
		"a stage in capitals": {rule("    stage: LLM\n    class: RATE_LIMITED\n"), false, false},
		"status 6xx":          {rule("    status: 6xx\n    class: RATE_LIMITED\n"), false, false},
		"status 99":           {rule("    status: 99\n    class: RATE_LIMITED\n"), false, false},
		"status words":        {rule("    status: often\n    class: RATE_LIMITED\n"), false, false},
		"a delay in words":    {rule("    code: X\n    class: RATE_LIMITED\n    delay: soon\n"), false, false},
		"a negative delay":    {rule("    code: X\n    class: RATE_LIMITED\n    delay: -5s\n"), false, false},
		"a version 2":         {"version: 2\nrules: []\n", false, false},
		"a top-level typo":    {"rule: []\n", false, false},
		"an empty code list":  {rule("    code: []\n    class: RATE_LIMITED\n"), false, false},
		"a nested code":       {rule("    code: {a: 1}\n    class: RATE_LIMITED\n"), false, false},
		// beyond a schema
		"a pattern that does not compile": {rule("    pattern: '('\n    class: RATE_LIMITED\n"), true, false},
		"a range backwards":               {rule("    status: 504-500\n    class: RATE_LIMITED\n"), true, false},
		"a zero delay":                    {rule("    code: X\n    class: RATE_LIMITED\n    delay: 0s\n"), true, false},
		"a delay past the cap":            {rule("    code: X\n    class: RATE_LIMITED\n    delay: 9999h\n"), true, false},
		"a name given twice":              {"rules:\n  - name: a\n    code: X\n    class: RATE_LIMITED\n  - name: a\n    code: Y\n    class: RATE_LIMITED\n", true, false},
	} {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			serr := schemaValid(t, sch, tc.file)
			_, lerr := rules.Parse("r.yaml", []byte(tc.file))
			if (serr == nil) != tc.schema {
				t.Errorf("schema valid = %v, want %v: %v", serr == nil, tc.schema, serr)
			}
			if (lerr == nil) != tc.load {
				t.Errorf("loader valid = %v, want %v: %v", lerr == nil, tc.load, lerr)
			}
		})
	}
}

// TestSchemaListsTheClassesAndFields: the schema's class enum is
// work.Classes() and its rule fields are rules.Fields, so neither
// drifts from the code.
func TestSchemaListsTheClassesAndFields(t *testing.T) {
	t.Parallel()
	b, err := os.ReadFile(schemaPath)
	if err != nil {
		t.Fatal(err)
	}
	var doc struct {
		Defs struct {
			Rule struct {
				Properties map[string]struct {
					Enum []string `json:"enum"`
				} `json:"properties"`
			} `json:"rule"`
		} `json:"$defs"`
	}
	if err := json.Unmarshal(b, &doc); err != nil {
		t.Fatal(err)
	}
	var classes []string
	for _, c := range work.Classes() {
		classes = append(classes, string(c))
	}
	if got := doc.Defs.Rule.Properties["class"].Enum; !slices.Equal(got, classes) {
		t.Errorf("schema classes %v, want %v", got, classes)
	}
	var fields []string
	for f := range doc.Defs.Rule.Properties {
		fields = append(fields, f)
	}
	slices.Sort(fields)
	want := slices.Clone(rules.Fields)
	slices.Sort(want)
	if !slices.Equal(fields, want) {
		t.Errorf("schema fields %s, want %s", strings.Join(fields, ","), strings.Join(want, ","))
	}
}
