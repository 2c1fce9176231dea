package redact

import "strings"

// HL7 v2 messages carry a patient's identity in fixed fields of their
// segments, '|' between fields and '^' between components: PID-5 the name,
// PID-6 the mother's maiden name, PID-7 the birth date, PID-11 the address,
// PID-13 and -14 the phones, PID-19 the SSN; NK1-2 a next of kin's name,
// -4 the address, -5 and -6 the phones. A MSH, an error (ERR, MSA) and the
// other fields — ids, codes, dates of the message — stay.
var hl7PersonalFields = map[string][]int{
	"PID": {5, 6, 7, 11, 13, 14, 19},
	"NK1": {2, 4, 5, 6},
}

// findHL7Field finds the next personal field of a PID or NK1 segment at or
// after from.
func findHL7Field(s string, from int) []int {
	for ls := lineStartOf(s, from); ls < len(s); {
		le := lineEnd(s, ls)
		next := le + 1
		if le-ls > 4 && s[ls+3] == '|' {
			if fields, ok := hl7PersonalFields[s[ls:ls+3]]; ok {
				// Field n starts after the n-th '|'.
				n, fs := 0, ls+3
				for k := ls + 3; k <= le; k++ {
					if k < le && s[k] != '|' {
						continue
					}
					if n > 0 && fs >= from && k > fs && wantField(fields, n) && !strings.HasPrefix(s[fs:k], markerPrefix) {
						return []int{fs, k, -1, -1, fs, k}
					}
					n++
					fs = k + 1
				}
			}
		}
		ls = next
	}
	return nil
}

func wantField(fields []int, n int) bool {
	for _, f := range fields {
		if f == n {
			return true
		}
	}
	return false
}
