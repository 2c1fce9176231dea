package redact

//go:generate go run gen_gitleaks.go

import (
	"math"
	"regexp"
	"slices"
	"strings"
	"sync"
	"unicode/utf8"
)

// KindCredential is a credential found by one of the rules ported from
// gitleaks' default configuration (gitleaks_rules.go): a service's token by
// its shape (glpat-…, dop_v1_…, hf_…) or a value assigned to a name that
// mentions the service or a credential (GITLAB_TOKEN=…, "datadog": "…").
const KindCredential Kind = "credential"

// portedRule is a rule of gitleaks' default configuration, as
// gen_gitleaks.go writes it. It matches as gitleaks' detector does: the
// expression runs only when one of the keywords occurs (ASCII case
// ignored); the secret is the group numbered group, or else the first group
// that matched, or else the whole match; a secret whose Shannon entropy is at
// most entropy, or that an allowlist (the rule's or the global one) allows,
// is no finding.
//
// anchor, when set, is the expression rewritten by gen_gitleaks.go to run
// anchored at each occurrence of a keyword (every match starts with one),
// with wordStart asking for a word boundary there: the semi-generic rules
// ("[\w.-]{0,50}?(?:datadog)…") cost RE2 hundreds of nanoseconds a byte
// over the whole text, and a few dozen bytes at each keyword.
type portedRule struct {
	id        string
	re        string
	anchor    string
	wordStart bool
	maxLen    int // the longest match of anchor in bytes; 0 when unbounded
	assign    *valueShape
	group     int
	entropy   float64
	keywords  []string
	allow     []portedAllow

	once     sync.Once
	compiled *regexp.Regexp
}

// portedAllow is a gitleaks allowlist, its text checks only: regexes
// matched against the secret, the whole match or its line (target), and
// stop words contained in the lower-cased secret. and requires both kinds
// of check to hold, or alone the kind present.
type portedAllow struct {
	and       bool
	target    string
	regexes   []string
	stopwords []string

	once      sync.Once
	compiled  []*regexp.Regexp
	stopIndex map[uint16][]string
	shortStop []string // stop words of one byte
}

// valueShape is what a semi-generic rule's secret needs: at least min
// bytes, the first one of first and each one of bytes (a bit per byte
// value).
type valueShape struct {
	min          int
	first, bytes [4]uint64
}

// regexp compiles the rule's expression on first use: a process that never
// meets a rule's keywords never pays for compiling it.
func (r *portedRule) regexp() *regexp.Regexp {
	r.once.Do(func() {
		if r.anchor != "" {
			r.compiled = regexp.MustCompile(r.anchor)
		} else {
			r.compiled = regexp.MustCompile(r.re)
		}
	})
	return r.compiled
}

// secretSpan returns the bounds of the secret in a match's submatch
// indices, as gitleaks picks it.
func (r *portedRule) secretSpan(loc []int) (int, int) {
	if r.group > 0 && 2*r.group+1 < len(loc) {
		return loc[2*r.group], loc[2*r.group+1]
	}
	for g := 1; 2*g+1 < len(loc); g++ {
		if a, b := loc[2*g], loc[2*g+1]; a >= 0 && b > a {
			return a, b
		}
	}
	return loc[0], loc[1]
}

// finding reports whether the candidate secret s[a:b] of the match
// s[start:end] is one gitleaks reports: entropy above the rule's floor and
// no allowlist holding.
func (r *portedRule) finding(s string, start, end, a, b int) bool {
	secret := s[a:b]
	if r.entropy > 0 && shannonEntropy(secret) <= r.entropy {
		return false
	}
	if traceContext(secret) {
		return false
	}
	for i := range gitleaksAllow {
		if gitleaksAllow[i].allows(s, start, end, secret) {
			return false
		}
	}
	for i := range r.allow {
		if r.allow[i].allows(s, start, end, secret) {
			return false
		}
	}
	return true
}

