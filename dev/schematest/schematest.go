// Package schematest compiles the JSON Schemas published under docs/ with
// an independent validator, for the tests that hold a schema and the code
// that reads the same documents to one verdict.
package schematest

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/santhosh-tekuri/jsonschema/v6"
)

// Compile compiles the schema at path with format assertions on, so a
// "format" such as "uri" is checked as the code checks it; t fails at once
// when the file does not read or compile.
func Compile(t testing.TB, path string) *jsonschema.Schema {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	doc, err := jsonschema.UnmarshalJSON(f)
	if err != nil {
		t.Fatalf("%s: %v", path, err)
	}
	c := jsonschema.NewCompiler()
	c.AssertFormat()
	name := filepath.Base(path)
	if err := c.AddResource(name, doc); err != nil {
		t.Fatal(err)
	}
	sch, err := c.Compile(name)
	if err != nil {
		t.Fatalf("compile %s: %v", path, err)
	}
	return sch
}
