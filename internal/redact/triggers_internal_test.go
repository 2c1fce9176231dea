package redact

import "testing"

// TestTriggersFit: every pattern's triggers have a bit of the trigger set
// and every pattern one of the pattern set; past either, patterns would run
// on every text (a silent cost: the 512 triggers of an earlier set once made
// every rule added after them run always).
func TestTriggersFit(t *testing.T) {
	tt := buildTriggers(Patterns)
	if max := len(triggerSet{}) * 64; len(tt.words) >= max {
		t.Errorf("%d distinct triggers, the set holds %d", len(tt.words), max)
	}
	if tt.tooMany {
		t.Errorf("%d patterns, the pattern set holds %d", len(Patterns), len(patternSet{})*64)
	}
	for i, p := range Patterns {
		if len(p.Triggers) > 0 && tt.of[i] == nil {
			t.Errorf("pattern %d (%s) has triggers but runs always", i, p.Kind)
		}
	}
}
