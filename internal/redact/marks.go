package redact

import (
	"iter"
	"strings"
)

// The finders scan a text the same way: each place where a mark stands
// ("://", '(', "where "), from a starting offset, left to right, the next
// search starting just past the mark found. marks, byteMarks, anyMarks and
// foldMarks
// yield those places; a finder reads each and returns its first match.

// marks yields the offset of each sep in s at or after from.
func marks(s string, from int, sep string) iter.Seq[int] {
	return func(yield func(int) bool) {
		for i := from; i < len(s); {
			j := strings.Index(s[i:], sep)
			if j < 0 || !yield(i+j) {
				return
			}
			i += j + len(sep)
		}
	}
}

// byteMarks yields the offset of each c in s at or after from.
func byteMarks(s string, from int, c byte) iter.Seq[int] {
	return func(yield func(int) bool) {
		for i := from; i < len(s); {
			j := strings.IndexByte(s[i:], c)
			if j < 0 || !yield(i+j) {
				return
			}
			i += j + 1
		}
	}
}

// anyMarks yields the offset of each byte of s at or after from that is
// one of chars (ASCII).
func anyMarks(s string, from int, chars string) iter.Seq[int] {
	return func(yield func(int) bool) {
		for i := from; i < len(s); {
			j := strings.IndexAny(s[i:], chars)
			if j < 0 || !yield(i+j) {
				return
			}
			i += j + 1
		}
	}
}

// foldMarks yields the offset of each w in s at or after from, w matched
// in any ASCII case (indexFold).
func foldMarks(s string, from int, w string) iter.Seq[int] {
	return func(yield func(int) bool) {
		for i := from; i < len(s); {
			j := indexFold(s[i:], w)
			if j < 0 || !yield(i+j) {
				return
			}
			i += j + len(w)
		}
	}
}
