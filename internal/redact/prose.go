//go:generate go run gen_syswords.go

package redact

import (
	"iter"
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
	wordFunction = 2 // a function word (proseFunctionWords): counted for nothing
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

// proseVocabulary is the vocabulary as a table of hashes: no pointers, so
// the garbage collector never scans it.
var proseVocabulary = sync.OnceValue(func() *hashTable {
	t := newHashTable(4096)
	for _, w := range strings.Fields(systemWordList) {
		t.put(hashWord(w), wordSystem)
	}
	for _, w := range strings.Fields(proseFunctionWords) {
		t.put(hashWord(w), wordFunction)
	}
	for _, w := range strings.Fields(personWords) {
		t.put(hashWord(w), wordPerson)
	}
	return t
})

// systemPairs holds the CJK pairs of systemPairList by their runes.
var systemPairs = sync.OnceValue(func() *hashTable {
	t := newHashTable(512)
	for _, p := range strings.Fields(systemPairList) {
		r1, n := utf8.DecodeRuneInString(p)
		r2, _ := utf8.DecodeRuneInString(p[n:])
		t.put(pairKey(r1, r2), 1)
	}
	return t
})

// hashTable is an open-addressing set of 64-bit keys with a class each.
type hashTable struct {
	keys  []uint64
	class []uint8
	mask  uint64
}

func newHashTable(n int) *hashTable {
	size := 1
	for size < 2*n {
		size <<= 1
	}
	return &hashTable{keys: make([]uint64, size), class: make([]uint8, size), mask: uint64(size - 1)}
}

func (t *hashTable) put(k uint64, class uint8) {
	i := k & t.mask
	for t.keys[i] != 0 && t.keys[i] != k {
		i = (i + 1) & t.mask
	}
	t.keys[i], t.class[i] = k, class
}

func (t *hashTable) get(k uint64) uint8 {
	for i := k & t.mask; ; i = (i + 1) & t.mask {
		switch t.keys[i] {
		case k:
			return t.class[i]
		case 0:
			return 0
		}
	}
}

// hashWord is FNV-1a of w's bytes, never 0 (the empty slot).
func hashWord(w string) uint64 {
	h := uint64(14695981039346656037)
	for i := 0; i < len(w); i++ {
		h = (h ^ uint64(w[i])) * 1099511628211
	}
	return h | 1
}

func pairKey(a, b rune) uint64 { return uint64(a)<<32 | uint64(b) }

// prose replaces the runs of words of s that are content by the prose rule
// with Text markers.
func prose(s string) string {
	if len(s) < 2*minForeignWords {
		return s
	}
	w := proseOut{s: s}
	start, spaces := 0, 0
	for i := 0; i <= len(s); {
		n := 0
		if i < len(s) {
			c := s[i]
			if c == ' ' {
				spaces++
			}
			if !maySeparate[c] {
				i++
				continue
			}
			if n = proseSeparator(s, i); n == 0 {
				i++
				continue
			}
		}
		// A segment of fewer words than minForeignWords (spaces + 1) can be
		// content only as CJK, which writes none.
		if i-start >= 2*minForeignWords && (spaces >= minForeignWords-1 || hasCJK(s[start:i])) && !systemsMessage(s, start, i) {
			proseSegment(&w, start, i, i < len(s) && s[i] == '=')
		}
		if i == len(s) {
			break
		}
		i += n
		start, spaces = i, 0
	}
	if w.out == nil {
		return s
	}
	return string(append(w.out, s[w.last:]...))
}

// proseOut builds prose's output: the text up to last copied, the runs
// emit is given replaced.
type proseOut struct {
	s    string
	out  []byte
	last int
}

// emit replaces s[a:z] with its Text marker.
func (w *proseOut) emit(a, z int) {
	if w.out == nil {
		w.out = make([]byte, 0, len(w.s))
	}
	w.out = append(w.out, w.s[w.last:a]...)
	w.out = append(w.out, Text(w.s[a:z])...)
	w.last = z
}

// maySeparate marks the bytes a delimiter of proseSeparator starts with.
var maySeparate = func() (t [256]bool) {
	for _, c := range []byte("\n\r\t\"`(){}<>=|];[:\\'\x1b") {
		t[c] = true
	}
	return t
}()

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

// proseSegment judges the segment s[lo:hi] of w's text and emits each run
// to replace. atKey says the segment ends where a '=' follows its last
// token, which is then a key and stays.
func proseSegment(w *proseOut, lo, hi int, atKey bool) {
	s := w.s
	vocab := proseVocabulary()
	words, foreign, cjk := 0, 0, false
	for a, z := range fieldsIn(s, lo, hi) {
		if hasCJK(s[a:z]) {
			cjk = true
			continue
		}
		word, ok := proseWord(s, a, z)
		if !ok {
			continue
		}
		switch class := wordClass(vocab, word); class {
		case wordFunction:
		case wordPerson:
			words++
			foreign++
		case wordSystem:
			words++
		default:
			words++
			if utf8.RuneCountInString(word) >= 2 {
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
			w.emit(runStart, runEnd)
		}
		runWords = 0
	}
	for a, z := range fieldsIn(s, lo, hi) {
		if hasCJK(s[a:z]) {
			flush()
			if cjkContent(s[a:z]) {
				w.emit(cjkExtent(s, a, z))
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

// fieldsIn yields the bounds of each run of bytes of s[lo:hi] other than
// ' ', '\f' and '\v', left to right.
func fieldsIn(s string, lo, hi int) iter.Seq2[int, int] {
	return func(yield func(int, int) bool) {
		for i := lo; i < hi; {
			for i < hi && (s[i] == ' ' || s[i] == '\f' || s[i] == '\v') {
				i++
			}
			a := i
			for i < hi && s[i] != ' ' && s[i] != '\f' && s[i] != '\v' {
				i++
			}
			if a == i || !yield(a, i) {
				return
			}
		}
	}
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
	for i := 0; i < len(w); {
		c := w[i]
		if c < utf8.RuneSelf {
			i++
			switch {
			case c >= 'a' && c <= 'z':
				lower++
				prevLetter, prevLower = true, true
				continue
			case c >= 'A' && c <= 'Z':
				upper++
				hump = hump || prevLower
				prevLetter, prevLower = true, false
				continue
			case c == '\'' || c == '-':
				if !prevLetter {
					return "", false
				}
				prevLetter, prevLower = false, false
				continue
			default:
				return "", false
			}
		}
		r, n := utf8.DecodeRuneInString(w[i:])
		i += n
		switch {
		case unicode.IsLetter(r) || unicode.IsMark(r):
			if unicode.IsUpper(r) {
				upper++
				hump = hump || prevLower
				prevLower = false
			} else {
				lower++
				prevLower = unicode.IsLower(r)
			}
			prevLetter = true
		case r == '’':
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
func wordClass(vocab *hashTable, w string) uint8 {
	h := uint64(14695981039346656037)
	for i := 0; i < len(w); i++ {
		c := w[i]
		if c >= utf8.RuneSelf {
			return vocab.get(hashWord(strings.ToLower(w)))
		}
		h = (h ^ uint64(lowerASCII(c))) * 1099511628211
	}
	return vocab.get(h | 1)
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
	for _, r := range t {
		if !isCJKRune(r) {
			prev = 0
			continue
		}
		chars++
		if prev != 0 {
			total++
			if pairs.get(pairKey(prev, r)) != 0 {
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

// systemsMessage reports whether s[lo:hi] is a JSON string that is all of
// the value of a member naming the system's own message about a failure,
// which stays in whatever language the service writes: a key whose last
// word is a message's (message, msg, text, title, detail, description)
// after an error's word (error_message, errorText, exception.message,
// validation_msg), or the title and detail of a problem details object
// (RFC 9457: its "type", "title", "status", "detail" and "instance"),
// which the text shows by a numeric "status" member.
func systemsMessage(s string, lo, hi int) bool {
	if lo < 2 || hi >= len(s) || s[lo-1] != '"' || s[hi] != '"' {
		return false
	}
	j := lo - 2
	for j >= 0 && s[j] == ' ' {
		j--
	}
	if j < 0 || s[j] != ':' {
		return false
	}
	for j--; j >= 0 && s[j] == ' '; j-- {
	}
	if j < 1 || s[j] != '"' {
		return false
	}
	k := strings.LastIndexByte(s[:j], '"')
	if k < 0 || j-k > 64 {
		return false
	}
	var buf [8]string
	words := splitWords(s[k+1:j], buf[:0])
	if len(words) == 0 || firstPerson(s, lo, hi) {
		// A message in the first person quotes a person's words.
		return false
	}
	switch last := words[len(words)-1]; last {
	case "message", "msg", "text", "title", "detail", "description":
		for _, w := range words[:len(words)-1] {
			if errorKeyWords[w] {
				return true
			}
		}
		if len(words) == 1 && (last == "title" || last == "detail") {
			return problemDetails(s)
		}
	}
	return false
}

// firstPerson reports whether s[lo:hi] holds a word of the first person
// (personWords), which a system's message does not use.
func firstPerson(s string, lo, hi int) bool {
	vocab := proseVocabulary()
	for a, z := range fieldsIn(s, lo, hi) {
		if w, ok := proseWord(s, a, z); ok && wordClass(vocab, w) == wordPerson {
			return true
		}
	}
	return false
}

// errorKeyWords, before a message's word in a key, say the message is a
// failure's.
var errorKeyWords = map[string]bool{
	"error": true, "errors": true, "err": true, "fault": true, "exception": true,
	"validation": true, "failure": true,
}

// problemDetails reports whether s holds a problem details object's numeric
// status beside its type (RFC 9457).
func problemDetails(s string) bool {
	i := strings.Index(s, `"status":`)
	if i < 0 || !strings.Contains(s, `"type":`) {
		return false
	}
	i += len(`"status":`)
	for i < len(s) && s[i] == ' ' {
		i++
	}
	return i+3 <= len(s) && s[i] >= '1' && s[i] <= '5' && s[i+1] >= '0' && s[i+1] <= '9' && s[i+2] >= '0' && s[i+2] <= '9'
}
