package dynamo

import (
	"strings"
	"unicode"
)

// token is one lexeme of an expression, with its place in the text.
type token struct {
	text       string
	start, end int
	depth      int // parentheses and brackets open before it
}

// lex splits an expression into names (#n), values (:v), identifiers,
// numbers and single punctuation characters; comparison operators of two
// characters stay one token. It does not validate: minidyn parses the
// expression and reports its errors.
func lex(expr string) []token {
	var out []token
	depth := 0
	for i := 0; i < len(expr); {
		c := rune(expr[i])
		switch {
		case unicode.IsSpace(c):
			i++
			continue
		case c == '#' || c == ':' || c == '_' || unicode.IsLetter(c) || unicode.IsDigit(c):
			j := i + 1
			for j < len(expr) && (expr[j] == '_' || expr[j] == '-' && c == '#' || unicode.IsLetter(rune(expr[j])) || unicode.IsDigit(rune(expr[j]))) {
				j++
			}
			out = append(out, token{text: expr[i:j], start: i, end: j, depth: depth})
			i = j
			continue
		case c == '(' || c == '[':
			out = append(out, token{text: string(c), start: i, end: i + 1, depth: depth})
			depth++
			i++
			continue
		case c == ')' || c == ']':
			depth--
			out = append(out, token{text: string(c), start: i, end: i + 1, depth: depth})
			i++
			continue
		}
		j := i + 1
		if j < len(expr) && (expr[i:j+1] == "<=" || expr[i:j+1] == ">=" || expr[i:j+1] == "<>") {
			j++
		}
		out = append(out, token{text: expr[i:j], start: i, end: j, depth: depth})
		i = j
	}
	return out
}

// clauseKeyword is an update expression's clause keyword, upper-cased, or
// "" for any other token.
func clauseKeyword(t token) string {
	if t.depth != 0 {
		return ""
	}
	switch k := strings.ToUpper(t.text); k {
	case "SET", "REMOVE", "ADD", "DELETE":
		return k
	}
	return ""
}

// splitRemove takes the REMOVE actions on whole top-level attributes (a
// name or a #name, nothing nested) out of an update expression, because
// minidyn's interpreter never removes a top-level attribute from an item
// (it drops it from its evaluation environment only). It returns the
// expression without them ("" when nothing else is left) and the paths as
// written; removed is empty when there are none.
func splitRemove(expr string) (rest string, removed []string) {
	toks := lex(expr)
	type clause struct {
		keyword    string
		start, end int // text of the whole clause, keyword included
		body       []token
	}
	var clauses []clause
	for _, t := range toks {
		if k := clauseKeyword(t); k != "" {
			if n := len(clauses); n > 0 {
				clauses[n-1].end = t.start
			}
			clauses = append(clauses, clause{keyword: k, start: t.start, end: len(expr)})
			continue
		}
		if n := len(clauses); n > 0 {
			clauses[n-1].body = append(clauses[n-1].body, t)
		}
	}
	var parts []string
	for _, c := range clauses {
		if c.keyword != "REMOVE" {
			parts = append(parts, strings.TrimSpace(expr[c.start:c.end]))
			continue
		}
		// Split the actions at top-level commas.
		var keep []string
		var action []token
		flush := func() {
			if len(action) == 1 && action[0].text != "," {
				removed = append(removed, action[0].text)
			} else if len(action) > 0 {
				keep = append(keep, expr[action[0].start:action[len(action)-1].end])
			}
			action = nil
		}
		for _, t := range c.body {
			if t.text == "," && t.depth == 0 {
				flush()
				continue
			}
			action = append(action, t)
		}
		flush()
		if len(keep) > 0 {
			parts = append(parts, "REMOVE "+strings.Join(keep, ", "))
		}
	}
	if len(removed) == 0 {
		return expr, nil
	}
	return strings.Join(parts, " "), removed
}

// onAbsent rewrites the functions of a condition that minidyn fails the
// whole request on where DynamoDB evaluates them to false: contains(P, V)
// whose path P is a whole top-level attribute that item lacks or holds as a
// type contains does not look into (a number, a map, a boolean, null) —
// minidyn: "contains is not supported for path=NULL" — and size(P) <op> X
// whose P item lacks — minidyn: "type not supported: size NULL". Each
// becomes attribute_exists(P), false of an absent P (or, for a contains of
// a present P, attribute_not_exists(P)). dropped lists the values the
// rewritten condition no longer names, so the caller can drop those named
// nowhere else.
func onAbsent(cond string, names map[string]string, item map[string]map[string]any) (string, []string) {
	toks := lex(cond)
	var b strings.Builder
	var dropped []string
	last := 0
	attr := func(path string) string {
		if strings.HasPrefix(path, "#") {
			return names[path]
		}
		return path
	}
	for i := 0; i+5 < len(toks); i++ {
		fn := strings.ToLower(toks[i].text)
		var end int // the last token the rewrite replaces
		var operand string
		falsehood := "attribute_exists(" // false of an absent attribute
		switch {
		case fn == "contains" && toks[i+1].text == "(" && toks[i+3].text == "," && toks[i+5].text == ")":
			a := attr(toks[i+2].text)
			if a == "" || containerType(item[a]) {
				continue
			}
			if _, present := item[a]; present {
				falsehood = "attribute_not_exists(" // false of a present one
			}
			end, operand = i+5, toks[i+4].text
		case fn == "size" && toks[i+1].text == "(" && toks[i+3].text == ")" && comparison(toks[i+4].text):
			a := attr(toks[i+2].text)
			if _, present := item[a]; a == "" || present {
				continue
			}
			end, operand = i+5, toks[i+5].text
		default:
			continue
		}
		b.WriteString(cond[last:toks[i].start])
		b.WriteString(falsehood + toks[i+2].text + ")")
		last = toks[end].end
		if strings.HasPrefix(operand, ":") {
			dropped = append(dropped, operand)
		}
		i = end
	}
	if last == 0 {
		return cond, nil
	}
	b.WriteString(cond[last:])
	return b.String(), dropped
}

func comparison(op string) bool {
	switch op {
	case "=", "<>", "<", "<=", ">", ">=":
		return true
	}
	return false
}

// containerType reports whether an attribute value (its DynamoDB JSON,
// decoded) is one contains looks into: a string, a set or a list.
func containerType(v map[string]any) bool {
	for typ := range v {
		switch typ {
		case "S", "SS", "NS", "BS", "L":
			return true
		}
	}
	return false
}

// touched lists the top-level attributes an update expression's actions
// write, #names resolved: what UPDATED_OLD and UPDATED_NEW return.
func touched(expr string, names map[string]string) []string {
	var out []string
	first := true
	for _, t := range lex(expr) {
		switch {
		case clauseKeyword(t) != "":
			first = true
		case t.depth == 0 && t.text == ",":
			first = true
		case first:
			first = false
			name := t.text
			if strings.HasPrefix(name, "#") {
				name = names[name]
			}
			out = append(out, name)
		}
	}
	return out
}

// mentions reports whether any of exprs names the placeholder p (a #name
// or a :value) as a whole token.
func mentions(p string, exprs ...string) bool {
	for _, e := range exprs {
		if !strings.Contains(e, p) {
			continue
		}
		for _, t := range lex(e) {
			if t.text == p {
				return true
			}
		}
	}
	return false
}
