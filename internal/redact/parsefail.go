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
	// A parser that names the answer right before its target type:
	// LangChain4j's `Failed to parse "…" into Plan`, "Cannot parse '…' as
	// JSON", "Unable to parse `…` to Answer". The label ends at the quote.
	"failed to parse \"", "failed to parse '", "failed to parse `",
	"cannot parse \"", "cannot parse '", "unable to parse \"", "unable to parse '",
	"could not parse \"", "could not parse '",
	// A parser that names its target, then where it read the answer:
	// Ragas' "Failed to parse StatementOutput from completion {…}" (the
	// failure's words are the triggers).
	"from completion:", "from completion", "from llm output:", "from model output:",
}

// parseEchoTriggers are the triggers of findParseEcho.
var parseEchoTriggers = []string{
	"invalid json output", "could not parse", "raw output", "raw response", "raw completion",
	"raw_llm_output", "validated_output", "doc:", "failed to parse", "unparseable", "unparsable",
	"validation failed for field", "cannot parse", "unable to parse",
}

// parseEchoTrailers are the sentences a parser writes after the answer it
// quotes (LangChain's troubleshooting link, Ragas' "Got: <validation
// error>"): the answer ends before them.
var parseEchoTrailers = []string{"For troubleshooting, visit:", ". Got: ", " Got: "}

// parseEchoEnd returns where an unquoted answer that starts at vs ends:
// before a parser's trailing sentence on its line; else, when it reaches
// the line's end le, it runs on over the lines after it (a model's answer
// has lines) to a line that starts a trailing sentence, a traceback or a
// stamped log record.
func parseEchoEnd(s string, vs, le int) int {
	for _, t := range parseEchoTrailers {
		if k := strings.Index(s[vs:le], t); k > 0 {
			return vs + k
		}
	}
	for le < len(s) {
		ns := le + 1
		if s[le] == '\r' && ns < len(s) && s[ns] == '\n' {
			ns++
		}
		nle := lineEnd(s, ns)
		if parseEchoStop(s[ns:nle]) {
			break
		}
		le = nle
	}
	for le > vs && isSpace(s[le-1]) {
		le--
	}
	return le
}

