package redact

import (
	"slices"
	"strings"
)

// HL7 v2 messages carry a patient's identity in fixed fields of their
// segments, '|' between fields and '^' between components: PID-5 the name,
// PID-6 the mother's maiden name, PID-7 the birth date, PID-11 the address,
// PID-13 and -14 the phones, PID-19 the SSN; NK1-2 a next of kin's name,
// -4 the address, -5 and -6 the phones. A MSH, an error (ERR, MSA) and the
// other fields — ids, codes, dates of the message — stay.
//
// A segment is found wherever it stands, not only at a line's start: a log
// or an exception quotes it after its own words ("parsing PID|1||…",
// "segment: PID|||…"), and a message whose carriage returns were dropped
// glues it to the segment before (…|20260423144255PID|1||…). It ends at a
// line's end, at an escaped segment separator (\r, \n, \X0D\, \X0A\) or at
// the next segment glued to its last field.
var hl7PersonalFields = map[string][]int{
	"PID": {5, 6, 7, 11, 13, 14, 19},
	"NK1": {2, 4, 5, 6},
}

// hl7SegmentIDs are the segments that follow a PID or an NK1 in a message,
// by which a segment glued to the field before it is told.
var hl7SegmentIDs = []string{"PD1", "PV1", "PV2", "NK1", "OBR", "OBX", "ORC", "AL1", "DG1", "IN1", "IN2",
	"GT1", "NTE", "ROL", "MRG", "PR1", "QRD", "QRF", "SPM", "TQ1", "EVN", "MSH", "ZPI", "ARV", "DB1"}

// findHL7Field finds the next personal field of a PID or NK1 segment at or
// after from.
func findHL7Field(s string, from int) []int {
	for ls := lineStartOf(s, from); ls+4 < len(s); {
		k := strings.IndexByte(s[ls+3:], '|')
		if k < 0 {
			return nil
		}
		at := ls + 3 + k - 3 // the segment id's start
		ls = at + 4
		fields, ok := hl7PersonalFields[s[at:at+3]]
		if !ok || at > 0 && isLetter(s[at-1]) && !escapedBreak(s, at) || !hl7Segment(s, at+3) {
			continue
		}
		le := hl7SegmentEnd(s, at+3)
		// Field n starts after the n-th '|'.
		n, fs := 0, at+3
		for k := at + 3; k <= le; k++ {
			if k < le && s[k] != '|' {
				continue
			}
			if n > 0 && fs >= from && k > fs && slices.Contains(fields, n) && !wholeMarker(s[fs:k]) {
				return []int{fs, k, -1, -1, fs, k}
			}
			n++
			fs = k + 1
		}
	}
	return nil
}

// escapedBreak reports whether an escaped line break (\r, \n) ends right
// before s[at].
func escapedBreak(s string, at int) bool {
	return at > 1 && s[at-2] == '\\' && (s[at-1] == 'r' || s[at-1] == 'n')
}

// hl7Segment reports whether the '|' at s[i] opens a segment's fields: four
// more '|' and a '^' before the line ends.
func hl7Segment(s string, i int) bool {
	le := lineEnd(s, i)
	return strings.Count(s[i:le], "|") >= 5 && strings.IndexByte(s[i:le], '^') >= 0
}

// hl7SegmentEnd returns where the segment whose first '|' is at s[i] ends.
func hl7SegmentEnd(s string, i int) int {
	le := lineEnd(s, i)
	for k := i + 1; k < le; k++ {
		switch s[k] {
		case '\\':
			if t := s[k+1 : le]; strings.HasPrefix(t, "r") || strings.HasPrefix(t, "n") ||
				strings.HasPrefix(t, "X0D\\") || strings.HasPrefix(t, "X0A\\") || strings.HasPrefix(t, "x0d\\") || strings.HasPrefix(t, "x0a\\") {
				return k
			}
		case '|':
			if k-i > 3 {
				for _, id := range hl7SegmentIDs {
					if s[k-3:k] == id {
						return k - 3
					}
				}
			}
		}
	}
	return le
}

// wholeMarker reports whether a field is one marker already: a field that
// only begins with one (a street a prose rule took, then the city and the
// postal code) still goes whole.
func wholeMarker(f string) bool {
	return strings.HasPrefix(f, markerPrefix) && strings.IndexByte(f, ']') == len(f)-1
}
