package dynamo

import (
	"slices"
	"testing"
)

func TestSplitRemove(t *testing.T) {
	t.Parallel()
	for name, tc := range map[string]struct {
		expr, rest string
		removed    []string
	}{
		"no REMOVE":                                       {"SET a = :a ADD n :one", "SET a = :a ADD n :one", nil},
		"REMOVE after SET":                                {"SET a = :a REMOVE b, #c", "SET a = :a", []string{"b", "#c"}},
		"REMOVE first, lower case":                        {"remove b set a = :a", "set a = :a", []string{"b"}},
		"REMOVE alone":                                    {"REMOVE b", "", []string{"b"}},
		"nested paths stay for minidyn":                   {"SET a = :a REMOVE m.x, b, l[0]", "SET a = :a REMOVE m.x, l[0]", []string{"b"}},
		"only nested paths: unchanged":                    {"REMOVE m.x", "REMOVE m.x", nil},
		"a function's commas are not actions'":            {"SET h = list_append(if_not_exists(h, :e), :h) REMOVE x ADD n :one", "SET h = list_append(if_not_exists(h, :e), :h) ADD n :one", []string{"x"}},
		"an attribute named like a keyword inside a path": {"SET #set = :a REMOVE #remove", "SET #set = :a", []string{"#remove"}},
	} {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			rest, removed := splitRemove(tc.expr)
			if rest != tc.rest || !slices.Equal(removed, tc.removed) {
				t.Errorf("splitRemove(%q) = %q, %q; want %q, %q", tc.expr, rest, removed, tc.rest, tc.removed)
			}
		})
	}
}

func TestOnAbsent(t *testing.T) {
	t.Parallel()
	item := map[string]map[string]any{"set": {"SS": []any{"a"}}, "num": {"N": "1"}, "str": {"S": "abc"}}
	names := map[string]string{"#w": "missing", "#s": "set"}
	for name, tc := range map[string]struct {
		cond, want string
		dropped    []string
	}{
		"contains of a present set is left":          {"NOT contains(#s, :t)", "NOT contains(#s, :t)", nil},
		"contains of an absent attribute is false":   {"attribute_not_exists(#w) OR NOT contains(#w, :t)", "attribute_not_exists(#w) OR NOT attribute_exists(#w)", []string{":t"}},
		"contains of a number is false":              {"contains(num, :t)", "attribute_not_exists(num)", []string{":t"}},
		"contains of a string is left":               {"CONTAINS(str, :t)", "CONTAINS(str, :t)", nil},
		"size of an absent attribute compared":       {"attribute_not_exists(notes) OR size(notes) = :len", "attribute_not_exists(notes) OR attribute_exists(notes)", []string{":len"}},
		"size of a present attribute is left":        {"size(str) > :n", "size(str) > :n", nil},
		"size compared with a path drops no value":   {"size(gone) <= other", "attribute_exists(gone)", nil},
		"an expression without either is left as is": {"a = :a AND (b < :b)", "a = :a AND (b < :b)", nil},
	} {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			got, dropped := onAbsent(tc.cond, names, item)
			if got != tc.want || !slices.Equal(dropped, tc.dropped) {
				t.Errorf("onAbsent(%q) = %q, %q; want %q, %q", tc.cond, got, dropped, tc.want, tc.dropped)
			}
		})
	}
}

func TestTouched(t *testing.T) {
	t.Parallel()
	got := touched("SET a = :a, #b.c = if_not_exists(#b.c, :z) + :one ADD n :one REMOVE x, l[0] DELETE s :v", map[string]string{"#b": "attempts"})
	if want := []string{"a", "attempts", "n", "x", "l", "s"}; !slices.Equal(got, want) {
		t.Errorf("touched = %q, want %q", got, want)
	}
}

func TestMentions(t *testing.T) {
	t.Parallel()
	if !mentions(":t", "a = :t") || mentions(":t", "a = :tt") || mentions("#n", "#nn = :a") || !mentions("#n", "x", "#n = :a") {
		t.Error("mentions matched a placeholder by prefix, or missed a whole one")
	}
}
