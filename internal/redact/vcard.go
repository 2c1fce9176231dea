package redact

import "strings"

// vcardPersonal are the vCard properties (RFC 6350) that hold a person's
// name, nickname, address, birthday, phone number or e-mail address.
var vcardPersonal = map[string]bool{
	"fn": true, "n": true, "nickname": true, "adr": true, "label": true, "bday": true,
	"tel": true, "email": true, "impp": true, "geo": true, "photo": true,
}

// findVCard finds the value of a personal property line — `FN:Lena
// Hoffmann`, `TEL;TYPE=cell:+49 …` — inside a BEGIN:VCARD … END:VCARD
// block: the text after the property's ':' to the end of its line.
func findVCard(s string, from int) []int {
	for ls := from; ls < len(s); {
		le := strings.IndexByte(s[ls:], '\n')
		if le < 0 {
			le = len(s)
		} else {
			le += ls
		}
		if ls == 0 || s[ls-1] == '\n' {
			if loc := vcardLine(s, ls, le); loc != nil {
				return loc
			}
		}
		ls = le + 1
	}
	return nil
}

// vcardLine returns the value of the personal property on the line
// s[ls:le] when the line lies inside a vCard, or nil.
func vcardLine(s string, ls, le int) []int {
	line := s[ls:le]
	colon := strings.IndexByte(line, ':')
	if colon <= 0 {
		return nil
	}
	name := line[:colon]
	if semi := strings.IndexByte(name, ';'); semi >= 0 {
		name = name[:semi]
	}
	if dot := strings.IndexByte(name, '.'); dot >= 0 { // a group: item1.TEL
		name = name[dot+1:]
	}
	if !vcardPersonal[strings.ToLower(name)] {
		return nil
	}
	if !inVCard(s, ls) {
		return nil
	}
	vs, ve := ls+colon+1, le
	if ve > vs && s[ve-1] == '\r' {
		ve--
	}
	if ve <= vs || strings.HasPrefix(s[vs:], markerPrefix) {
		return nil
	}
	return []int{vs, ve, -1, -1, vs, ve}
}

// vcardLookback bounds how far before a property line inVCard looks for
// its BEGIN:VCARD, so that a text of property lines costs linear time: a
// property further than this after its card's start (past a long PHOTO) is
// not judged as a vCard's.
const vcardLookback = 8 << 10

// inVCard reports whether the line starting at ls lies inside a vCard: the
// nearest BEGIN:VCARD or END:VCARD line before it, within vcardLookback
// bytes, is a BEGIN.
func inVCard(s string, ls int) bool {
	lo := ls - vcardLookback
	if lo < 0 {
		lo = 0
	}
	for end := ls - 1; end > lo; {
		start := strings.LastIndexByte(s[lo:end], '\n') + 1 + lo
		if start <= lo && lo > 0 {
			return false // the window starts inside this line
		}
		line := strings.TrimLeft(s[start:end], " \t")
		switch {
		case hasPrefixFold(line, "begin:vcard"):
			return true
		case hasPrefixFold(line, "end:vcard"):
			return false
		}
		end = start - 1
	}
	return false
}
