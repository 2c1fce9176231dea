package redact

import (
	"bytes"
	"compress/gzip"
	_ "embed"
	"encoding/binary"
	"io"
	"strings"
	"sync"
	"unicode"
	"unicode/utf8"
)

// The names layer: a person's name where nothing names it.
//
// Every other rule finds a person's name by what stands around it — a key,
// a label, a record's other members. A name also reaches a failure where
// nothing says what it is: "could not deliver to Maria Kowalski", a model's
// refusal that repeats whom it was asked about, a row printed without its
// columns. What tells a name from the words around it is the names people
// carry: names.txt.gz lists the given and family names of some seventy
// countries' registers (gen_names.go), and two or more adjacent words read
// as a person's full name go whole as [REDACTED:personal] when
//
//   - a given name is followed by a family name — not when both are also
//     common English words or words of places' names ("Grace Brown",
//     "Will Power", "Asia Pacific" and "Sao Paulo" stay) — or,
//     in the order of registers and East Asian names, a family name by a
//     given name, neither a common word ("Jenkins Job" stays) unless a
//     comma puts the family name first ("Kowalski, Maria");
//   - in a script with capitals, a given name that is no common word, no
//     place's nor a system's (names.txt.gz, the prose layer's vocabulary) is followed by a
//     capitalised word that is neither either, or such a word by a family
//     name that is neither: "Xiomara Quispe", "Dwi Purnama";
//   - in a script without capitals (Arabic, Hebrew, Devanagari, Thai, …), a
//     given name is followed by a given or a family name ("محمد علي").
//
// The words after the pair that are names too go with it ("José Luis García
// Pérez"). A word stands apart from what is around it: inside an
// identifier, a path, a host or an e-mail address (a letter, digit, '_',
// '.', '/', '@' or '\' against it) it is no name. Case matters: a name in a
// script with capitals starts with one, so a sentence's lower-case words are
// never read; an all-capitals pair (a passport's, a card's) needs both
// words in the lists.

//go:embed names.txt.gz
var namesGzip []byte

// Name flags of names.txt.gz.
const (
	nameGiven  = 1 << iota // a given name
	nameFamily             // a family name
	nameCommon             // a common English word
	namePlace              // a word of a country's, state's, continent's or time zone's name
	nameTown               // a word of a city's or county's name
)

// nameTable holds names.txt.gz by the hash of each word in lower case: the
// names, and the common words and places' words that are no names.
var nameTable = sync.OnceValue(nameTableLoad)

// nameTableLoad builds nameTable.
func nameTableLoad() *hashTable {
	namesText, err := gunzip(namesGzip)
	if err != nil {
		// The list is part of the binary: a broken one is a build defect.
		panic("redact: names.txt.gz: " + err.Error())
	}
	t := newHashTable(strings.Count(namesText, "\n"))
	for line := range strings.Lines(namesText) {
		if strings.HasPrefix(line, "#") {
			continue
		}
		w, fl, ok := strings.Cut(strings.TrimSpace(line), " ")
		if !ok {
			continue
		}
		var c uint8
		for _, f := range fl {
			switch f {
			case 'g':
				c |= nameGiven
			case 'f':
				c |= nameFamily
			case 'c':
				c |= nameCommon
			case 'p':
				c |= namePlace
			case 't':
				c |= nameTown
			}
		}
		t.put(hashWord(w), c)
	}
	return t
}

// maxNameWords bounds the words of one name.
const maxNameWords = 4

// nameWord is one word of the text as the names layer reads it.
type nameWord struct {
	a, z  int   // its bytes
	flags uint8 // its names.txt.gz flags
	form  uint8 // wordTitle, wordCaps, wordCaseless; 0: no name's form
	sys   bool  // a word of the system's vocabulary
}

// Forms of a word.
const (
	wordTitle    = 1 // a capital, then small letters
	wordCaps     = 2 // capitals only
	wordCaseless = 3 // a script without capitals
)

// names replaces each person's name that the names table recognises in s
// (see the comment above) with the personal marker.
func names(s string) string {
	if len(s) < 5 {
		return s
	}
	out := splicer{s: s}
	var prev nameWord
	havePrev := false
	var buf [maxNameWords]nameWord
	run := buf[:0]
	flush := func() {
		if len(run) >= 2 {
			out.replace(run[0].a, run[len(run)-1].z, personalMarker)
		}
		run = run[:0]
	}
	for i := 0; i < len(s); {
		w, next, ok := nextNameWord(s, i)
		if !ok {
			break
		}
		i = next
		if w.form == 0 {
			flush()
			havePrev = false
			continue
		}
		if havePrev && nameGap(s[prev.z:w.a]) {
			switch {
			case len(run) > 0 && len(run) < maxNameWords && continuesName(s, run, w):
				run = append(run, w)
				prev = w
				continue
			case len(run) == 0 && fullName(s, prev, w):
				run = append(run, prev, w)
				prev = w
				continue
			}
		}
		flush()
		prev, havePrev = w, true
	}
	flush()
	return out.String()
}