// allows reports whether the allowlist lets the candidate secret of the
// match s[start:end] pass.
func (a *portedAllow) allows(s string, start, end int, secret string) bool {
	a.once.Do(a.build)
	// Stop words first: they are cheap, and an OR list needs one check.
	if len(a.stopwords) > 0 {
		stop := a.containsStopword(secret)
		if stop && !a.and {
			return true
		}
		if !stop && a.and {
			return false
		}
	}
	if len(a.compiled) == 0 {
		return a.and // an AND list of stop words alone held
	}
	target := secret
	switch a.target {
	case "match":
		target = strings.Trim(s[start:end], "\n")
	case "line":
		lo := strings.LastIndexByte(s[:start], '\n') + 1
		hi := len(s)
		if i := strings.IndexByte(s[end:], '\n'); i >= 0 {
			hi = end + i
		}
		target = s[lo:max(hi, end)]
	}
	if target == "" {
		return false
	}
	// One by one rather than joined as gitleaks joins them: most are
	// anchored and fail at once, which their alternation would not.
	for _, re := range a.compiled {
		if re.MatchString(target) {
			return true
		}
	}
	return false
}

func (a *portedAllow) build() {
	for _, re := range a.regexes {
		a.compiled = append(a.compiled, regexp.MustCompile(re))
	}
	if len(a.stopwords) > 0 {
		a.stopIndex = map[uint16][]string{}
		for _, w := range a.stopwords {
			if len(w) < 2 {
				a.shortStop = append(a.shortStop, w)
				continue
			}
			k := uint16(w[0])<<8 | uint16(w[1])
			a.stopIndex[k] = append(a.stopIndex[k], w)
		}
	}
}

// containsStopword reports whether the lower-cased secret contains one of
// the stop words.
func (a *portedAllow) containsStopword(secret string) bool {
	if secret == "" {
		return false
	}
	s := strings.ToLower(secret)
	for _, w := range a.shortStop {
		if strings.Contains(s, w) {
			return true
		}
	}
	for i := 0; i+1 < len(s); i++ {
		for _, w := range a.stopIndex[uint16(s[i])<<8|uint16(s[i+1])] {
			if strings.HasPrefix(s[i:], w) {
				return true
			}
		}
	}
	return false
}

// shannonEntropy is gitleaks' measure: over the runes of data, with
// frequencies relative to its length in bytes.
func shannonEntropy(data string) float64 {
	if data == "" {
		return 0
	}
	var ascii [128]int
	var other map[rune]int
	for _, r := range data {
		if r < utf8.RuneSelf {
			ascii[r]++
			continue
		}
		if other == nil {
			other = map[rune]int{}
		}
		other[r]++
	}
	inv := 1.0 / float64(len(data))
	e := 0.0
	for _, n := range ascii {
		if n > 0 {
			f := float64(n) * inv
			e -= f * math.Log2(f)
		}
	}
	for _, n := range other {
		f := float64(n) * inv
		e -= f * math.Log2(f)
	}
	return e
}

// portedPatterns turns the ported rules into Patterns of kind
// KindCredential.
func portedPatterns() []Pattern {
	ps := make([]Pattern, len(gitleaksRules))
	for i := range gitleaksRules {
		r := &gitleaksRules[i]
		ps[i] = Pattern{Kind: KindCredential, Triggers: r.keywords, port: r, positional: r.anchor != ""}
	}
	return ps
}

// replacePorted returns s with the accepted findings of the ported rule
// replaced by the pattern's marker; ids are the pattern's triggers and in
// describes s.
func (p *Pattern) replacePorted(s string, in *probe, ids []uint16) string {
	r := p.port
	re := r.regexp()
	out := splicer{s: s}
	emit := func(loc []int, start int) {
		a, b := r.secretSpan(loc)
		if a == loc[0] && b == loc[1] {
			// A whole match is the secret, its newlines trimmed as gitleaks
			// trims them.
			for a < b && s[a] == '\n' {
				a++
			}
			for b > a && s[b-1] == '\n' {
				b--
			}
		}
		if a < out.copied || b <= a || isMarker(s[a:b]) || !r.finding(s, start, loc[1], a, b) {
			return
		}
		out.replace(a, b, p.Kind.Marker())
	}
	if r.anchor == "" {
		for _, loc := range re.FindAllStringSubmatchIndex(s, -1) {
			emit(loc, loc[0])
		}
	} else {
		end, last := 0, -1
		for _, o := range in.occurrences() {
			at := int(o.pos)
			if at < end || at == last || !slices.Contains(ids, o.id) {
				continue
			}
			last = at
			if r.wordStart && isWordAt(s, at-1) == isWordAt(s, at) || r.assign != nil && !r.assign.ahead(s, at) {
				continue
			}
			loc := r.matchAt(re, s[at:])
			if loc == nil {
				continue
			}
			for i := range loc {
				if loc[i] >= 0 {
					loc[i] += at
				}
			}
			// Where gitleaks' match starts: a semi-generic rule's match takes
			// in up to 50 identifier bytes before the name.
			start := at
			if !r.wordStart {
				for start > max(end, at-50) && isKeyByte(s[start-1]) {
					start--
				}
			}
			end = loc[1]
			emit(loc, start)
		}
	}
	return out.String()
}

