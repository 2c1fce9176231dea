package redact

import "strings"

// nameLabels are the words after which a person's name is written in
// prose and documents: `Employee: Olivia Pemberton`, `holder="Samuel K.
// Ortiz"`, `Kontoinhaber: Maximilian Oberhuber`, `buyer 'Lucía Fernández'`.
var nameLabels = []string{
	"employee", "holder", "cardholder", "kontoinhaber", "titulaire", "payer", "payee",
	"buyer", "beneficiary", "nome", "patient", "姓名",
}

// findLabelledName finds a person's name right after a name label and
// ':', '=' or a quote: two to four capitalised words (initials, accents,
// apostrophes and hyphens allowed), or after 姓名 a run of CJK characters.
func findLabelledName(s string, from int) []int {
	best := []int(nil)
	for _, l := range nameLabels {
		for i := from; i < len(s); {
			k := indexFold(s[i:], l)
			if k < 0 {
				break
			}
			ls := i + k
			i = ls + len(l)
			if ls > 0 && isWord(s[ls-1]) || i < len(s) && isWord(s[i]) {
				continue
			}
			if loc := nameAfter(s, i, l == "姓名"); loc != nil && (best == nil || loc[0] < best[0]) {
				best = loc
			}
			break
		}
	}
	return best
}

// nameAfter returns the name after a label ending at s[i], or nil.
func nameAfter(s string, i int, cjk bool) []int {
	for i < len(s) && s[i] == ' ' {
		i++
	}
	sep := false
	if i < len(s) && (s[i] == ':' || s[i] == '=') {
		sep = true
		i++
	} else if strings.HasPrefix(s[i:], "：") {
		sep = true
		i += len("：")
	}
	for i < len(s) && s[i] == ' ' {
		i++
	}
	if i < len(s) && (s[i] == '"' || s[i] == '\'') {
		sep = true
		i++
	}
	if !sep && !cjk {
		return nil
	}
	start, j, words := i, i, 0
	if cjk {
		for j < len(s) && s[j] >= 0x80 && j-start < 24 {
			j++
		}
		if j-start < 6 { // two CJK characters at least
			return nil
		}
		return []int{start, j, -1, -1, start, j}
	}
	end := start
	for words < 4 && j < len(s) {
		c := s[j]
		if !isUpper(c) && c < 0xC0 {
			break
		}
		w := j + 1
		for w < len(s) && (isLetter(s[w]) || s[w] >= 0x80 || s[w] == '\'' || s[w] == '-') {
			w++
		}
		if w < len(s) && s[w] == '.' && w == j+1 { // an initial
			w++
		}
		words++
		end = w
		if w+1 < len(s) && s[w] == ' ' && s[w+1] != ' ' {
			j = w + 1
			continue
		}
		break
	}
	if words < 2 || strings.HasPrefix(s[start:], markerPrefix) {
		return nil
	}
	return []int{start, end, -1, -1, start, end}
}
