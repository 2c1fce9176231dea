package redact

import (
	"strings"
	"testing"
)

// A content key's string goes in Go's %#v, PHP's var_export and EDN; a
// model's name and other keys' strings stay.
func TestDumpedContent(t *testing.T) {
	for _, c := range []struct{ in, gone, kept string }{
		{`openai.ChatCompletionUserMessageParam{Content:"Summarise the letter for the family."}, Model:"o3-mini"}`, "Summarise the letter", `Model:"o3-mini"`},
		{"array (\n  'model' => 'gpt-4-32k',\n  'content' => 'Translate the supplier\\'s email, flag price increases.',\n)", "Translate the supplier", "'model' => 'gpt-4-32k'"},
		{`{:status 429, :model "gpt-4o-mini", :messages [{:role "user", :content "Here is the board memo: close Leeds."}]}`, "board memo", `:model "gpt-4o-mini"`},
		{`Prompt:"Write a haiku about queues", MaxTokens:64`, "haiku", "MaxTokens:64"},
	} {
		out := String(c.in)
		if strings.Contains(out, c.gone) || !strings.Contains(out, c.kept) {
			t.Errorf("String(%q) = %q, want %q gone and %q kept", c.in, out, c.gone, c.kept)
		}
	}
	wantUnchanged(t,
		`error Code:"rate_limit", Message:"slow down"`,
		`{:status 429 :reason "throttled"}`,
	)
}