// matchAt matches the anchored expression at the start of s. It searches a
// window one byte longer than the longest match, or of 1 KiB when matches
// are unbounded: the backtracker's cost grows with its input, the whole
// rest of the text. A match that reaches the window's end may have been cut
// short (or found an end of text that is not one): it is matched again on
// all of s.
func (r *portedRule) matchAt(re *regexp.Regexp, s string) []int {
	w := r.maxLen + 1
	if r.maxLen == 0 {
		w = 1 << 10
	}
	if w >= len(s) {
		return re.FindStringSubmatchIndex(s)
	}
	loc := re.FindStringSubmatchIndex(s[:w])
	if loc != nil && loc[1] >= w-1 {
		loc = re.FindStringSubmatchIndex(s)
	}
	return loc
}

// ahead is what a semi-generic rule needs after the name at i before its
// expression can match: identifier bytes and blanks, up to three
// whitespace bytes or quotes, a separator ("=", ">", ":", ":=", "||", "=>",
// "?=", ","), then a run of at least min bytes each of which is a byte of
// the secret or one the rule allows before it (quotes, whitespace, '=').
// Most occurrences of a name in prose fail it at once.
func (v *valueShape) ahead(s string, i int) bool {
	j := i
	for j < len(s) && j-i < 80 && (isKeyByte(s[j]) || s[j] == ' ' || s[j] == '\t') {
		j++
	}
	for k := 0; k < 3 && j < len(s) && strings.IndexByte(" \t\n\r\f\v'\"", s[j]) >= 0; k++ {
		j++
	}
	if j == len(s) || strings.IndexByte("=>:|?,", s[j]) < 0 {
		return false
	}
	for j++; j < len(s) && strings.IndexByte(":|>?", s[j]) >= 0 && j-i < 90; j++ {
	}
	// Up to five quotes, blanks or '=' may come first (and the '=' that
	// ends ":=" or "?="): then min bytes of the secret.
	for k := 0; k <= 6 && j+k+v.min <= len(s); k++ {
		if k > 0 && strings.IndexByte("`'\" \t\n\r\f\v=", s[j+k-1]) < 0 {
			break
		}
		if v.run(s[j+k:]) {
			return true
		}
	}
	return false
}

// run reports whether s starts with min bytes of the secret.
func (v *valueShape) run(s string) bool {
	if c := s[0]; v.first[c>>6]&(1<<(c&63)) == 0 {
		return false
	}
	for i := 1; i < v.min; i++ {
		if c := s[i]; v.bytes[c>>6]&(1<<(c&63)) == 0 {
			return false
		}
	}
	return true
}

func isWordAt(s string, i int) bool { return i >= 0 && i < len(s) && isWord(s[i]) }

// traceContext reports whether v is a W3C Trace Context traceparent, after
// its header's name or not: a version, a trace id of 32 hex digits, a
// parent id of 16 and flags of 2, split by '-'
// (traceparent=00-2c9e…-6b1d…-01). It names a trace, is sent with every
// request and grants nothing, though a generic rule's keyword may stand
// before it.
func traceContext(v string) bool {
	if k := strings.IndexByte(v, '='); k >= 0 && strings.EqualFold(v[:k], "traceparent") {
		v = v[k+1:]
	}
	if len(v) != 55 || v[2] != '-' || v[35] != '-' || v[52] != '-' {
		return false
	}
	for i := 0; i < len(v); i++ {
		if i != 2 && i != 35 && i != 52 && !isHex(v[i]) {
			return false
		}
	}
	return true
}
