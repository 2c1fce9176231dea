package redact

import (
	"crypto/sha256"
	"encoding/hex"
	"math"
	"math/bits"
	"strconv"
	"strings"
	"sync"
)

// Kind names what a marker replaced. Kinds appear in logs and dead letters, so
// they never change meaning once shipped.
type Kind string

const (
	// KindOpenAIKey is an OpenAI API key: sk-, sk-proj-, sk-svcacct-, sk-admin-.
	KindOpenAIKey Kind = "openai-key"
	// KindAnthropicKey is an Anthropic API key: sk-ant-api03-… and kin.
	KindAnthropicKey Kind = "anthropic-key"
	// KindAWSAccessKey is an AWS access key id: AKIA or ASIA and 16 more
	// uppercase letters or digits.
	KindAWSAccessKey Kind = "aws-access-key"
	// KindAWSSecret is an AWS secret access key, found by its context only.
	KindAWSSecret Kind = "aws-secret"
	// KindGitHubToken is a GitHub token: ghp_, gho_, ghu_, ghs_, ghr_ or
	// github_pat_.
	KindGitHubToken Kind = "github-token"
	// KindSlackToken is a Slack token of the xox?- family, or an xapp- token.
	KindSlackToken Kind = "slack-token"
	// KindGoogleKey is a Google API key: AIza and 35 more characters.
	KindGoogleKey Kind = "google-key"
	// KindStripeKey is a Stripe secret or restricted key, live or test.
	// Publishable keys (pk_) are not secret and stay.
	KindStripeKey Kind = "stripe-key"
	// KindWebhookSecret is a webhook signing secret: whsec_….
	KindWebhookSecret Kind = "webhook-secret"
	// KindBearer is the credential of an Authorization header, or of a
	// standalone "Bearer …"/"Basic …" token. The scheme word stays.
	KindBearer Kind = "bearer"
	// KindCookie is the value of a Cookie or Set-Cookie header.
	KindCookie Kind = "cookie"
	// KindJWT is a JSON Web Token: three base64url segments starting "eyJ".
	KindJWT Kind = "jwt"
	// KindPrivateKey is a PEM private key block, BEGIN line to END line.
	KindPrivateKey Kind = "private-key"
	// KindPassword is a password: in a URL's user information, or the value
	// of a password-like key.
	KindPassword Kind = "password"
	// KindURLSecret is a secret query parameter value or the secret path of a
	// webhook URL.
	KindURLSecret Kind = "url-secret"
	// KindEmail is an email address.
	KindEmail Kind = "email"
	// KindPhone is a phone number in a typical written shape.
	KindPhone Kind = "phone"
	// KindCard is a payment card number that passes the Luhn check.
	KindCard Kind = "card"
	// KindSSN is a US social security number.
	KindSSN Kind = "ssn"
	// KindSecret is any other value under a secret-looking key.
	KindSecret Kind = "secret"
)

// Kinds returns every Kind, in a stable order.
func Kinds() []Kind {
	return []Kind{
		KindOpenAIKey, KindAnthropicKey, KindAWSAccessKey, KindAWSSecret, KindGitHubToken,
		KindSlackToken, KindGoogleKey, KindStripeKey, KindWebhookSecret, KindBearer,
		KindCookie, KindJWT, KindPrivateKey, KindPassword, KindURLSecret,
		KindEmail, KindPhone, KindCard, KindSSN, KindSecret, KindCredential, KindToken,
		KindIBAN, KindPersonal, KindNationalID,
	}
}

// markerPrefix starts every marker; String never redacts a marker again.
const markerPrefix = "[REDACTED:"

// Marker returns the text that replaces a secret of kind k,
// "[REDACTED:" + k + "]".
func (k Kind) Marker() string { return markerPrefix + string(k) + "]" }

