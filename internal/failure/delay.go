package failure

import (
	"math"
	"strconv"
	"strings"
	"sync"
	"time"
	"unicode"
	"unicode/utf8"
)

// DelayPhrases are the words after which providers write, in prose, the
// delay they ask for: "Please try again in 59.977s", "Please retry after
// 6 seconds", "retry in 35.5s", "wait 2 minutes", "resets in 1m30s". Each
// is lower case; it matches whatever the case of the text and however its
// whitespace runs, at the start of a word (docs/design.md "Delay hints").
// A client's own backoff ("Retrying in 32 seconds", tenacity's "Retrying
// f in 2.0 seconds") is not the upstream's request and is not read. The
// table is indexed on first use: change it before the first classification.
var DelayPhrases = []string{
	"try again in", "try again after", "retry after", "retry in", "retry again in",
	"wait", "reset in", "resets in", "reset after", "resets after", "available in", "available again in",
	"retry-after:", "try waiting", // archive.org: "Try waiting for 5 minutes and then try again"
}

// delayFillers are the words that may stand between a phrase and its
// duration: "wait at least 2 seconds", "retry in about 1 minute".
var delayFillers = []string{"at least", "up to", "about", "approximately", "approx.", "around", "roughly", "another", "for", "~"}

// delayNumberWords are the numbers a prose duration writes in words before
// its unit: "wait up to one minute", "retry in an hour". A number in words
// is read only before a unit, never as a bare number of seconds.
var delayNumberWords = []struct {
	word string
	n    float64
}{
	{"one", 1}, {"two", 2}, {"three", 3}, {"four", 4}, {"five", 5}, {"six", 6}, {"seven", 7}, {"eight", 8},
	{"nine", 9}, {"ten", 10}, {"an", 1}, {"a", 1},
}

// delayUnits are the units a prose duration is written in, longest first
// where one is the start of another ("ms" before "m", "minutes" before
// "min").
var delayUnits = []struct {
	word string
	unit time.Duration
}{
	{"milliseconds", time.Millisecond}, {"millisecond", time.Millisecond}, {"msecs", time.Millisecond}, {"msec", time.Millisecond}, {"ms", time.Millisecond},
	{"seconds", time.Second}, {"second", time.Second}, {"secs", time.Second}, {"sec", time.Second}, {"s", time.Second},
	{"minutes", time.Minute}, {"minute", time.Minute}, {"mins", time.Minute}, {"min", time.Minute}, {"m", time.Minute},
	{"hours", time.Hour}, {"hour", time.Hour}, {"hrs", time.Hour}, {"hr", time.Hour}, {"h", time.Hour},
	{"days", 24 * time.Hour}, {"day", 24 * time.Hour}, {"d", 24 * time.Hour},
}

// Bounds of the prose reader: how far into a text it looks, how many
// phrase occurrences it tries, how many components a duration has.
const (
	maxDelayScan       = 16 << 10
	maxDelayCandidates = 8
	maxDelayParts      = 4
)

// ProseDelay finds the first delay written in prose after one of
// DelayPhrases in s: "try again in 644ms", "Please retry after 2 seconds",
// "retry in 1m30s", "wait 0.5 hours". A bare number is seconds ("retry
// after 30."). The delay is clamped to MaxRequestedDelay. The work is
// bounded: the first 16 KiB of s, eight occurrences of a phrase, four
// components of a duration.
func ProseDelay(s string) (time.Duration, bool) {
	if len(s) > maxDelayScan {
		s = s[:maxDelayScan]
	}
	first := delayFirst()
	tries := 0
	for i := 0; i < len(s); i++ {
		group := first[s[i]]
		if group == nil {
			continue
		}
		if i > 0 && (isLetter(s[i-1]) || isDigitByte(s[i-1]) || s[i-1] == '_') {
			continue // not the start of a word: "await", "_achat_with_retry in 2.0 seconds"
		}
		for _, ph := range group {
			n, ok := prefixFold(s[i:], ph)
			if !ok {
				continue
			}
			if tries++; tries > maxDelayCandidates {
				return 0, false
			}
			if d, ok := durationAfter(s[i+n:]); ok {
				return d, true
			}
		}
	}
	return 0, false
}

