package redact

import "strings"

// A query that calls a model from SQL — Snowflake's
// SNOWFLAKE.CORTEX.COMPLETE('model', '…' || body), BigQuery's
// ML.GENERATE_TEXT(MODEL …, (SELECT CONCAT('…', col) AS prompt …)),
// Databricks' ai_query('endpoint', '…'), pgai's openai_chat_complete —
// holds its prompt as string literals among the call's arguments. A
// string literal that is prose (isProse) anywhere inside the parentheses
// of a call whose name says it generates (ModelCallWords, or a name
// whose first word is "ai", "llm" or "cortex") is content
// (docs/design.md "Redaction", 1); the model's name, columns and options
// stay.

// ModelCallWords are words of a SQL function's name that say it asks a
// model for text.
var ModelCallWords = map[string]bool{
	"complete": true, "completion": true, "completions": true, "generate": true,
	"prompt": true, "chat": true, "summarize": true, "summarise": true,
	"translate": true, "gen": true,
}

// findModelCallLiteral finds a prose literal inside a model call's
// arguments.
func findModelCallLiteral(s string, from int) []int {
	for i := from; i < len(s); {
		p := strings.IndexByte(s[i:], '(')
		if p < 0 {
			return nil
		}
		p += i
		i = p + 1
		ns := p
		for ns > 0 && p-ns < 64 && (isWordByte(s[ns-1]) || s[ns-1] == '.') {
			ns--
		}
		if ns == p || !modelCallName(s[ns:p]) {
			continue
		}
		// The arguments to the ')' that closes the call, quotes respected.
		depth := 0
		for k := p + 1; k < len(s) && k-p < maxDecodedBytes; k++ {
			switch s[k] {
			case '(':
				depth++
			case ')':
				depth--
			case '\'':
				e := sqlStringEnd(s, k)
				if e < 0 {
					return nil
				}
				if v := s[k+1 : e]; !startsWithMarker(s, k+1) && isProse(v) {
					return []int{ns, e, -1, -1, k + 1, e}
				}
				k = e
			}
			if depth < 0 {
				break
			}
		}
	}
	return nil
}

// sqlStringEnd returns the quote that closes the SQL string literal
// opening at s[q] (” is an escaped quote), or -1.
func sqlStringEnd(s string, q int) int {
	for j := q + 1; j < len(s); j++ {
		if s[j] == '\'' {
			if j+1 < len(s) && s[j+1] == '\'' {
				j++
				continue
			}
			return j
		}
	}
	return -1
}

// modelCallName reports whether a SQL function's name, its schema's dots
// included, says it asks a model for text.
func modelCallName(name string) bool {
	var buf [12]string
	words := splitWords(name, buf[:0])
	if len(words) == 0 {
		return false
	}
	if words[0] == "ai" || words[0] == "llm" || words[0] == "cortex" {
		return true
	}
	for _, w := range words {
		if ModelCallWords[w] {
			return true
		}
	}
	return false
}