// isMarker reports whether s is exactly one marker, so that redacting
// redacted text changes nothing.
func isMarker(s string) bool {
	if len(s) < len(markerPrefix)+2 || !strings.HasPrefix(s, markerPrefix) || s[len(s)-1] != ']' {
		return false
	}
	for i := len(markerPrefix); i < len(s)-1; i++ {
		if c := s[i]; !(c >= 'a' && c <= 'z' || c == '-') {
			return false
		}
	}
	return true
}

// String returns s with every match of Patterns replaced by its kind's
// marker, e.g. "[REDACTED:openai-key]", "[REDACTED:email]". Patterns run in
// table order, each on the text left by the ones before, and the table runs
// again until the text stops changing (at most 8 passes), so
// String(String(s)) == String(s). Text without secrets comes back unchanged
// and unallocated; a marker is never redacted again. Invalid UTF-8 is kept
// byte for byte outside the replaced spans.
func String(s string) string {
	st := newState()
	st.perPass = true
	return redactText(s, st)
}

// redactText is String for text met at the depth and with the budget st
// describes.
func redactText(s string, st *state) string {
	if len(s) < minSecretLen {
		return s
	}
	// A replacement can remove what delimited another pattern's match (a
	// '#' inside a redacted value no longer ends a URL's authority), so the
	// table runs again until the text stops changing. Each pass that
	// changes anything turns text outside markers into markers, so this
	// ends; real text needs one pass, or two when it held a secret.
	out := pass(s, st)
	for n := 1; out != s && n < maxPasses; n++ {
		if st.perPass {
			// Each pass looks at the same encodings again: the budget
			// bounds one pass, and a pass decides as the one before did
			// up to where the text changed.
			st.budget = maxDecodedBytes
		}
		s, out = out, pass(out, st)
	}
	return out
}

// maxPasses bounds the passes of String over one text.
const maxPasses = 8

// pass applies every layer once: structure and encodings first
// (layers.go), then every pattern of the table, then the rows printed
// under their header line (headedrows.go), then the prose rule to what is
// left (prose.go), then the names people carry (names.go).
func pass(s string, st *state) string {
	st.root.work += len(s)
	out := headedRows(patterns(layers(s, st), st))
	if st.noProse {
		return names(labelled(out))
	}
	return names(labelled(prose(out)))
}

// surface is String without the structure and decoding layers: what the
// patterns alone make of s, which those layers compare with.
func surface(s string, st *state) string {
	out := patterns(s, st)
	for n := 1; out != s && n < maxPasses; n++ {
		s, out = out, patterns(out, st)
	}
	return out
}

// patterns applies every pattern of the table once.
func patterns(s string, st *state) string {
	t := loadTriggers()
	in := probe{s: s, minDigits: t.minDigits, triggers: t, st: st}
	in.found, in.occ = t.scan(s, nil)
	in.occDone = true
	active := t.active(&in.found)
	for i := 0; i < len(Patterns); i++ {
		if active != nil {
			// Jump to the next pattern whose triggers occur.
			w := i >> 6
			bits := active[w] >> (i & 63)
			for bits == 0 {
				if w++; w == len(active) {
					return in.s
				}
				i, bits = w<<6, active[w]
			}
			i += trailingZeros(bits)
			if i >= len(Patterns) {
				break
			}
		} else if !t.present(i, &in.found) {
			continue
		}
		p := &Patterns[i]
		if p.MinDigits > 0 && in.maxDigits() < p.MinDigits || p.AfterMarker && !strings.Contains(in.s, markerPrefix) {
			continue
		}
		if p.tokens && st.noTokens {
			continue
		}
		var out string
		if p.port != nil {
			out = p.replacePorted(in.s, &in, t.of[i])
		} else {
			out = p.replace(in.s, &in)
		}
		if out != in.s {
			in.s, in.runsDone, in.occDone = out, false, false
		}
	}
	return in.s
}

// minSecretLen is shorter than anything the patterns find, so tiny strings
// (statuses, enum values) skip the pre-checks altogether.
const minSecretLen = 6

