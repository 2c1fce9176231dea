package redact

import "strings"

// A travel document's machine-readable zone (ICAO 9303) writes its holder's
// name, document number, nationality and birth date as lines of capitals,
// digits and '<' fillers: two lines of 44 (a passport, TD3), two of 36
// (TD2) or three of 30 (an identity card, TD1). Any such line is personal
// data wherever it stands, in an OCR result's JSON or a parser's log.

// findMRZ finds, at or after from, a run of capitals, digits and '<' of
// exactly 30, 36 or 44 bytes, standing alone (no letter, digit or '<'
// beside it), with a "<<" filler in it and six letters or digits or more.
func findMRZ(s string, from int) []int {
	for i := from; i < len(s); {
		k := strings.Index(s[i:], "<<")
		if k < 0 {
			return nil
		}
		k += i
		a := k
		for a > 0 && mrzByte(s[a-1]) {
			a--
		}
		b := k
		for b < len(s) && mrzByte(s[b]) {
			b++
		}
		i = b
		if a < from || a > 0 && isAlnum(s[a-1]) || b < len(s) && isAlnum(s[b]) {
			continue
		}
		n := b - a
		if n != 30 && n != 36 && n != 44 {
			continue
		}
		alnum := 0
		for j := a; j < b; j++ {
			if s[j] != '<' {
				alnum++
			}
		}
		if alnum >= 6 {
			return []int{a, b, -1, -1, a, b}
		}
	}
	return nil
}

// mrzByte reports whether c may stand in a machine-readable zone.
func mrzByte(c byte) bool { return c >= 'A' && c <= 'Z' || isDigit(c) || c == '<' }
