package redact

// Bounds on the work one input can cause. Decoding only ever shrinks text
// (percent-, base64- and escape-decoding all do), so what is bounded is how
// often the same bytes are looked at again: at most maxDecodeDepth nested
// encodings, and at most maxDecodedBytes of decoded text per input.
const (
	// maxDecodeDepth bounds nested encodings: a base64 blob holding a
	// percent-encoded form holding an escaped JSON string is depth 3.
	maxDecodeDepth = 4
	// maxDecodedBytes bounds the decoded bytes one input may cause to be
	// looked at again, in one pass over it. A blob that would go over it is
	// not looked into and is redacted whole (deny by default), so that
	// redaction stays idempotent.
	maxDecodedBytes = 64 << 10
)

// state is what one call of String (or JSON, Value, …) shares with the
// calls it makes on decoded and nested text.
type state struct {
	depth int
	// noTokens turns the random-token rule off: the text is the value of
	// an identifier's key (request_id, ETag), which the operator needs.
	noTokens bool
	// noProse turns the prose layer (prose.go) off: the text is a quoted
	// string decoded from its escapes, which the rules of the text around
	// it judge whole after this; the prose layer then reads it there, its
	// escapes being delimiters of its own.
	noProse bool
	// root is the state of the top-level call, which holds the budget.
	root   *state
	budget int // decoded bytes left; in the root only
	// perPass renews the budget for every pass of the top-level text
	// (String); a JSON document's strings share one budget.
	perPass bool
	// work counts the bytes of every text redacted under the root, and
	// deepest the deepest nesting reached: the tests hold them to their
	// bounds.
	work, deepest int
}

func newState() *state {
	st := &state{budget: maxDecodedBytes}
	st.root = st
	return st
}

// deeper returns the state for text decoded from the text st describes.
func (st *state) deeper() *state {
	d := &state{depth: st.depth + 1, root: st.root, noProse: st.noProse}
	st.root.deepest = max(st.root.deepest, d.depth)
	return d
}

// deeperWithoutProse is deeper for a quoted string's decoded text, which
// the prose layer reads where it stands (noProse).
func (st *state) deeperWithoutProse() *state {
	d := st.deeper()
	d.noProse = true
	return d
}

// withoutTokens returns st for an identifier's value.
func (st *state) withoutTokens() *state {
	c := *st
	c.noTokens = true
	return &c
}

// canDecode reports whether n more decoded bytes may be looked at: the
// depth and the budget allow it. It spends the budget when they do.
func (st *state) canDecode(n int) bool {
	if st.depth >= maxDecodeDepth || st.root.budget < n {
		return false
	}
	st.root.budget -= n
	return true
}