// Text replaces a prompt, a completion or any other free text by its length
// in bytes and the first 12 hex digits of its SHA-256:
// "[text 1234 bytes sha256:1a2b3c4d5e6f]". Two equal texts give equal
// markers, so dead letters can be compared without revealing what was sent.
// The empty string stays empty, and a Text marker is returned as is, so
// Text(Text(s)) == Text(s).
func Text(s string) string {
	if s == "" || isTextMarker(s) {
		return s
	}
	sum := sha256.Sum256([]byte(s))
	b := make([]byte, 0, 48)
	b = append(b, "[text "...)
	b = strconv.AppendInt(b, int64(len(s)), 10)
	b = append(b, " bytes sha256:"...)
	b = hex.AppendEncode(b, sum[:6])
	b = append(b, ']')
	return string(b)
}

// isTextMarker reports whether s has the exact shape Text produces.
func isTextMarker(s string) bool {
	rest, ok := strings.CutPrefix(s, "[text ")
	if !ok {
		return false
	}
	n := 0
	for n < len(rest) && rest[n] >= '0' && rest[n] <= '9' {
		n++
	}
	if n == 0 {
		return false
	}
	rest, ok = strings.CutPrefix(rest[n:], " bytes sha256:")
	if !ok || len(rest) != 13 || rest[12] != ']' {
		return false
	}
	for i := range 12 {
		if c := rest[i]; !(c >= '0' && c <= '9' || c >= 'a' && c <= 'f') {
			return false
		}
	}
	return true
}

// probe is what the pre-checks of one String call read: the text as the
// patterns so far left it, the triggers found in the input, and the runs of
// digits of the text (computed on first use and after a change).
type probe struct {
	s         string
	found     triggerSet
	minDigits int // the smallest MinDigits of the table: shorter runs are not kept
	runs      []digitRun
	runsDone  bool
	triggers  *triggerTable
	occ       []occurrence
	occDone   bool
	st        *state
	blob      string // the replacement of the blob findIn found, if any
}

// occurrence is where a positional trigger occurs in the text.
type occurrence struct {
	id  uint16
	pos int32
}

// occurrences returns where the positional triggers occur in in.s, in
// order (computed on first use and after a change).
func (in *probe) occurrences() []occurrence {
	if !in.occDone {
		_, in.occ = in.triggers.scan(in.s, in.occ[:0])
		in.occDone = true
	}
	return in.occ
}

// digitRun is a run of digits in the text: its bounds and how many digits
// it holds.
type digitRun struct{ lo, hi, digits int }

// triggerSet holds one bit per distinct trigger of Patterns: 2,048 of
// them. A pattern whose triggers do not fit runs on every text
// (TestTriggersFit keeps them in).
type triggerSet [32]uint64

// patternSet holds one bit per pattern of Patterns.
type patternSet [8]uint64

// active returns the patterns that may match, given the triggers found:
// those with a trigger found and those without triggers; nil when the
// table has too many patterns for a patternSet.
func (t *triggerTable) active(found *triggerSet) *patternSet {
	if t.tooMany {
		return nil
	}
	a := t.always
	for w, bits := range found {
		for bits != 0 {
			id := w<<6 + trailingZeros(bits)
			bits &= bits - 1
			for k := range a {
				a[k] |= t.patterns[id][k]
			}
		}
	}
	return &a
}

func trailingZeros(x uint64) int { return bits.TrailingZeros64(x) }

// triggerTable indexes the Triggers of Patterns by their first two bytes,
// in either ASCII case, so that one pass over the input finds every trigger
// in it, instead of one search per trigger. It also keeps the table's
// smallest MinDigits.
type triggerTable struct {
	words  []string
	single [256][]uint16 // triggers of one byte, by that byte in either case
	flags  [256]uint8    // per byte: flagSingle, flagMarker
	pairs  [1 << 16]uint16
	lists  [][]pairEntry // pairs[k]&^pairFlagged indexes lists; 0 means none

	// By the first two bytes' list and the third byte: thirds[l] has a
	// bit for each third byte of a trigger of list l; then tri holds the
	// triggers of the list that may start with the three bytes (those of
	// two bytes and those of that third), in the list's order. short[l]
	// holds the list's triggers of two bytes, for any other third byte.
	thirds [][4]uint64
	short  [][]pairEntry
	tri    []triSlot  // open addressing by triKey; a power of two long
	of     [][]uint16 // per pattern, its triggers; nil means always run

	patterns []patternSet // per trigger, the patterns it lets run
	always   patternSet   // the patterns without triggers
	tooMany  bool         // more patterns than a patternSet holds: use present

	positional []bool // per trigger: a Pattern wants its positions

	minDigits int // the smallest positive MinDigits
}

