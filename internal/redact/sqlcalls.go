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
	for p := range byteMarks(s, from, '(') {
		ns := p
		for ns > 0 && p-ns < 64 && (isWord(s[ns-1]) || s[ns-1] == '.') {
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

// An INSERT written out whole — a statement log (PostgreSQL's
// log_min_duration_statement, MySQL's general log), an ORM's echo, an
// error that quotes its statement — names each literal's column: a
// literal under a column the key rules call content (prompt, messages,
// system_prompt, completion) or a credential's (password, api_key) goes by
// that key, as the member of a JSON object would (docs/design.md
// "Redaction", 1).

// findInsertLiteral finds the next literal at or after from of an INSERT
// INTO t (cols) VALUES (…), (…) whose column is content (text true) or a
// credential's (text false).
func findInsertLiteral(s string, from int, text bool) []int {
	for i := from; i < len(s); {
		k := indexFold(s[i:], "insert into ")
		if k < 0 {
			return nil
		}
		at := i + k
		i = at + 1
		rest := s[at+len("insert into ") : min(len(s), at+4096)]
		open := strings.IndexByte(rest, '(')
		if open <= 0 || strings.ContainsAny(rest[:open], "\n;") {
			continue
		}
		cl := strings.IndexByte(rest, ')')
		if cl < open {
			continue
		}
		v := indexFold(rest[cl:], "values")
		if v < 0 || strings.TrimSpace(rest[cl+1:cl+v]) != "" {
			continue
		}
		cols := strings.Split(rest[open+1:cl], ",")
		judge := make([]bool, len(cols))
		any := false
		for c := range cols {
			name := strings.Trim(strings.TrimSpace(cols[c]), "`\"[]")
			r := roleOf(name)
			judge[c] = text && r.text || !text && r.kind != "" && !personal(r.kind)
			any = any || judge[c]
		}
		if !any {
			continue
		}
		p := at + len("insert into ") + cl + v + len("values")
		for t := 0; t < 64; t++ {
			p = skipBlanks(s, p)
			if p >= len(s) || s[p] != '(' {
				break
			}
			p++
			for col := 0; p < len(s) && s[p] != ')'; col++ {
				p = skipBlanks(s, p)
				if p < len(s) && s[p] == '\'' {
					e := sqlStringEnd(s, p)
					if e < 0 {
						return nil
					}
					if col < len(judge) && judge[col] && e > p+1 && p+1 >= from && !startsWithMarker(s, p+1) && !isLiteral(s[p+1:e]) {
						return []int{p + 1, e, -1, -1, p + 1, e}
					}
					p = e + 1
				} else {
					depth := 0
					for p < len(s) && (depth > 0 || s[p] != ',' && s[p] != ')') && s[p] != '\n' {
						switch s[p] {
						case '(':
							depth++
						case ')':
							depth--
						}
						p++
					}
				}
				p = skipBlanks(s, p)
				if p < len(s) && s[p] == ',' {
					p++
				} else if p >= len(s) || s[p] != ')' {
					break
				}
			}
			if p >= len(s) || s[p] != ')' {
				break
			}
			p++
			p = skipBlanks(s, p)
			if p >= len(s) || s[p] != ',' {
				break
			}
			p++
		}
	}
	return nil
}

func findInsertContent(s string, from int) []int    { return findInsertLiteral(s, from, true) }
func findInsertCredential(s string, from int) []int { return findInsertLiteral(s, from, false) }

// A parser's error quotes the input it could not read: Elasticsearch's
// "Preview of field's value: '…'", Java's NumberFormatException "For
// input string: "…"", a validator's "invalid value: '…'". The quoted text
// after a label whose last word names the input — value, input, or
// "input string" — is the item's, and content when it is prose (isProse:
// four words or more); an enum's or a number's echo stays.

// findEchoedInput finds the next quoted prose after such a label.
func findEchoedInput(s string, from int) []int {
	for c := range marks(s, from, ": ") {
		q := c + 2
		if q < len(s) && s[q] == '\\' && q+1 < len(s) && s[q+1] == '"' {
			q++ // an escaped quote, inside a JSON string
		}
		if q >= len(s) || s[q] != '\'' && s[q] != '"' || !echoLabel(s, c) {
			continue
		}
		vs, ve := quotedSpan(s, q)
		if s[q-1] == '\\' && ve > vs && s[ve-1] == '\\' {
			ve--
		}
		if ve <= vs || startsWithMarker(s, vs) || !isProse(s[vs:ve]) {
			continue
		}
		return []int{vs, ve, -1, -1, vs, ve}
	}
	return nil
}

// echoLabel reports whether the words before the colon at s[c] end with
// one naming a parser's input: "value" (also "field's value"), "input",
// "input string".
func echoLabel(s string, c int) bool {
	w := c
	for w > 0 && isLetter(s[w-1]) {
		w--
	}
	last := strings.ToLower(s[w:c])
	switch last {
	case "value", "input":
		return true
	case "string":
		p := w - 1
		for p > 0 && s[p-1] == ' ' {
			p--
		}
		return p >= 5 && strings.EqualFold(s[p-5:p], "input")
	}
	return false
}

// A query that looks a conversation up by what was asked — an SQL agent's
// (MindsDB's `SELECT … FROM agent WHERE input = '…'`), a search over
// stored prompts (`WHERE m.question LIKE '%…%'`) — quotes the question in
// its WHERE clause. A string literal compared (=, LIKE, ILIKE, !=, <>)
// there with a column whose name is a content key (a text key, input,
// question, query) is content when it is prose (isProse); ids, states and
// dates compared with other columns stay.

// findWhereTextLiteral finds a prose literal compared with a content
// column in a WHERE clause, the clause read to its line's end.
func findWhereTextLiteral(s string, from int) []int {
	for i := from; i < len(s); {
		w := indexFold(s[i:], "where ")
		if w < 0 {
			return nil
		}
		w += i
		i = w + len("where ")
		if w > 0 && isWord(s[w-1]) {
			continue
		}
		le := lineEnd(s, i)
		for q := i; q < le; q++ {
			if s[q] != '\'' {
				continue
			}
			// The literal, '' standing for a quote.
			e := q + 1
			for e < le && !(s[e] == '\'' && (e+1 >= le || s[e+1] != '\'')) {
				if s[e] == '\'' {
					e++
				}
				e++
			}
			if e >= le {
				break
			}
			if whereTextColumn(s, i, q) {
				vs, ve := q+1, e
				for vs < ve && s[vs] == '%' {
					vs++
				}
				for ve > vs && s[ve-1] == '%' {
					ve--
				}
				if isProse(s[vs:ve]) && !startsWithMarker(s, vs) {
					return []int{q, e + 1, -1, -1, vs, ve}
				}
			}
			q = e
		}
		i = le // the clause ran to the line's end: later WHEREs on it were read
	}
	return nil
}

// whereTextColumn reports whether the literal opened at s[q] is compared
// with a content column: "col = '", "t.col LIKE '", read back to from.
func whereTextColumn(s string, from, q int) bool {
	p := q
	for p > from && s[p-1] == ' ' {
		p--
	}
	op := p
	for op > from && (isLetter(s[op-1]) || strings.IndexByte("=!<>", s[op-1]) >= 0) {
		op--
	}
	switch strings.ToLower(s[op:p]) {
	case "=", "==", "!=", "<>", "like", "ilike":
	default:
		return false
	}
	p = op
	for p > from && s[p-1] == ' ' {
		p--
	}
	ke := p
	for p > from && (isWord(s[p-1]) || s[p-1] == '"' || s[p-1] == '`') {
		p--
	}
	name := strings.Trim(s[p:ke], "\"`")
	if name == "" {
		return false
	}
	r := roleOf(name)
	nk := normKey(name)
	return r.text || nk == "input" || nk == "question" || nk == "query" || nk == "inputs"
}
