package redact

import (
	"strings"
	"unicode/utf8"
)

// Numbers that name one person by a shape their issuer publishes, found
// in prose without a label: the US Medicare Beneficiary Identifier, the UK
// driving licence number, Mongolia's register number and Myanmar's
// national registration card (docs/design.md "Redaction").

// findMBI finds a Medicare Beneficiary Identifier as CMS defines it:
// eleven characters, written whole or in groups of four, three and four
// split by '-': a digit 1–9; a letter; a letter or digit; a digit; a
// letter; a letter or digit; a digit; two letters; two digits. Its letters
// are capitals without S, L, O, I, B and Z.
func findMBI(s string, from int) []int {
	for i := from; i+11 <= len(s); i++ {
		if s[i] < '1' || s[i] > '9' || i > 0 && (isAlnum(s[i-1]) || s[i-1] == '-') {
			continue
		}
		for _, dashed := range [...]bool{false, true} {
			if e := mbiAt(s, i, dashed); e > 0 {
				return []int{i, e, -1, -1, i, e}
			}
		}
	}
	return nil
}

// mbiClasses are the classes of an MBI's eleven places: n a digit 1–9, d
// a digit, a a letter, x a letter or a digit.
const mbiClasses = "naxdaxdaadd"

// mbiAt returns the end of the MBI starting at s[i], or 0.
func mbiAt(s string, i int, dashed bool) int {
	j := i
	for p := 0; p < 11; p++ {
		if dashed && (p == 4 || p == 7) {
			if j >= len(s) || s[j] != '-' {
				return 0
			}
			j++
		}
		if j >= len(s) {
			return 0
		}
		c := s[j]
		letter := isUpper(c) && strings.IndexByte("SLOIBZ", c) < 0
		switch mbiClasses[p] {
		case 'n':
			if c < '1' || c > '9' {
				return 0
			}
		case 'd':
			if !isDigit(c) {
				return 0
			}
		case 'a':
			if !letter {
				return 0
			}
		case 'x':
			if !letter && !isDigit(c) {
				return 0
			}
		}
		j++
	}
	if j < len(s) && (isAlnum(s[j]) || s[j] == '-') {
		return 0
	}
	return j
}

// findUKDrivingLicence finds a UK driving licence number as DVLA writes
// it: sixteen characters, the first five of the surname (padded with 9),
// six digits of the birth date (the decade, the month — plus 50 for a
// woman —, the day, the year), two initials (padded with 9), a digit and
// two check letters: MORGA753116SM9IJ.
func findUKDrivingLicence(s string, from int) []int {
	for i := from; i+16 <= len(s); i++ {
		if !isUpper(s[i]) || i > 0 && isAlnum(s[i-1]) {
			continue
		}
		if e := i + 16; ukLicenceValid(s[i:e]) && (e == len(s) || !isAlnum(s[e])) {
			return []int{i, e, -1, -1, i, e}
		}
	}
	return nil
}

func ukLicenceValid(v string) bool {
	padded := false
	for k := 1; k < 5; k++ {
		switch {
		case v[k] == '9':
			padded = true
		case isUpper(v[k]) && !padded:
		default:
			return false
		}
	}
	for k := 5; k < 11; k++ {
		if !isDigit(v[k]) {
			return false
		}
	}
	month := int(v[6]-'0')*10 + int(v[7]-'0')
	day := int(v[8]-'0')*10 + int(v[9]-'0')
	if !(month >= 1 && month <= 12 || month >= 51 && month <= 62) || day < 1 || day > 31 {
		return false
	}
	return isUpper(v[11]) && (isUpper(v[12]) || v[12] == '9') && isDigit(v[13]) && isUpper(v[14]) && isUpper(v[15])
}