// The flags of a byte in triggerTable.flags.
const (
	flagSingle = 1 << iota // a trigger of one byte is this byte
	flagMarker             // '[': a marker may start here
)

// pairFlagged marks in triggerTable.pairs the pairs whose first byte has
// flags, so that scan reads one table per byte.
const pairFlagged = 1 << 15

// pairEntry is a trigger of two bytes or more in the list of its first
// two: its id, its third byte (0 when it has two), and whether a Pattern
// wants its positions, so that scan tells most entries apart without
// reading the word.
// triSlot is a slot of triggerTable.tri: its key (list<<8 | third byte,
// 0 when free) and its triggers.
type triSlot struct {
	key   uint32
	words []pairEntry
}

func triHash(key uint32, n int) int { return int((key*0x9E3779B1)>>7) & (n - 1) }

// triLookup returns the triggers of list l whose third byte is c, or that
// have two bytes.
func (t *triggerTable) triLookup(l uint16, c byte) []pairEntry {
	key := uint32(l)<<8 | uint32(c)
	for h := triHash(key, len(t.tri)); ; h = (h + 1) & (len(t.tri) - 1) {
		switch t.tri[h].key {
		case key:
			return t.tri[h].words
		case 0:
			return t.short[l]
		}
	}
}

type pairEntry struct {
	id         uint16
	third      byte
	positional bool
}

var (
	triggerOnce sync.Once
	triggers    *triggerTable
)

// loadTriggers builds the table from Patterns on first use.
func loadTriggers() *triggerTable {
	triggerOnce.Do(func() { triggers = buildTriggers(Patterns) })
	return triggers
}