// nameGap reports whether the text between two words joins them into one
// name: one space, or a comma and a space after a family name ("Kowalski,
// Maria" is judged by fullName's order rule).
func nameGap(g string) bool {
	return g == " " || g == "\u00a0" || g == ", "
}

// fullName reports whether the words a, b, in that order, read as a
// person's full name.
func fullName(s string, a, b nameWord) bool {
	comma := s[a.z:b.a] == ", "
	if a.form == wordCaseless || b.form == wordCaseless {
		if a.form != b.form || comma {
			return false
		}
		return a.flags&nameGiven != 0 && b.flags&(nameGiven|nameFamily) != 0 ||
			a.flags&nameFamily != 0 && b.flags&nameGiven != 0
	}
	if !leftApart(s, a.a) {
		return false
	}
	// both: the two words are common words, or a place's words ("Asia
	// Pacific"), either way round.
	both := func(flag uint8) bool { return a.flags&flag != 0 && b.flags&flag != 0 }
	word := func(w nameWord) bool { return w.flags&nameCommon != 0 || w.sys }
	wordsOnly := word(a) && word(b) || both(namePlace)
	common := func(w nameWord) bool { return word(w) || w.flags&namePlace != 0 }
	if !comma && a.flags&nameGiven != 0 && b.flags&nameFamily != 0 && !wordsOnly {
		return true
	}
	if a.flags&nameFamily != 0 && b.flags&nameGiven != 0 && (comma && !wordsOnly || !common(a) && !common(b)) {
		return true
	}
	if comma || a.form != wordTitle || b.form != wordTitle || common(a) || common(b) {
		return false
	}
	return a.flags&nameGiven != 0 && utf8.RuneCountInString(s[a.a:a.z]) >= 3 ||
		b.flags&nameFamily != 0 && utf8.RuneCountInString(s[b.a:b.z]) >= 3
}

// continuesName reports whether w, after the words of run, is one more
// word of the same name.
func continuesName(s string, run []nameWord, w nameWord) bool {
	last := run[len(run)-1]
	if s[last.z:w.a] != " " && s[last.z:w.a] != "\u00a0" || w.form != run[0].form && !(w.form == wordCaps && run[0].form == wordTitle) {
		return false
	}
	return w.flags&(nameGiven|nameFamily) != 0 && w.flags&(nameCommon|namePlace) == 0 && !w.sys
}

// leftApart reports whether the word starting at a stands apart from what
// is before it.
func leftApart(s string, a int) bool {
	if a == 0 {
		return true
	}
	r, _ := utf8.DecodeLastRuneInString(s[:a])
	return !(unicode.IsLetter(r) || unicode.IsDigit(r) || strings.ContainsRune("_./@\\-'’", r))
}

// nextNameWord returns the next word of s at or after i, with its form and
// flags, and where to go on; ok is false when no word is left.
func nextNameWord(s string, i int) (w nameWord, next int, ok bool) {
	for i < len(s) {
		c := s[i]
		if c < utf8.RuneSelf {
			if c >= 'A' && c <= 'Z' || c >= 'a' && c <= 'z' {
				break
			}
			if c == '[' {
				if j := skipMarker(s, i); j != i {
					// A marker ends any name before it.
					return nameWord{a: i, z: j + 1}, j + 1, true
				}
			}
			i++
			continue
		}
		r, n := utf8.DecodeRuneInString(s[i:])
		if unicode.IsLetter(r) {
			break
		}
		i += n
	}
	if i >= len(s) {
		return nameWord{}, len(s), false
	}
	a := i
	if c := s[i]; c >= 'a' && c <= 'z' {
		// A word in lower case is no name's: step over it.
		for i < len(s) && (s[i] >= 'a' && s[i] <= 'z' || s[i] >= 'A' && s[i] <= 'Z' || s[i] >= '0' && s[i] <= '9' || s[i] == '_') {
			i++
		}
		return nameWord{a: a, z: i}, i, true
	}
	upper, lower, caseless, prevLetter := 0, 0, 0, false
	firstUpper, afterSep := false, false
scan:
	for i < len(s) {
		r, n := rune(s[i]), 1
		if r >= utf8.RuneSelf {
			r, n = utf8.DecodeRuneInString(s[i:])
		}
		switch {
		case unicode.IsUpper(r):
			if i == a {
				firstUpper = true
			}
			if !afterSep || lower == 0 {
				// O'Brien, Jean-Pierre: a capital after a
				// separator starts the word's next part.
				upper++
			}
		case unicode.IsLower(r):
			lower++
		case unicode.IsLetter(r):
			caseless++
		case unicode.IsMark(r) || r == '\u200c':
			if i == a {
				break scan
			}
		case (r == '\'' || r == '’' || r == '-') && prevLetter && i+n < len(s):
			r2, _ := utf8.DecodeRuneInString(s[i+n:])
			if !unicode.IsLetter(r2) {
				break scan
			}
			prevLetter, afterSep = false, true
			i += n
			continue
		default:
			break scan
		}
		prevLetter, afterSep = true, false
		i += n
	}
	w = nameWord{a: a, z: i}
	if i == a {
		// A mark or joiner that starts no word: step over it.
		_, n := utf8.DecodeRuneInString(s[i:])
		return nameWord{a: a, z: a}, a + n, true
	}
	if r, _ := utf8.DecodeRuneInString(s[i:]); i < len(s) && (unicode.IsDigit(r) || r == '_' || r == '@') {
		return w, i, true
	}
	if i < len(s)-1 && (s[i] == '.' || s[i] == '/') {
		if r, _ := utf8.DecodeRuneInString(s[i+1:]); unicode.IsLetter(r) || unicode.IsDigit(r) {
			return w, i, true
		}
	}
	switch {
	case caseless > 0 && upper == 0 && lower == 0:
		w.form = wordCaseless
	case caseless > 0:
		return w, i, true
	case firstUpper && upper == 1 && lower > 0:
		w.form = wordTitle
	case upper > 1 && lower == 0:
		w.form = wordCaps
	default:
		return w, i, true
	}
	word := s[a:i]
	w.flags = wordClass(nameTable(), word)
	if w.flags&(nameGiven|nameFamily) == 0 && strings.IndexByte(word, '-') > 0 {
		w.flags |= hyphenated(word)
	}
	if w.flags&(nameGiven|nameFamily) == 0 && w.form == wordCaseless {
		w.form = 0
		return w, i, true
	}
	w.sys = wordClass(proseVocabulary(), word) != 0
	return w, i, true
}

