package redact

import (
	"strings"
	"unicode/utf8"
)

// Text that was written into HTML — an exception mail's request
// parameters, an error page's dump — has its quotes and brackets as
// character references (&quot;password&quot;=&gt;&quot;…&quot;), which
// hide the key rules' shapes. Like a percent-encoded run, such text is
// decoded and redacted one level deeper: each markup text node (the text
// between '>' and '<', within a line) holding a reference is decoded —
// the named references of markup's syntax (&quot; &apos; &amp; &lt; &gt;
// &nbsp;) and numeric ones (&#34; &#x22;) — and what the rules replace in
// the decoded text is replaced at the same place in the encoded one, so
// the references around it stay as written. A node whose replacements
// cannot be placed back goes whole (deny by default).

// entityNames are the named references decoded, and what they stand for.
var entityNames = map[string]string{
	"quot": `"`, "apos": "'", "amp": "&", "lt": "<", "gt": ">", "nbsp": " ",
}

// hasEntity reports whether s holds a character reference: '&', a letter
// or '#', and ';' within the next few bytes. It is the cheap test before
// the layer.
func hasEntity(s string) bool {
	for i := 0; ; {
		k := strings.IndexByte(s[i:], '&')
		if k < 0 {
			return false
		}
		i += k + 1
		if _, n := entityAt(s, i-1); n > 0 {
			return true
		}
	}
}

// entityAt decodes the character reference at s[i] ('&'), returning what
// it stands for and its length, or 0 when there is none.
func entityAt(s string, i int) (string, int) {
	if i+3 >= len(s) {
		return "", 0
	}
	c := s[i+1]
	if c != '#' && !isLetter(c) {
		return "", 0
	}
	e := strings.IndexByte(s[i+1:min(len(s), i+10)], ';')
	if e < 1 {
		return "", 0
	}
	name := s[i+1 : i+1+e]
	if c != '#' {
		r, ok := entityNames[name]
		if !ok {
			return "", 0
		}
		return r, e + 2
	}
	digits, base := name[1:], 10
	if digits != "" && (digits[0] == 'x' || digits[0] == 'X') {
		digits, base = digits[1:], 16
	}
	if digits == "" {
		return "", 0
	}
	v := 0
	for k := 0; k < len(digits); k++ {
		d := unhex(digits[k])
		if d < 0 || d >= base {
			return "", 0
		}
		v = v*base + d
	}
	if v == 0 || v > utf8.MaxRune {
		return "", 0
	}
	return string(rune(v)), e + 2
}

// entityText applies the character-reference layer to s.
func entityText(s string, st *state) string {
	if st.depth >= maxDecodeDepth || strings.IndexByte(s, '&') < 0 || !hasEntity(s) {
		return s
	}
	out := splicer{s: s}
	for i := 0; i < len(s); {
		k := strings.IndexByte(s[i:], '&')
		if k < 0 {
			break
		}
		k += i
		if _, n := entityAt(s, k); n == 0 {
			i = k + 1
			continue
		}
		// The text node around the reference, within its line.
		a := k
		for a > i && s[a-1] != '>' && s[a-1] != '\n' {
			a--
		}
		b := k
		for b < len(s) && s[b] != '<' && s[b] != '\n' {
			b++
		}
		if r, ok := entityNode(s[a:b], st); ok {
			out.replace(a, b, r)
		}
		i = b
	}
	return out.String()
}

// entityNode decodes a text node's references, redacts the decoded text
// and returns the node with the replacements placed back, when there were
// any.
func entityNode(node string, st *state) (string, bool) {
	dec := make([]byte, 0, len(node))
	off := make([]int, 0, len(node)+1) // off[j]: where dec[j] starts in node
	for i := 0; i < len(node); {
		if node[i] == '&' {
			if r, n := entityAt(node, i); n > 0 {
				for range len(r) {
					off = append(off, i)
				}
				dec = append(dec, r...)
				i += n
				continue
			}
		}
		dec = append(dec, node[i])
		off = append(off, i)
		i++
	}
	off = append(off, len(node))
	d := string(dec)
	if len(d) < minSecretLen || !st.canDecode(len(d)) {
		return "", false
	}
	inner := redactText(d, st.deeper())
	if inner == d {
		return "", false
	}
	if r, ok := placeBack(node, d, inner, off); ok {
		return r, true
	}
	return blobMarker(d, inner), true
}

// placeBack maps the markers of inner, the redaction of dec, onto node,
// the encoded text dec was decoded from (off maps dec's bytes to node's):
// the text between markers is dec's unchanged, so each marker replaces
// what lies between the text before it and the text after it.
func placeBack(node, dec, inner string, off []int) (string, bool) {
	var b strings.Builder
	pos, copied := 0, 0 // pos in dec; copied in node
	for i := 0; i < len(inner); {
		j := i
		for j < len(inner) && markerEnd(inner, j) == j {
			j++
		}
		lit := inner[i:j]
		if !strings.HasPrefix(dec[pos:], lit) {
			return "", false
		}
		pos += len(lit)
		if j == len(inner) {
			break
		}
		ms := j
		for j < len(inner) && markerEnd(inner, j) != j {
			j = markerEnd(inner, j)
		}
		markers := inner[ms:j]
		k := j
		for k < len(inner) && markerEnd(inner, k) == k {
			k++
		}
		next := inner[j:k]
		var q int
		switch {
		case k == len(inner):
			q = len(dec) - len(next)
			if q < pos || dec[q:] != next {
				return "", false
			}
		case next == "":
			return "", false
		default:
			x := strings.Index(dec[pos:], next)
			if x < 0 {
				return "", false
			}
			q = pos + x
		}
		b.WriteString(node[copied:off[pos]])
		b.WriteString(markers)
		copied = off[q]
		pos = q
		i = j
	}
	b.WriteString(node[copied:])
	return b.String(), true
}

// markerEnd returns the end of the marker (a redaction's or a text's) at
// s[i], or i when none starts there.
func markerEnd(s string, i int) int {
	if s[i] != '[' {
		return i
	}
	if e := skipMarker(s, i); e != i {
		return e + 1
	}
	if strings.HasPrefix(s[i:], "[text ") {
		if j := strings.IndexByte(s[i:], ']'); j > 0 && isTextMarker(s[i:i+j+1]) {
			return i + j + 1
		}
	}
	return i
}
