package redact

import (
	"iter"
	"strings"
)

// The finders scan a text the same way: each place where a mark stands
// ("://", '(', "where "), from a starting offset, left to right, the next
// search starting just past the mark found. marks, byteMarks, anyMarks and
// foldMarks yield those places; a finder reads each and returns its first
// match.

// marksOf yields the offset of each mark in s at or after from: index
// finds the first in a rest of s, and the next search starts width bytes
// past it.
func marksOf(s string, from int, index func(rest string) int, width int) iter.Seq[int] {
	return func(yield func(int) bool) {
		for i := from; i < len(s); {
			j := index(s[i:])
			if j < 0 || !yield(i+j) {
				return
			}
			i += j + width
		}
	}
}

// marks yields the offset of each sep in s at or after from.
func marks(s string, from int, sep string) iter.Seq[int] {
	return marksOf(s, from, func(rest string) int { return strings.Index(rest, sep) }, len(sep))
}

// byteMarks yields the offset of each c in s at or after from.
func byteMarks(s string, from int, c byte) iter.Seq[int] {
	return marksOf(s, from, func(rest string) int { return strings.IndexByte(rest, c) }, 1)
}

// anyMarks yields the offset of each byte of s at or after from that is
// one of chars (ASCII).
func anyMarks(s string, from int, chars string) iter.Seq[int] {
	return marksOf(s, from, func(rest string) int { return strings.IndexAny(rest, chars) }, 1)
}

// foldMarks yields the offset of each w in s at or after from, w matched
// in any ASCII case (indexFold).
func foldMarks(s string, from int, w string) iter.Seq[int] {
	return marksOf(s, from, func(rest string) int { return indexFold(rest, w) }, len(w))
}
