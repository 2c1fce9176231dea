package localtest_test

import (
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/triagehq/triage/dev/local/localtest"
)

func TestStackName(t *testing.T) {
	t.Parallel()
	valid := regexp.MustCompile(`^[A-Za-z][-A-Za-z0-9]*$`)
	for _, tc := range []struct {
		test string
		seq  int64
		want string
	}{
		{"TestQueues/redrive", 3, "TestQueues-redrive-3"},
		{"TestParse/#00_empty", 1, "TestParse-00-empty-1"},
		{"/--/", 2, "t-2"},
		{"9lives", 1, "t-9lives-1"},
		{strings.Repeat("TestVeryLongName/", 10), 12345, "TestVeryLongName-TestVeryLongName-12345"},
	} {
		got := localtest.StackName(tc.test, tc.seq)
		if got != tc.want {
			t.Errorf("StackName(%q, %d) = %q, want %q", tc.test, tc.seq, got, tc.want)
		}
		if !valid.MatchString(got) || len(got) > 40 {
			t.Errorf("StackName(%q, %d) = %q: not a short valid stack name", tc.test, tc.seq, got)
		}
	}
}

func TestModuleRoot(t *testing.T) {
	t.Parallel()
	root, err := localtest.ModuleRoot()
	if err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(root, "go.mod")); err != nil {
		t.Errorf("ModuleRoot() = %s without go.mod: %v", root, err)
	}
	if got := localtest.TemplatePath(t); got != filepath.Join(root, "template.yaml") {
		t.Errorf("TemplatePath = %s", got)
	}
}

func ExampleStackName() {
	fmt.Println(localtest.StackName("TestRedrive/replays_dead_letters", 7))
	// Output: TestRedrive-replays-dead-letters-7
}