// parseEchoStop reports whether a line ends a quoted answer that runs over
// lines: a parser's trailing sentence, a traceback's line, a stamped log
// record, or an exception's head (Name: message, Name being a dotted
// identifier ending in Error or Exception).
func parseEchoStop(line string) bool {
	t := strings.TrimLeft(line, " \t")
	for _, p := range [...]string{"For troubleshooting", "Got:", "Traceback", "File \"", "During handling", "The above exception"} {
		if strings.HasPrefix(t, p) {
			return true
		}
	}
	if len(t) < len(line) && strings.HasPrefix(t, "at ") || stampedRecord(t) {
		return true
	}
	if c := strings.IndexByte(t, ':'); c > 0 {
		h := t[:c]
		if (strings.HasSuffix(h, "Error") || strings.HasSuffix(h, "Exception")) && strings.IndexByte(h, ' ') < 0 {
			return true
		}
	}
	return false
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
		if c := s[i-1]; c == '"' || c == '\'' || c == '`' {
			i-- // the quote opens the answer
		}
		if best > 0 && isWord(s[best-1]) {
			continue
		}
		if hasPrefixFold(s[best:], "from ") {
			// "from completion" counts only after a parse failure on its
			// line: the answer the parser read from.
			if ls := strings.LastIndexAny(s[:best], "\n\r") + 1; indexFold(s[ls:best], "pars") < 0 {
				continue
			}
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
		} else {
			ve = parseEchoEnd(s, vs, le)
		}
		ve = trimLineEnd(s, vs, ve)
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

// A request validator that rejects a parameter's value echoes the value:
// botocore's ParamValidationError ("Invalid type for parameter
// messages[0].content, value: …, type: <class 'str'>, valid types: …"),
// a JSON Schema validator behind a model endpoint (Bedrock's "Malformed
// input request: #/messages/0/content/0/text: string […] does not match
// pattern …"). Under a content key (the path's last name) the value is the
// request's content.

// paramEchoTriggers are the triggers of findParamEcho.
var paramEchoTriggers = []string{"for parameter ", ": string ["}

// findParamEcho finds the value a request validator echoes for a
// parameter whose path ends in a content key: botocore's "value: …" to
// the line's last ", type: <class", a schema validator's "string […]"
// to the "] does not" or "] is not" that closes it.
func findParamEcho(s string, from int) []int {
	nb, nj := -2, -2 // the next of each label at or after i; -1: none left, -2: not looked for
	for i := from; i < len(s); {
		if nb != -1 && nb < i {
			if nb = indexFold(s[i:], "for parameter "); nb >= 0 {
				nb += i
			}
		}
		if nj != -1 && nj < i {
			if nj = strings.Index(s[i:], ": string ["); nj >= 0 {
				nj += i
			}
		}
		if nb < 0 && nj < 0 {
			return nil
		}
		b, j := -1, -1
		if nb >= 0 {
			b = nb - i
		}
		if nj >= 0 {
			j = nj - i
		}
		if b >= 0 && (j < 0 || b < j) {
			ps := i + b + len("for parameter ")
			i = ps
			le := lineEnd(s, ps)
			c := strings.Index(s[ps:le], ", value: ")
			if c < 0 || !contentPath(s[ps:ps+c]) {
				continue
			}
			vs := ps + c + len(", value: ")
			t := strings.LastIndex(s[vs:le], ", type: <")
			if t <= 0 || startsWithMarker(s, vs) {
				continue
			}
			return []int{ps, vs + t, -1, -1, vs, vs + t}
		}
		pe := i + j
		i = pe + len(": string [")
		ps := pe
		for ps > from && s[ps-1] != ' ' && s[ps-1] != '\n' && s[ps-1] != '\t' {
			ps--
		}
		if ps >= pe || s[ps] != '#' || !contentPath(s[ps:pe]) {
			continue
		}
		vs := i
		le := lineEnd(s, vs)
		ve := -1
		for _, end := range [...]string{"] does not", "] is not"} {
			if k := strings.LastIndex(s[vs:le], end); k > 0 && k > ve {
				ve = k
			}
		}
		if ve <= 0 || startsWithMarker(s, vs) {
			continue
		}
		return []int{ps, vs + ve, -1, -1, vs, vs + ve}
	}
	return nil
}

// contentPath reports whether a parameter's path (messages[0].content,
// #/messages/0/content/0/text) ends in a content key, indices aside.
func contentPath(p string) bool {
	for p != "" {
		k := strings.LastIndexAny(p, "./#[")
		name := p[k+1:]
		p = p[:max(k, 0)]
		name = strings.TrimSuffix(name, "]")
		if name == "" || isAllDigits(name) {
			continue
		}
		r := roleOf(name)
		return r.text || r.payload
	}
	return false
}

// A structured-output failure quotes what the model returned, in any
// wording: magentic's "Failed to parse model output '…'", a dataframe
// engine's "validation failed … returned content that does not match it:
// "…"", an application's "structured output parse failed … raw='{…". On a
// line that says a parse or validation failed (answerEchoTriggers), the
// quoted text that follows a word naming the answer (answerNouns) within
// answerNounReach bytes is content: to its closing quote (a quote followed
// by a letter is an apostrophe), or, for a JSON answer cut short with no
// closing quote, to the line's end — every string value of any key in it
// is the model's.

// answerEchoTriggers say, on the answer's line, that a parse or a
// validation failed.
var answerEchoTriggers = []string{
	"failed to parse", "does not match", "validation failed", "parse failed", "parsing failed",
	"structuredoutputerror", "could not be parsed", "cannot be parsed", "failed to validate",
}

// answerNouns name the model's answer; a quote after one opens it.
var answerNouns = []string{"output", "completion", "response", "returned", "raw", "answer", "generation"}

// answerNounReach bounds the words between an answer's noun and its
// opening quote ("returned content that does not match it: \"").
const answerNounReach = 48

// findAnswerEcho finds the answer a structured-output failure quotes.
func findAnswerEcho(s string, from int) []int {
	for i := from; i < len(s); {
		k := -1
		for _, t := range answerEchoTriggers {
			if j := indexFold(s[i:], t); j >= 0 && (k < 0 || i+j < k) {
				k = i + j
			}
		}
		if k < 0 {
			return nil
		}
		ls := strings.LastIndexAny(s[:k], "\n\r") + 1
		le := lineEnd(s, k)
		if loc := answerOnLine(s, max(ls, from), le); loc != nil {
			return loc
		}
		i = le + 1
	}
	return nil
}

// answerOnLine returns the first quoted answer in s[ls:le] after one of
// answerNouns, or nil.
func answerOnLine(s string, ls, le int) []int {
	line := s[ls:le]
	for n := 0; n < len(line); n++ {
		if n > 0 && isAlnum(line[n-1]) {
			continue
		}
		noun := ""
		for _, w := range answerNouns {
			if hasPrefixFold(line[n:], w) {
				noun = w
				break
			}
		}
		if noun == "" {
			continue
		}
		q := strings.IndexAny(line[n+len(noun):], "'\"`")
		if q < 0 {
			return nil
		}
		if q > answerNounReach {
			continue
		}
		qs := n + len(noun) + q
		vs := qs + 1
		ve := answerClose(line, vs, line[qs])
		if ve < 0 {
			if vs >= len(line) || line[vs] != '{' && line[vs] != '[' {
				continue
			}
			ve = len(line) // a JSON answer cut short
		}
		body := line[vs:ve]
		if body == "" || strings.HasPrefix(body, markerPrefix) || strings.HasPrefix(body, "[text ") {
			continue
		}
		if strings.Count(body, " ") < 3 && body[0] != '{' && body[0] != '[' {
			continue
		}
		return []int{ls + vs, ls + ve, -1, -1, ls + vs, ls + ve}
	}
	return nil
}

// answerClose returns where the quote q that opened an answer at line[vs]
// closes: the first q not escaped and not followed by a letter or a digit
// (patient's), or -1.
func answerClose(line string, vs int, q byte) int {
	for j := vs; j < len(line); j++ {
		switch line[j] {
		case '\\':
			j++
		case q:
			if j+1 < len(line) && isAlnum(line[j+1]) {
				continue
			}
			return j
		}
	}
	return -1
}
