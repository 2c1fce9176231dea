package triage_test

import (
	"os"
	"strings"
	"testing"
)

// TestReadmeShowsTheExample: the README's inline path is Example's body,
// line for line, so the lines a user copies compile.
func TestReadmeShowsTheExample(t *testing.T) {
	readme, err := os.ReadFile("README.md")
	if err != nil {
		t.Fatal(err)
	}
	src, err := os.ReadFile("example_test.go")
	if err != nil {
		t.Fatal(err)
	}
	_, sec, ok := strings.Cut(string(readme), "## The inline path\n")
	_, block, ok2 := strings.Cut(sec, "```go\n")
	block, _, ok3 := strings.Cut(block, "```")
	_, body, ok4 := strings.Cut(string(src), "\nfunc Example() {\n")
	if !ok || !ok2 || !ok3 || !ok4 {
		t.Fatal("README's inline path section or Example not found")
	}
	want := strings.Split(strings.TrimSuffix(block, "\n"), "\n")
	if len(want) > 10 {
		t.Errorf("the README's inline path is %d lines, more than ten", len(want))
	}
	lines := strings.Split(body, "\n")
	for i, l := range lines {
		indent, ok := strings.CutSuffix(l, want[0])
		if !ok || strings.Trim(indent, "\t") != "" {
			continue
		}
		for j, w := range want {
			if i+j >= len(lines) || lines[i+j] != indent+w {
				t.Fatalf("README line %d %q; Example has %q", j+1, w, lines[min(i+j, len(lines)-1)])
			}
		}
		return
	}
	t.Fatalf("Example has no line %q", want[0])
}

// TestReadmePointsAtTheExamples: where the README's inline path sends a
// reader for its runnable examples holds them (go doc prints no examples).
func TestReadmePointsAtTheExamples(t *testing.T) {
	readme, err := os.ReadFile("README.md")
	if err != nil {
		t.Fatal(err)
	}
	_, sec, _ := strings.Cut(string(readme), "## The inline path\n")
	sec, _, _ = strings.Cut(sec, "\n## ")
	_, at, ok := strings.Cut(sec, "Runnable examples: ")
	at, _, ok2 := strings.Cut(at, ",")
	if !ok || !ok2 {
		t.Fatal("the README's inline path says nowhere where its runnable examples are")
	}
	_, file, ok := strings.Cut(at, "](")
	file, _, ok2 = strings.Cut(file, ")")
	if !ok || !ok2 {
		t.Fatalf("the README sends a reader to %q for its runnable examples, which is no file", at)
	}
	src, err := os.ReadFile(file)
	if err != nil || !strings.Contains(string(src), "\nfunc Example") {
		t.Fatalf("the README sends a reader to %s for its runnable examples: %v", file, err)
	}
}
