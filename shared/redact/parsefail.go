package redact

import "strings"

// A model's answer that a parser rejected is quoted back in the error: a
// JSON decoder's document (`Expecting value … doc: "…"`), a parser's
// "could not parse: '…'", LangChain's "Invalid json output: …", "Raw
// output: '…'", a validator's echo of the value it checked (Guardrails'
// `Validation failed for field … Value '…'`, `raw_llm_output=…`,
// `validated_output=…`). That answer is content.

// parseEchoLabels end right before the echoed answer; they are matched
// in any ASCII case. "doc:" counts only in a JSON decoder's error.
var parseEchoLabels = []string{
	"invalid json output:", "could not parse llm output:", "could not parse:", "could not parse output:",
	"raw output:", "raw output was:", "raw response:", "raw completion:",
	"raw_llm_output=", "raw_llm_output:", "validated_output=", "validated_output:", "doc:",
	"failed to parse:", "unparseable output:", "unparsable output:",
}

// parseEchoTriggers are the triggers of findParseEcho.
var parseEchoTriggers = []string{
	"invalid json output", "could not parse", "raw output", "raw response", "raw completion",
	"raw_llm_output", "validated_output", "doc:", "failed to parse", "unparseable", "unparsable",
	"validation failed for field",
}

// findParseEcho finds the answer quoted after a parse failure's label
// (parseEchoLabels), or after "Value" in a line that says validation
// failed for a field: a quoted value to the line's last matching quote,
// an unquoted one to the line's end — when it reads as prose (three
// spaces at least) or is an object or a list.
func findParseEcho(s string, from int) []int {
	lower := ""
	for i := from; i < len(s); {
		best, blen := -1, 0
		for _, l := range parseEchoLabels {
			if k := indexFold(s[i:], l); k >= 0 && (best < 0 || i+k < best) {
				best, blen = i+k, len(l)
			}
		}
		if v := indexFold(s[i:], "validation failed for field"); v >= 0 && (best < 0 || i+v < best) {
			le := lineEnd(s, i+v)
			if k := strings.Index(s[i+v:le], " Value "); k >= 0 {
				best, blen = i+v+k+1, len("Value ")
			} else if k := strings.Index(s[i+v:le], " value: "); k >= 0 {
				best, blen = i+v+k+1, len("value: ")
			}
		}
		if best < 0 {
			return nil
		}
		i = best + blen
		if best > 0 && isWord(s[best-1]) {
			continue
		}
		if strings.EqualFold(s[best:best+blen], "doc:") {
			if lower == "" {
				lower = strings.ToLower(s)
			}
			if !strings.Contains(lower, "expecting ") && !strings.Contains(lower, "jsondecodeerror") {
				continue
			}
		}
		vs := skipBlanks(s, i)
		le := lineEnd(s, vs)
		if vs >= le {
			continue
		}
		ve := le
		if q := s[vs]; q == '\'' || q == '"' || q == '`' {
			k := strings.LastIndexByte(s[vs+1:le], q)
			if k <= 0 {
				continue
			}
			vs, ve = vs+1, vs+1+k
		}
		for ve > vs && (s[ve-1] == ' ' || s[ve-1] == '\t' || s[ve-1] == '\r') {
			ve--
		}
		body := s[vs:ve]
		if strings.HasPrefix(body, markerPrefix) || strings.HasPrefix(body, "[text ") {
			continue
		}
		if strings.Count(body, " ") < 3 && body[0] != '{' && body[0] != '[' {
			continue
		}
		return []int{vs, ve, -1, -1, vs, ve}
	}
	return nil
}
