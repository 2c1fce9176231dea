package redact

import (
	"slices"
	"strings"
	"unicode"
	"unicode/utf8"
)

// Rows printed under their header line: a CSV, semicolon-, tab- or
// pipe-delimited import that a job rejects and logs with its header
// (`id_number,surname,first_names,date_of_birth` then the row). A row is
// judged by its columns, as a database's row is by its INSERT's columns
// (records.go): a cell goes when its column names personal data — by the
// key rules, or, in a row that is a person's (a column the key rules call
// personal), when the cell has a form's shape under a column no system
// writes (labelled.go).

// rowDelims are the delimiters a header line may use.
const rowDelims = ",;|\t"

// headedRows replaces the personal cells of the rows printed under a
// header line whose columns name personal data.
func headedRows(s string) string {
	if len(s) < 16 || strings.IndexByte(s, '\n') < 0 || strings.IndexAny(s, rowDelims) < 0 {
		return s
	}
	out := splicer{s: s}
	for ls := 0; ls < len(s); {
		le := lineEnd(s, ls)
		delim, cols := headerLine(s, ls, le)
		if cols == nil {
			ls = rowLineAfter(s, le)
			continue
		}
		kinds := headerKinds(cols)
		if kinds == nil {
			ls = rowLineAfter(s, le)
			continue
		}
		rs := rowLineAfter(s, le)
		for rs < len(s) {
			re := lineEnd(s, rs)
			line := s[rs:re]
			if strings.Trim(line, "-|:+ \t") == "" && strings.IndexByte(line, '-') >= 0 {
				rs = rowLineAfter(s, re) // a Markdown table's rule under its header
				continue
			}
			cells := splitRow(s, rs, re, delim)
			if len(cells) != len(cols) {
				break
			}
			texts := make([]string, len(cells))
			for j, c := range cells {
				texts[j] = s[c[0]:c[1]]
			}
			// The row's own values join its columns' judgement (a party's
			// column holds a name beside a phone number).
			rowKinds := columnKinds("", cols, texts)
			for j, c := range cells {
				v := texts[j]
				k := kinds[j]
				if k == "" {
					k = rowKinds[j]
				}
				if k == "" && !formValue(cols[j], v) {
					continue
				}
				if k == "" {
					k = KindPersonal
				}
				if v == "" || isMarker(v) || strings.HasPrefix(v, "[text ") || !plausible(k, v) || isLiteral(v) || strings.EqualFold(v, "null") || c[0] < out.copied {
					continue
				}
				out.replace(c[0], c[1], k.Marker())
			}
			rs = rowLineAfter(s, re)
		}
		ls = rs
	}
	return out.String()
}

// rowLineAfter returns where the line after the one ending at le starts.
func rowLineAfter(s string, le int) int {
	if le+1 < len(s) && s[le] == '\r' && s[le+1] == '\n' {
		return le + 2
	}
	return le + 1
}

// headerLine reports whether s[ls:le] is, or ends with, a header line: two
// columns or more, one delimiter, each column a key of one to four words
// (letters of any script, digits after them, '_', '-', '.'). A header may
// follow a log's words and ": " on its line. It returns the delimiter and
// the columns.
func headerLine(s string, ls, le int) (byte, []string) {
	line := s[ls:le]
	if len(line) < 5 || len(line) > 1024 {
		return 0, nil
	}
	var delim byte
	for _, d := range []byte(rowDelims) {
		if strings.IndexByte(line, d) >= 0 {
			if delim != 0 {
				return 0, nil // two delimiters: no header of one
			}
			delim = d
		}
	}
	if delim == 0 {
		return 0, nil
	}
	hs := 0
	if i := strings.LastIndex(line, ": "); i >= 0 && strings.IndexByte(line[:i], delim) < 0 {
		hs = i + 2
	}
	h := line[hs:]
	if delim == '|' {
		h = strings.TrimSpace(h)
		h = strings.TrimSuffix(strings.TrimPrefix(h, "|"), "|")
	}
	parts := strings.Split(h, string(delim))
	if len(parts) < 2 {
		return 0, nil
	}
	for k, p := range parts {
		p = strings.TrimSpace(p)
		p = strings.Trim(p, `"`)
		if !columnName(p) {
			return 0, nil
		}
		parts[k] = p
	}
	return delim, parts
}

// columnName reports whether p reads as a column's name: one to four words
// of letters, a word's digits after its letters, joined by ' ', '_', '-' or
// '.'.
func columnName(p string) bool {
	if p == "" || len(p) > 48 {
		return false
	}
	words, letters := 1, 0
	prevDigit := false
	for _, r := range p {
		switch {
		case r == ' ' || r == '_' || r == '-' || r == '.':
			if r == ' ' {
				words++
			}
			prevDigit = false
		case unicode.IsLetter(r) || unicode.Is(unicode.Mn, r) || unicode.Is(unicode.Mc, r):
			if prevDigit {
				return false
			}
			letters++
		case r >= '0' && r <= '9':
			if letters == 0 {
				return false
			}
			prevDigit = true
		default:
			return false
		}
	}
	return letters >= 2 && words <= 4
}

// headerKinds returns the kind each column gives its cells ("" for none),
// or nil when no column names personal data by the key rules: a row that
// is nobody's keeps its cells.
func headerKinds(cols []string) []Kind {
	kinds := columnKinds("", cols, nil)
	for j, c := range cols {
		// A name's label of another script, alone or as the column's last
		// word (Odia's "father's name"), names a person's column too.
		if i := strings.LastIndexByte(c, ' '); kinds[j] == "" && (slices.Contains(nameLabels, c) || i > 0 && slices.Contains(nameLabels, c[i+1:])) {
			kinds[j] = KindPersonal
		}
	}
	for _, k := range kinds {
		if k != "" {
			return kinds
		}
	}
	return nil
}

// splitRow splits the line s[rs:re] at delim into its cells' spans, a
// double-quoted cell whole (its quotes outside the span), a pipe row's
// outer pipes and each cell's spaces aside.
func splitRow(s string, rs, re int, delim byte) [][2]int {
	for re > rs && s[re-1] == '\r' {
		re--
	}
	if delim == '|' {
		for rs < re && s[rs] == ' ' {
			rs++
		}
		for re > rs && s[re-1] == ' ' {
			re--
		}
		if rs < re && s[rs] == '|' {
			rs++
		}
		if re > rs && s[re-1] == '|' {
			re--
		}
	}
	if rs >= re {
		return nil
	}
	var cells [][2]int
	for i := rs; ; {
		a := i
		for a < re && s[a] == ' ' && delim != ' ' {
			a++
		}
		var b, next int
		if a < re && s[a] == '"' {
			q := a + 1
			for q < re && !(s[q] == '"' && (q+1 == re || s[q+1] != '"')) {
				if s[q] == '"' {
					q++
				}
				q++
			}
			if q >= re {
				return nil // a quote left open: no row of this line
			}
			b, next = q, q+1
			for next < re && s[next] == ' ' {
				next++
			}
			if next < re && s[next] != delim {
				return nil
			}
			a++
		} else {
			next = strings.IndexByte(s[a:re], delim)
			if next < 0 {
				next = re
			} else {
				next += a
			}
			b = next
			for b > a && s[b-1] == ' ' {
				b--
			}
		}
		if !utf8.ValidString(s[a:b]) {
			return nil
		}
		cells = append(cells, [2]int{a, b})
		if next >= re {
			return cells
		}
		i = next + 1
	}
}