// findMongolianRegister finds Mongolia's register number: two capital
// Cyrillic letters and eight digits, the first six the birth date (year,
// month — plus 20 for a birth from 2000 —, day): УБ99021512.
func findMongolianRegister(s string, from int) []int {
	for i := from; i+8 <= len(s); i++ {
		if i < from+4 || !isDigit(s[i]) || isDigit(s[i-1]) {
			continue
		}
		a, n1 := utf8.DecodeLastRuneInString(s[:i])
		b, n2 := utf8.DecodeLastRuneInString(s[:i-n1])
		st := i - n1 - n2
		if !mongolianCapital(a) || !mongolianCapital(b) {
			continue
		}
		if st > 0 {
			if p, _ := utf8.DecodeLastRuneInString(s[:st]); isWordRune(p) {
				continue
			}
		}
		e := i
		for e < len(s) && isDigit(s[e]) {
			e++
		}
		if e-i != 8 || e < len(s) && isAlnum(s[e]) {
			continue
		}
		month := int(s[i+2]-'0')*10 + int(s[i+3]-'0')
		day := int(s[i+4]-'0')*10 + int(s[i+5]-'0')
		if !(month >= 1 && month <= 12 || month >= 21 && month <= 32) || day < 1 || day > 31 {
			continue
		}
		return []int{st, e, -1, -1, st, e}
	}
	return nil
}

func mongolianCapital(r rune) bool {
	return r >= 'А' && r <= 'Я' || r == 'Ё' || r == 'Ө' || r == 'Ү'
}

func isWordRune(r rune) bool {
	return r < utf8.RuneSelf && isAlnum(byte(r)) || r >= 0x400 && r <= 0x4FF
}

// nrcTypes are the citizenship types of Myanmar's national registration
// card, in brackets between the township's letters and the number:
// နိုင် (N, citizen), ဧည့် (E, associate), ပြု (P, naturalized).
var nrcTypes = []string{"(နိုင်)", "(ဧည့်)", "(ပြု)", "(N)", "(E)", "(P)", "(Naing)"}

// nrcTriggers are nrcTypes lowered.
var nrcTriggers = []string{"(နိုင်)", "(ဧည့်)", "(ပြု)", "(n)", "(e)", "(p)", "(naing)"}

// findMyanmarNRC finds a national registration card number of Myanmar:
// the state's number (1–14), '/', the township's letters, the type in
// brackets and six digits, in Burmese or ASCII digits:
// 12/OuKaMa(N)048713, ၁၂/ဥကမ(နိုင်)၀၄၈၇၁၃.
func findMyanmarNRC(s string, from int) []int {
	for i := from; i < len(s); {
		k := strings.IndexByte(s[i:], '(')
		if k < 0 {
			return nil
		}
		k += i
		i = k + 1
		typ := ""
		for _, t := range nrcTypes {
			if strings.HasPrefix(s[k:], t) {
				typ = t
				break
			}
		}
		if typ == "" {
			continue
		}
		// Six digits after the type.
		e, n := k+len(typ), 0
		for n < 6 {
			r, w := utf8.DecodeRuneInString(s[e:])
			if !nrcDigit(r) {
				break
			}
			e += w
			n++
		}
		if n != 6 {
			continue
		}
		if r, _ := utf8.DecodeRuneInString(s[e:]); nrcDigit(r) || r < utf8.RuneSelf && isAlnum(byte(r)) {
			continue
		}
		// The township's letters, two to twelve, before the type.
		b, letters := k, 0
		for b > 0 && letters < 12 {
			r, w := utf8.DecodeLastRuneInString(s[:b])
			if !(r < utf8.RuneSelf && isLetter(byte(r)) || r >= 0x1000 && r <= 0x103F || r >= 0x1050 && r <= 0x109F) {
				break
			}
			b -= w
			letters++
		}
		if letters < 2 || b == 0 || s[b-1] != '/' {
			continue
		}
		// The state's number, one or two digits.
		st, n := b-1, 0
		for st > 0 && n < 2 {
			r, w := utf8.DecodeLastRuneInString(s[:st])
			if !nrcDigit(r) {
				break
			}
			st -= w
			n++
		}
		if n == 0 {
			continue
		}
		if r, _ := utf8.DecodeLastRuneInString(s[:st]); st > 0 && (nrcDigit(r) || r < utf8.RuneSelf && isAlnum(byte(r))) {
			continue
		}
		return []int{st, e, -1, -1, st, e}
	}
	return nil
}

// nrcDigit reports whether r is an ASCII or a Burmese digit.
func nrcDigit(r rune) bool { return r >= '0' && r <= '9' || r >= '၀' && r <= '၉' }