// delayFirst indexes DelayPhrases by their first byte, in both cases.
var delayFirst = sync.OnceValue(func() *[256][]string {
	var t [256][]string
	for _, ph := range DelayPhrases {
		c := ph[0]
		t[c] = append(t[c], ph)
		if c >= 'a' && c <= 'z' {
			t[c-'a'+'A'] = append(t[c-'a'+'A'], ph)
		}
	}
	return &t
})

// prefixFold reports whether s starts with the lowercase phrase ph,
// ignoring ASCII case, a space in ph matching any run of whitespace; n is
// how many bytes of s it took. The phrase must end a word.
func prefixFold(s, ph string) (n int, ok bool) {
	n, ok = foldedPrefix(s, ph)
	if !ok || n < len(s) && isLetter(s[n]) {
		return 0, false
	}
	return n, true
}

// durationAfter reads "[fillers] duration" at the start of s.
func durationAfter(s string) (time.Duration, bool) {
	s = skipSpace(s)
	for range 3 {
		moved := false
		for _, f := range delayFillers {
			if n, ok := prefixFold(s, f); ok || f == "~" && strings.HasPrefix(s, "~") {
				if f == "~" {
					n = 1
				}
				s, moved = skipSpace(s[n:]), true
				break
			}
		}
		if !moved {
			break
		}
	}
	return proseDuration(s)
}

// proseDuration reads a duration at the start of s: one to four
// components "N unit" (N an integer or a decimal, the unit one of
// delayUnits, spaced or not: "1m30s", "2 minutes and 30 seconds"), or a
// bare number of seconds that ends a clause ("retry after 30.").
func proseDuration(s string) (time.Duration, bool) {
	var total float64 // nanoseconds
	parts := 0
	for parts < maxDelayParts {
		num, rest, ok := leadingNumber(s)
		word := false
		if !ok {
			if num, rest, ok = wordNumber(s); !ok {
				break
			}
			word = true
		}
		after := skipSpace(rest)
		unit, n := matchUnit(after)
		if n == 0 {
			if parts == 0 && !word && bareEnd(rest) {
				total = num * float64(time.Second)
				parts = 1
			}
			break
		}
		total += num * float64(unit)
		parts++
		s = after[n:]
		// a separator before the next component: "1m30s", "1 minute 30
		// seconds", "1 minute, 30 seconds", "1 minute and 30 seconds"
		next := skipSpace(strings.TrimPrefix(skipSpace(s), ","))
		if k, ok := prefixFold(next, "and"); ok {
			next = skipSpace(next[k:])
		}
		if next == "" || !isDigitByte(next[0]) {
			break
		}
		s = next
	}
	if parts == 0 || math.IsNaN(total) || total < 0 {
		return 0, false
	}
	if total >= float64(MaxRequestedDelay) {
		return MaxRequestedDelay, true
	}
	return time.Duration(total).Round(time.Millisecond), true
}

// wordNumber reads a number written as a word (delayNumberWords) at the
// start of s, followed by a space.
func wordNumber(s string) (float64, string, bool) {
	for _, w := range delayNumberWords {
		if n, ok := prefixFold(s, w.word); ok && n < len(s) && isSpaceByte(s[n]) {
			return w.n, s[n:], true
		}
	}
	return 0, s, false
}

// leadingNumber reads up to 12 digits, a '.', and up to 12 more.
func leadingNumber(s string) (float64, string, bool) {
	i := 0
	for i < len(s) && i < 12 && isDigitByte(s[i]) {
		i++
	}
	if i == 0 {
		return 0, s, false
	}
	if i < len(s) && s[i] == '.' && i+1 < len(s) && isDigitByte(s[i+1]) {
		j := i + 1
		for j < len(s) && j-i <= 12 && isDigitByte(s[j]) {
			j++
		}
		i = j
	}
	if i < len(s) && isDigitByte(s[i]) {
		return 0, s, false // longer than the bound: not a delay anyone writes
	}
	v, err := strconv.ParseFloat(s[:i], 64)
	if err != nil {
		return 0, s, false
	}
	return v, s[i:], true
}

