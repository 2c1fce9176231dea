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
	// One pass from `from` to the first label that a name follows: each
	// call costs the distance to its match, so a text of labels is linear.
	for ls := from; ls < len(s); ls++ {
		c := lowerASCII(s[ls])
		if !nameLabelStart[c] || ls > 0 && isWord(s[ls-1]) {
			continue
		}
		for _, l := range nameLabels {
			if l[0] != c && lowerASCII(l[0]) != c || !hasPrefixFold(s[ls:], l) {
				continue
			}
			i := ls + len(l)
			if i < len(s) && isWord(s[i]) {
				continue
			}
			if loc := nameAfter(s, i, l == "姓名"); loc != nil {
				return loc
			}
		}
	}
	return nil
}

// nameLabelStart holds the first bytes of nameLabels, lower case.
var nameLabelStart = func() (t [256]bool) {
	for _, l := range nameLabels {
		t[lowerASCII(l[0])] = true
	}
	return t
}()

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