func buildTriggers(ps []Pattern) *triggerTable {
	t := &triggerTable{of: make([][]uint16, len(ps)), lists: [][]pairEntry{nil}}
	t.flags['['] = flagMarker
	ids := map[string]uint16{}
	var pairWords [][]uint16 // per list, its triggers in the order met
	for i, p := range ps {
		if p.MinDigits > 0 && (t.minDigits == 0 || p.MinDigits < t.minDigits) {
			t.minDigits = p.MinDigits
		}
		for _, w := range p.Triggers {
			w = lowerString(w) // ASCII letters only, as scan folds a text
			id, ok := ids[w]
			if !ok {
				if w == "" || len(t.words) == len(triggerSet{})*64 {
					t.of[i] = nil // an empty trigger, or too many: always run
					break
				}
				id = uint16(len(t.words))
				ids[w] = id
				t.words = append(t.words, w)
				if len(w) == 1 {
					for _, c := range caseForms(w[0]) {
						t.single[c] = append(t.single[c], id)
						t.flags[c] |= flagSingle
					}
				} else {
					k := uint16(w[0])<<8 | uint16(w[1])
					if t.pairs[k] == 0 {
						l := uint16(len(t.lists))
						for _, a := range caseForms(w[0]) {
							for _, b := range caseForms(w[1]) {
								t.pairs[uint16(a)<<8|uint16(b)] = l
							}
						}
						t.lists = append(t.lists, nil)
						pairWords = append(pairWords, nil)
					}
					pairWords[t.pairs[k]-1] = append(pairWords[t.pairs[k]-1], id)
				}
			}
			t.of[i] = append(t.of[i], id)
		}
	}
	t.patterns = make([]patternSet, len(t.words))
	t.tooMany = len(ps) > len(patternSet{})*64
	for i := range ps {
		if t.tooMany {
			break
		}
		if t.of[i] == nil {
			t.always[i>>6] |= 1 << (i & 63)
		}
		for _, id := range t.of[i] {
			t.patterns[id][i>>6] |= 1 << (i & 63)
		}
	}
	t.positional = make([]bool, len(t.words))
	for i, p := range ps {
		if p.positional {
			for _, id := range t.of[i] {
				t.positional[id] = true
			}
		}
	}
	for l, ws := range pairWords {
		for _, id := range ws {
			e := pairEntry{id: id, positional: t.positional[id]}
			if w := t.words[id]; len(w) > 2 {
				e.third = w[2]
			}
			t.lists[l+1] = append(t.lists[l+1], e)
		}
	}
	for c, f := range t.flags {
		if f != 0 {
			for b := range 256 {
				t.pairs[c<<8|b] |= pairFlagged
			}
		}
	}
	t.thirds = make([][4]uint64, len(t.lists))
	t.short = make([][]pairEntry, len(t.lists))
	n := 0
	for l, es := range t.lists {
		for _, e := range es {
			if e.third == 0 {
				t.short[l] = append(t.short[l], e)
			} else if t.thirds[l][e.third>>6]&(1<<(e.third&63)) == 0 {
				t.thirds[l][e.third>>6] |= 1 << (e.third & 63)
				n++
			}
		}
	}
	size := 64
	for size < 4*n {
		size *= 2
	}
	t.tri = make([]triSlot, size)
	for l, es := range t.lists {
		for _, e := range es {
			if e.third == 0 {
				continue
			}
			key := uint32(l)<<8 | uint32(e.third)
			h := triHash(key, size)
			for t.tri[h].key != 0 && t.tri[h].key != key {
				h = (h + 1) & (size - 1)
			}
			if t.tri[h].key == key {
				continue // the list's words of this third are in already
			}
			t.tri[h].key = key
			for _, f := range es {
				if f.third == 0 || f.third == e.third {
					t.tri[h].words = append(t.tri[h].words, f)
				}
			}
		}
	}
	return t
}

// caseForms returns c and, for a lower-case ASCII letter, its upper case.
func caseForms(c byte) []byte {
	if c >= 'a' && c <= 'z' {
		return []byte{c, c - 'a' + 'A'}
	}
	return []byte{c}
}

// scan returns the triggers that occur in s, ignoring ASCII case and the
// markers of earlier passes ("[REDACTED:secret]" holds no secret, and its
// words would wake the rules named after them), and appends to occ where
// the positional triggers occur.
func (t *triggerTable) scan(s string, occ []occurrence) (triggerSet, []occurrence) {
	var found triggerSet
	if len(s) == 0 || len(s) > math.MaxInt32 {
		return found, occ
	}
	last := len(s) - 1
	i := 0
	for ; i < last; i++ {
		l := t.pairs[uint16(s[i])<<8|uint16(s[i+1])]
		if l == 0 {
			continue
		}
		if l&pairFlagged != 0 {
			if s[i] == '[' {
				if j := skipMarker(s, i); j != i {
					i = j
					continue
				}
			}
			for _, id := range t.single[s[i]] {
				found[id>>6] |= 1 << (id & 63)
			}
			if l &^= pairFlagged; l == 0 {
				continue
			}
		}
		// The third byte tells most words of a common pair apart.
		es := t.short[l]
		if i+2 < len(s) {
			if c := lowerASCII(s[i+2]); t.thirds[l][c>>6]&(1<<(c&63)) != 0 {
				es = t.triLookup(l, c)
			}
		}
		for _, e := range es {
			id := e.id
			seen := found[id>>6]&(1<<(id&63)) != 0
			if seen && !e.positional || !hasPrefixFold(s[i:], t.words[id]) {
				continue
			}
			found[id>>6] |= 1 << (id & 63)
			if e.positional {
				if occ == nil {
					occ = make([]occurrence, 0, 16)
				}
				occ = append(occ, occurrence{id: id, pos: int32(i)})
			}
		}
	}
	if i == last { // the last byte, unless a marker ended there
		for _, id := range t.single[s[i]] {
			found[id>>6] |= 1 << (id & 63)
		}
	}
	return found, occ
}

