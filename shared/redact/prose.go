//go:generate go run gen_syswords.go

package redact

import (
	"strings"
	"sync"
	"unicode"
	"unicode/utf8"
)

// The prose layer: words that are not a system's are content.
//
// Every earlier layer recognises where content stands — under a key, a
// label, a transcript's header. Content also reaches a log line where
// nothing names it: a model's answer quoted in an exception, a user's
// request after "while handling", a query's result in a chain's trace. What
// tells it from the failure around it is its words: systems report in a
// small vocabulary (request, limit, failed, connection, token, …), people
// and models write in the whole language. The text is cut into segments at
// the delimiters of code and data — quotes, brackets, '=', '|', ": ", line
// ends, ';', escapes, ANSI sequences, markers — and a segment whose words are
// not the system's (at least minForeignWords of them, and at least
// foreignShare of its words that are not function words) is content: every
// run of two words or more in it becomes a Text marker, so the identifiers,
// numbers and paths between them stay. A run of CJK characters (which
// write no spaces) is content when it is long and few of its character
// pairs occur in failures. The vocabulary is generated from the failures
// of the classification corpus, moto's messages and Go's error strings
// (gen_syswords.go).

// Thresholds of the prose layer.
const (
	// minForeignWords is how many words outside the system's vocabulary
	// make a segment content; fewer is a name, a title or a label.
	minForeignWords = 4
	// foreignShare is the share, in tenths, of a segment's words (function
	// words left out) that must be foreign.
	foreignShare = 3
	// minRunWords is the shortest run of words replaced in a content
	// segment: a word alone between identifiers stays.
	minRunWords = 2
	// minCJKRun is the fewest CJK characters that can be content, when
	// fewer than half of their pairs are the system's.
	minCJKRun = 10
)

// Word classes of the prose layer's vocabulary.
const (
	wordSystem   = 1 // a word systems use when they report
	wordFunction = 2 // an English function word: counted for nothing
	wordPerson   = 3 // a first-person pronoun: people write it, systems do not
)

// proseFunctionWords are the closed classes (articles, pronouns other than the
// first person, prepositions, conjunctions, auxiliaries, quantifiers) of
// English and of the languages failures are most often written in beside
// it (German, French, Spanish, Italian, Portuguese, Dutch): they carry no
// subject, so a short message in one of them is not content for them alone.
const proseFunctionWords = `a an the and or but nor so yet if then than that this these those there here
is are was were be been being am do does did done doing have has had having
you he she it they him her them your yours his its their
of to in on at by for from with without within into onto upon about above below over under
between among through during before after since until while as like per via
not no yes all any some each every both either neither none one two three few many much more
most less least other another such own same can could may might must shall should will would
ought please also only just very too again still already even ever never now always often
what which who whom whose when where why how because although though whether unless up down out off
der die das den dem des ein eine einen einem einer eines und oder aber nicht kein keine ist sind war
wurde wird werden hat haben zu im am vom zum zur mit von für auf aus bei nach über unter vor durch
le la les un une des du de et ou mais ne pas est sont était été à au aux pour par sur dans avec sans
el los las unos unas y o pero es son fue del al por para con sin en que se su sus lo
il lo gli uno di da non è sono della delle dei degli nel nella per con su tra fra che
o os as um uma e ou mas não é são foi do da dos das no na nos nas em com sem por para que
het een en of maar niet is zijn was werd wordt van voor met op aan bij naar uit door over te`

// personWords are the first person, which a system's message does not use.
const personWords = `i me my mine myself we us our ours`

var proseVocabulary = sync.OnceValue(func() map[string]uint8 {
	m := make(map[string]uint8, 4096)
	for _, w := range strings.Fields(systemWordList) {
		m[w] = wordSystem
	}
	for _, w := range strings.Fields(proseFunctionWords) {
		m[w] = wordFunction
	}
	for _, w := range strings.Fields(personWords) {
		m[w] = wordPerson
	}
	return m
})

var systemPairs = sync.OnceValue(func() map[string]struct{} {
	m := make(map[string]struct{}, 512)
	for _, p := range strings.Fields(systemPairList) {
		m[p] = struct{}{}
	}
	return m
})