// matchUnit returns the unit at the start of s and its length, or 0: the
// unit must end a word, no letter in any script after it ("2 mé" is no
// minute; a digit may follow it, "1m30s").
func matchUnit(s string) (time.Duration, int) {
	for _, u := range delayUnits {
		if len(s) < len(u.word) {
			continue
		}
		ok := true
		for k := 0; k < len(u.word); k++ {
			if s[k]|0x20 != u.word[k] {
				ok = false
				break
			}
		}
		if ok && !letterAt(s[len(u.word):]) {
			return u.unit, len(u.word)
		}
	}
	return 0, 0
}

// bareEnd reports whether a bare number ends a clause: the end of the
// text, or punctuation or a space that is not followed by a word in any
// script (a number followed by a word is a count of something else).
func bareEnd(rest string) bool {
	if rest == "" {
		return true
	}
	switch rest[0] {
	case ',':
		return len(rest) == 1 || !isDigitByte(rest[1]) // "1,800 seconds" groups digits
	case '.', ';', ')', '"', '\'', '\n', '\r':
		return true
	case ' ', '\t':
		r, _ := utf8.DecodeRuneInString(skipSpace(rest))
		return r == utf8.RuneError || !unicode.IsLetter(r) && !unicode.IsDigit(r)
	}
	return false
}

// letterAt reports whether s starts with a letter in any script.
func letterAt(s string) bool {
	r, _ := utf8.DecodeRuneInString(s)
	return unicode.IsLetter(r)
}

func skipSpace(s string) string {
	for len(s) > 0 && isSpace(s[0]) {
		s = s[1:]
	}
	return s
}

func isLetter(c byte) bool { return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' }

// googleDuration reads a google.protobuf.Duration as JSON writes it:
// decimal seconds with an "s" ("21s", "0.5s", "35.577423945s").
func googleDuration(v string) (time.Duration, bool) {
	v = strings.TrimSpace(v)
	num, ok := strings.CutSuffix(v, "s")
	if !ok {
		return 0, false
	}
	secs, err := strconv.ParseFloat(num, 64)
	if err != nil {
		return 0, false
	}
	return secondsToDuration(secs)
}

// retryInfoText reads google.rpc.RetryInfo as google-api-core prints a
// status's details in an exception's text, in protobuf's text format:
// "retry_delay { seconds: 33 }", "retry_delay {\n  seconds: 2\n  nanos:
// 500000000\n}". Only the first 16 KiB of s are read; a field other than
// seconds and nanos, or a value that is not a non-negative integer, reads
// no delay. The delay is clamped to MaxRequestedDelay.
func retryInfoText(s string) (time.Duration, bool) {
	const open = "retry_delay {"
	if len(s) > maxDelayScan {
		s = s[:maxDelayScan]
	}
	i := strings.Index(s, open)
	if i < 0 {
		return 0, false
	}
	inner, _, closed := strings.Cut(s[i+len(open):], "}")
	if !closed {
		return 0, false
	}
	fields := strings.Fields(strings.ReplaceAll(inner, ":", " "))
	if len(fields) == 0 || len(fields)%2 != 0 {
		return 0, false
	}
	var d time.Duration
	for k := 0; k < len(fields); k += 2 {
		v, err := strconv.ParseUint(fields[k+1], 10, 63)
		if err != nil {
			return 0, false
		}
		switch fields[k] {
		case "seconds":
			d += time.Duration(min(v, uint64(MaxRequestedDelay/time.Second))) * time.Second
		case "nanos":
			if v >= uint64(time.Second) {
				return 0, false
			}
			d += time.Duration(v)
		default:
			return 0, false
		}
	}
	return min(d, MaxRequestedDelay), d > 0
}