// skipMarker returns the index of the last byte of the marker that starts
// at s[i], or i when none does.
func skipMarker(s string, i int) int {
	if !strings.HasPrefix(s[i:], markerPrefix) {
		return i
	}
	if j := strings.IndexByte(s[i:], ']'); j > 0 && isMarker(s[i:i+j+1]) {
		return i + j
	}
	return i
}

func lowerASCII(c byte) byte {
	if c >= 'A' && c <= 'Z' {
		return c + 'a' - 'A'
	}
	return c
}

// present reports whether pattern i may match: it has no triggers, or one of
// them was found.
func (t *triggerTable) present(i int, found *triggerSet) bool {
	if i >= len(t.of) || t.of[i] == nil {
		return true
	}
	for _, id := range t.of[i] {
		if found[id>>6]&(1<<(id&63)) != 0 {
			return true
		}
	}
	return false
}

// hasPrefixFold reports whether s starts with the lowercase ASCII word w,
// ignoring ASCII case.
func hasPrefixFold(s, w string) bool {
	if len(s) < len(w) {
		return false
	}
	for j := 0; j < len(w); j++ {
		if lowerASCII(s[j]) != w[j] {
			return false
		}
	}
	return true
}

// digitRuns returns the runs of digits of in.s (see forDigitRuns).
func (in *probe) digitRuns() []digitRun {
	if !in.runsDone {
		in.runs, in.runsDone = in.runs[:0], true
		forDigitRuns(in.s, in.minDigits, func(lo, hi, n int) {
			in.runs = append(in.runs, digitRun{lo, hi, n})
		})
	}
	return in.runs
}

// maxDigits returns the largest number of digits in one run of in.s.
func (in *probe) maxDigits() int {
	best := 0
	for _, r := range in.digitRuns() {
		best = max(best, r.digits)
	}
	return best
}

// forDigitRuns calls f with the bounds and the digit count of every run of
// s that holds at least min digits. A run is digits joined by at most two separator bytes (space,
// '-', '.', '(', ')', '/'), with a '+' or '(' just before its first digit:
// "(415) 555-0100" is one run of 10 digits, "2024-01-15T10:30" runs of 8, 2
// and 2.
func forDigitRuns(s string, min int, f func(lo, hi, digits int)) {
	start, last, n, gap := -1, -1, 0, 0
	flush := func() {
		if start >= 0 && n >= min {
			f(start, last+1, n)
		}
		start, n, gap = -1, 0, 0
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case isDigit(c):
			if start < 0 {
				start = i
				for start > 0 && i-start < 2 && (s[start-1] == '+' || s[start-1] == '(') {
					start--
				}
			}
			n++
			last, gap = i, 0
		case start >= 0 && gap < 2 && (c == ' ' || c == '-' || c == '.' || c == '(' || c == ')' || c == '/'):
			gap++
		default:
			flush()
		}
	}
	flush()
}

// splicer builds a copy of s with spans replaced, left to right, and
// copies nothing until the first replacement.
type splicer struct {
	s      string
	out    []byte
	copied int // s[:copied] is in out
}

// replace puts r in place of s[a:b]; a is at or after the end of the span
// replaced before.
func (p *splicer) replace(a, b int, r string) {
	if p.out == nil {
		p.out = make([]byte, 0, len(p.s))
	}
	p.out = append(p.out, p.s[p.copied:a]...)
	p.out = append(p.out, r...)
	p.copied = b
}

// String returns s with its replacements, or s itself when there were none.
func (p *splicer) String() string {
	if p.out == nil {
		return p.s
	}
	return string(append(p.out, p.s[p.copied:]...))
}