// prose replaces the runs of words of s that are content by the prose rule
// with Text markers.
func prose(s string) string {
	var b strings.Builder
	last := 0
	emit := func(a, z int) {
		if b.Len() == 0 && last == 0 {
			b.Grow(len(s))
		}
		b.WriteString(s[last:a])
		b.WriteString(Text(s[a:z]))
		last = z
	}
	start := 0
	for i := 0; i <= len(s); {
		n := 0
		if i < len(s) {
			n = proseSeparator(s, i)
			if n == 0 {
				i++
				continue
			}
		}
		if i-start >= 2*minForeignWords {
			proseSegment(s, start, i, i < len(s) && s[i] == '=', emit)
		}
		if i == len(s) {
			break
		}
		i += n
		start = i
	}
	if last == 0 {
		return s
	}
	b.WriteString(s[last:])
	return b.String()
}

// proseSeparator returns the length of the delimiter that starts at s[i],
// or 0.
func proseSeparator(s string, i int) int {
	switch c := s[i]; c {
	case '\n', '\r', '\t', '"', '`', '(', ')', '{', '}', '<', '>', '=', '|', ']', ';':
		return 1
	case '[':
		if j := skipMarker(s, i); j > i {
			return j - i + 1
		}
		if strings.HasPrefix(s[i:], "[text ") {
			if j := strings.IndexByte(s[i:], ']'); j > 0 && isTextMarker(s[i:i+j+1]) {
				return j + 1
			}
		}
		return 1
	case ':':
		if i+1 < len(s) && s[i+1] == ' ' {
			return 1
		}
	case '\\':
		if i+1 < len(s) && strings.IndexByte(`ntr"'\`, s[i+1]) >= 0 {
			return 2
		}
	case 0x1b: // an ANSI sequence: ESC [ parameters letter
		j := i + 1
		if j < len(s) && s[j] == '[' {
			j++
			for j < len(s) && (s[j] >= '0' && s[j] <= '9' || s[j] == ';') {
				j++
			}
			if j < len(s) {
				j++
			}
		}
		return j - i
	case '\'':
		// A quote, unless it stands between letters (an apostrophe).
		if i == 0 || i+1 >= len(s) || !letterByte(s[i-1]) || !letterByte(s[i+1]) {
			return 1
		}
	}
	return 0
}

// letterByte reports whether c is an ASCII letter or part of a multi-byte
// character (most of which, in prose, are letters).
func letterByte(c byte) bool {
	return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= 0x80
}

// proseSegment judges the segment s[lo:hi] and calls emit for each run to
// replace. atKey says the segment ends where a '=' follows its last token,
// which is then a key and stays.
func proseSegment(s string, lo, hi int, atKey bool, emit func(a, z int)) {
	vocab := proseVocabulary()
	words, foreign, cjk := 0, 0, false
	for i := lo; i < hi; {
		a, z := nextToken(s, i, hi)
		if a == z {
			break
		}
		i = z
		if hasCJK(s[a:z]) {
			cjk = true
			continue
		}
		w, ok := proseWord(s, a, z)
		if !ok {
			continue
		}
		switch class := wordClass(vocab, w); class {
		case wordFunction:
		case wordPerson:
			words++
			foreign++
		case wordSystem:
			words++
		default:
			words++
			if utf8.RuneCountInString(w) >= 2 {
				foreign++
			}
		}
	}
	content := foreign >= minForeignWords && foreign*10 >= words*foreignShare
	if !content && !cjk {
		return
	}
	runStart, runEnd, runWords := 0, 0, 0
	flush := func() {
		if runWords >= minRunWords {
			emit(runStart, runEnd)
		}
		runWords = 0
	}
	for i := lo; i < hi; {
		a, z := nextToken(s, i, hi)
		if a == z {
			break
		}
		i = z
		if hasCJK(s[a:z]) {
			flush()
			if cjkContent(s[a:z]) {
				emit(cjkExtent(s, a, z))
			}
			continue
		}
		if !content || atKey && z == hi {
			flush() // and the key before '=' stays
			continue
		}
		if _, ok := proseWord(s, a, z); !ok {
			flush()
			continue
		}
		if runWords == 0 {
			runStart = a
		}
		runEnd = z
		runWords++
	}
	flush()
}

// nextToken returns the bounds of the next run of non-space bytes of
// s[i:hi], or (hi, hi).
func nextToken(s string, i, hi int) (int, int) {
	for i < hi && (s[i] == ' ' || s[i] == '\f' || s[i] == '\v') {
		i++
	}
	a := i
	for i < hi && s[i] != ' ' && s[i] != '\f' && s[i] != '\v' {
		i++
	}
	return a, i
}

// proseWord returns the word the token s[a:z] is, its punctuation at either
// end left out: letters only, with an apostrophe or a hyphen between
// letters. An identifier — lower case followed by upper (camelCase), or
// all capitals (a code, an acronym) — is no word.
func proseWord(s string, a, z int) (string, bool) {
	for a < z && strings.IndexByte(".,;:!?*", s[a]) >= 0 {
		a++
	}
	for z > a {
		if strings.IndexByte(".,;:!?*", s[z-1]) >= 0 {
			z--
		} else if strings.HasSuffix(s[a:z], "…") {
			z -= len("…")
		} else {
			break
		}
	}
	if a == z {
		return "", false
	}
	w := s[a:z]
	upper, lower, hump := 0, 0, false
	prevLetter, prevLower := false, false
	for _, r := range w {
		switch {
		case unicode.IsLetter(r) || unicode.IsMark(r):
			if unicode.IsUpper(r) {
				upper++
				if prevLower {
					hump = true
				}
				prevLower = false
			} else {
				lower++
				prevLower = unicode.IsLower(r)
			}
			prevLetter = true
		case r == '\'' || r == '’' || r == '-':
			if !prevLetter {
				return "", false
			}
			prevLetter, prevLower = false, false
		default:
			return "", false
		}
	}
	if !prevLetter || hump || upper >= 2 && lower == 0 {
		return "", false
	}
	return w, true
}

// wordClass returns the vocabulary's class of w, in any case (0: foreign).
func wordClass(vocab map[string]uint8, w string) uint8 {
	var buf [32]byte
	if len(w) <= len(buf) {
		ascii := true
		for i := 0; i < len(w); i++ {
			c := w[i]
			if c >= 0x80 {
				ascii = false
				break
			}
			buf[i] = lowerASCII(c)
		}
		if ascii {
			return vocab[string(buf[:len(w)])]
		}
	}
	return vocab[strings.ToLower(w)]
}

func isCJKRune(r rune) bool {
	return unicode.In(r, unicode.Han, unicode.Hiragana, unicode.Katakana)
}

// hasCJK reports whether t holds a CJK character.
func hasCJK(t string) bool {
	for i := 0; i < len(t); i++ {
		if t[i] >= 0xe3 && t[i] <= 0xe9 { // the lead bytes of U+3000–U+9FFF
			r, _ := utf8.DecodeRuneInString(t[i:])
			if isCJKRune(r) {
				return true
			}
		}
	}
	return false
}

// cjkContent reports whether the CJK characters of t are content: at least
// minCJKRun of them, fewer than half of their adjacent pairs the system's.
func cjkContent(t string) bool {
	pairs := systemPairs()
	chars, known, total := 0, 0, 0
	var prev rune
	var buf [8]byte
	for _, r := range t {
		if !isCJKRune(r) {
			prev = 0
			continue
		}
		chars++
		if prev != 0 {
			total++
			n := utf8.EncodeRune(buf[:], prev)
			n += utf8.EncodeRune(buf[n:], r)
			if _, ok := pairs[string(buf[:n])]; ok {
				known++
			}
		}
		prev = r
	}
	return chars >= minCJKRun && known*2 < total
}

// cjkExtent returns the bounds of s[a:z] from its first CJK character to
// the end of its last.
func cjkExtent(s string, a, z int) (int, int) {
	first, end := -1, z
	for i, r := range s[a:z] {
		if isCJKRune(r) {
			if first < 0 {
				first = a + i
			}
			end = a + i + utf8.RuneLen(r)
		}
	}
	return first, end
}