// hyphenated returns the name flags a hyphenated word earns from its parts:
// a given name when every part is one ("Marie-Paule"), a family name when
// every part is one ("Smith-Jones").
func hyphenated(word string) uint8 {
	given, family := uint8(nameGiven), uint8(nameFamily)
	for part := range strings.SplitSeq(word, "-") {
		fl := wordClass(nameTable(), part)
		if fl&nameGiven == 0 || fl&nameCommon != 0 {
			given = 0
		}
		if fl&nameFamily == 0 || fl&nameCommon != 0 {
			family = 0
		}
	}
	return given | family
}

// gunzip returns the text gzip compressed in b.
func gunzip(b []byte) (string, error) {
	r, err := gzip.NewReader(bytes.NewReader(b))
	if err != nil {
		return "", err
	}
	var out strings.Builder
	if n := len(b); n >= 4 {
		// gzip's trailer holds the text's size: one allocation.
		out.Grow(int(binary.LittleEndian.Uint32(b[n-4:])))
	}
	if _, err := io.Copy(&out, r); err != nil {
		return "", err
	}
	return out.String(), r.Close()
}

// nameBeforeHonorific is a person's name before the honorific that addresses
// them, as Korean and Japanese write it: a Korean name of a common
// surname's syllable and a two-syllable given name before 씨 or 님 (홍길동
// 씨, 김민준님), and a Japanese family and given name, a space between
// them, before 様, さん or 殿 (山田 花子 様). A title alone (고객님, お客様)
// has no name's shape and stays.
var nameBeforeHonorific = lazyRegexp(`[김이박최정강조윤장임한오서신권황안송류전홍고문양손배백허유남심노하곽성차주우구민진나지엄채원천방공현함변염여추도소석선설마길연위표명기반왕금옥육인맹제모탁국어은편용][\p{Hangul}]{2}(?:[ \t]?님|[ \t]씨)` +
	`|\p{Han}{1,3}[ 　]\p{Han}{1,3}(?:[ 　]?(?:様|さん|殿))`)

// nameHonorificTriggers are the honorifics of nameBeforeHonorific.
var nameHonorificTriggers = []string{"님", "씨", "様", "さん", "殿"}

// findNameBeforeHonorific finds an nameBeforeHonorific; the honorific stays.
func findNameBeforeHonorific(s string, from int) []int {
	m := nameBeforeHonorific().FindStringIndex(s[from:])
	if m == nil {
		return nil
	}
	a, b := from+m[0], from+m[1]
	if a > 0 && s[a-1] >= 0x80 {
		if r, _ := utf8.DecodeLastRuneInString(s[:a]); unicode.Is(unicode.Hangul, r) || unicode.Is(unicode.Han, r) {
			return []int{b, b, -1, -1, b, b} // inside a longer word
		}
	}
	for _, h := range []string{" 님", "님", " 씨", " 様", "様", " さん", "さん", " 殿", "殿", "　様", "　さん", "　殿"} {
		if strings.HasSuffix(s[a:b], h) {
			b -= len(h)
			break
		}
	}
	return []int{a, b, -1, -1, a, b}
}
