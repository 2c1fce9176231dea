package redact

import (
	"slices"
	"strings"
)

// Records of interchange formats name their people by the format's own
// fields, whatever the language of their values (docs/design.md
// "Redaction", 5): an LDIF entry's person attributes, an iCalendar
// attendee's or organizer's common name, a DICOM dump's person names and
// patient fields, an ASC X12 person's name, address, birth date, phones
// and SSN segments, a SWIFT MT payment's ordering customer and beneficiary.
// The records' ids, codes, dates of the message and organisations' fields
// stay.

// ldifPersonal are the LDAP attributes (RFC 2798, 4519) that hold a
// person's name, mail, phones or postal address. cn is a person's only in
// an entry that is one (ldifPerson).
var ldifPersonal = map[string]bool{
	"cn": true, "sn": true, "givenname": true, "displayname": true, "initials": true,
	"gecos": true, "mail": true, "telephonenumber": true, "mobile": true,
	"homephone": true, "pager": true, "facsimiletelephonenumber": true,
	"postaladdress": true, "homepostaladdress": true, "street": true,
	"registeredaddress": true, "jpegphoto": true, "mailalternateaddress": true,
}

// findLDIF finds the value of a person's attribute line of an LDIF entry
// (`givenName: Małgorzata`, `postalAddress: ul. …$00-549 …`, `cn:: <base64>`)
// at or after from: an entry is the lines from its `dn:` to a blank line.
func findLDIF(s string, from int) []int {
	for ls := lineStartOf(s, from); ls < len(s); {
		le := lineEnd(s, ls)
		if c := strings.IndexByte(s[ls:le], ':'); c > 0 && c < 32 {
			attr := strings.ToLower(s[ls : ls+c])
			if semi := strings.IndexByte(attr, ';'); semi > 0 {
				attr = attr[:semi] // cn;lang-pl
			}
			if ldifPersonal[attr] {
				vs := ls + c + 1
				if vs < le && s[vs] == ':' {
					vs++ // base64
				}
				vs = skipBlanks(s, vs)
				if vs < le && vs >= from && !startsWithMarker(s, vs) {
					if dn := ldifEntryStart(s, ls); dn >= 0 && (attr != "cn" || ldifPerson(s, dn, ls)) {
						return []int{vs, le, -1, -1, vs, le}
					}
				}
			}
		}
		ls = le + 1
		if ls < len(s) && s[ls-1] == '\r' && s[ls] == '\n' {
			ls++
		}
	}
	return nil
}

// ldifEntryStart returns the start of the `dn:` line of the entry the line
// at ls belongs to (no blank line between, within 4 KiB), or -1.
func ldifEntryStart(s string, ls int) int {
	lo := max(0, ls-4096)
	for p := ls; p >= lo; {
		if hasPrefixFold(s[p:], "dn:") {
			return p
		}
		if p == 0 {
			return -1
		}
		pe := p - 1 // the '\n' ending the line before
		if pe > 0 && s[pe-1] == '\r' {
			pe--
		}
		pl := lineStartOf(s, pe)
		if strings.TrimSpace(s[pl:pe]) == "" {
			return -1
		}
		p = pl
	}
	return -1
}

// ldifPerson reports whether the entry from dn is a person's: an
// objectClass naming one (person, inetOrgPerson, posixAccount, user) or a
// surname or given name among its lines.
func ldifPerson(s string, dn, ls int) bool {
	end := dn
	for end < len(s) && end-dn < 4096 {
		le := lineEnd(s, end)
		line := strings.ToLower(strings.TrimSpace(s[end:le]))
		if line == "" {
			break
		}
		if v, ok := strings.CutPrefix(line, "objectclass:"); ok {
			v = strings.TrimSpace(v)
			if strings.Contains(v, "person") || v == "posixaccount" || v == "user" {
				return true
			}
		}
		if strings.HasPrefix(line, "sn:") || strings.HasPrefix(line, "givenname:") {
			return true
		}
		end = le + 1
	}
	return false
}

// findICalName finds the common name (CN=) of an iCalendar ORGANIZER or
// ATTENDEE (RFC 5545), quoted or not, at or after from; the mailto: address
// after it is an e-mail's.
func findICalName(s string, from int) []int {
	for p := range foldMarks(s, from, "cn=") {
		ls := lineStartOf(s, p)
		if !(hasPrefixFold(s[ls:], "attendee;") || hasPrefixFold(s[ls:], "organizer;")) || p > 0 && s[p-1] != ';' {
			continue
		}
		vs, ve := p+3, p+3
		if vs < len(s) && s[vs] == '"' {
			vs++
			ve = vs
			for ve < len(s) && s[ve] != '"' && s[ve] != '\n' {
				ve++
			}
		} else {
			for ve < len(s) && s[ve] != ';' && s[ve] != ':' && s[ve] != '\n' && s[ve] != '\r' {
				ve++
			}
		}
		if ve > vs && !startsWithMarker(s, vs) {
			return []int{vs, ve, -1, -1, vs, ve}
		}
	}
	return nil
}

// dicomPatientTags are the DICOM attributes (PS3.6) of a patient's
// identity besides the person names (VR PN): birth date and time, other and
// birth names, address, phones, mother's birth name. The patient's id and
// the study's tags stay.
var dicomPatientTags = map[string]bool{
	"0010,0030": true, "0010,0032": true, "0010,1001": true, "0010,1005": true,
	"0010,1040": true, "0010,1060": true, "0010,2154": true, "0010,2155": true,
	"0010,21f0": true, "0038,0400": true,
}

// findDICOM finds the value of a personal element in a DICOM dump — a line
// `(gggg,eeee) VR [value]` (dcmdump) or `(gggg, eeee) Name VR: 'value'`
// (pydicom) — whose VR is PN or whose tag is a patient's (dicomPatientTags).
func findDICOM(s string, from int) []int {
	for ls := lineStartOf(s, from); ls < len(s); {
		le := lineEnd(s, ls)
		t := skipBlanks(s, ls)
		if t+11 <= le && s[t] == '(' {
			if tag, rest, ok := dicomTag(s[t:le]); ok {
				vs, ve, vr := dicomValue(s, t+len(s[t:le])-len(rest), le)
				if ve > vs && vs >= from && (vr == "PN" || dicomPatientTags[tag]) && !startsWithMarker(s, vs) {
					return []int{vs, ve, -1, -1, vs, ve}
				}
			}
		}
		ls = le + 1
	}
	return nil
}

// dicomTag reads "(gggg,eeee)" (a space after the comma allowed) at the
// start of line and returns it as "gggg,eeee" in lower case, and the rest.
func dicomTag(line string) (tag, rest string, ok bool) {
	if len(line) < 11 || line[0] != '(' || line[5] != ',' {
		return "", "", false
	}
	e := 6
	if line[e] == ' ' {
		e++
	}
	if e+5 > len(line) || line[e+4] != ')' {
		return "", "", false
	}
	g, el := line[1:5], line[e:e+4]
	for k := 0; k < 4; k++ {
		if unhex(g[k]) < 0 || unhex(el[k]) < 0 {
			return "", "", false
		}
	}
	return strings.ToLower(g + "," + el), line[e+5:], true
}

// dicomValue finds the value after a tag: dcmdump's `VR [value]` or
// pydicom's `… VR: 'value'`, and the VR.
func dicomValue(s string, i, le int) (vs, ve int, vr string) {
	t := skipBlanks(s, i)
	if t+3 < le && isUpper(s[t]) && isUpper(s[t+1]) && s[t+2] == ' ' {
		vr = s[t : t+2]
		if b := skipBlanks(s, t+3); b < le && s[b] == '[' {
			if c := strings.IndexByte(s[b:le], ']'); c > 0 {
				return b + 1, b + c, vr
			}
		}
	}
	// pydicom: the VR is the two capitals before ": ".
	if c := strings.Index(s[i:le], ": "); c >= 2 {
		c += i
		if isUpper(s[c-1]) && isUpper(s[c-2]) && (c-3 < i || s[c-3] == ' ') {
			vr = s[c-2 : c]
			vs, ve = skipBlanks(s, c+2), le
			for ve > vs && (s[ve-1] == ' ' || s[ve-1] == '\r') {
				ve--
			}
			if ve-vs >= 2 && (s[vs] == '\'' || s[vs] == '"') && s[ve-1] == s[vs] {
				vs, ve = vs+1, ve-1
			}
			return vs, ve, vr
		}
	}
	return 0, 0, ""
}

// x12Personal are the elements (1-based) of the ASC X12 segments that hold
// a person's identity: NM1's last, first and middle names and its id (when
// the entity is a person, NM1-02 = 1), N3's address lines, DMG's birth
// date, PER's phone, fax and e-mail numbers, REF's value when its
// qualifier names a person's number (SY: SSN, 0F: subscriber, 1W: member,
// 23: client, ABB: personal id, Q4: prior id).
var x12Personal = map[string][]int{
	"NM1": {3, 4, 5, 9},
	"N3":  {1, 2},
	"DMG": {2},
	"PER": {4, 6, 8},
	"REF": {2},
}

var x12PersonRefs = map[string]bool{"SY": true, "0F": true, "1W": true, "23": true, "ABB": true, "Q4": true, "6O": true, "F6": true}

// findX12 finds the next personal element of an X12 segment at or after
// from: segments end at '~' or a line's end, elements are split by '*'.
func findX12(s string, from int) []int {
	ss := from // the start of the segment holding from: its later elements are still to judge
	for ss > 0 && from-ss < 512 && s[ss-1] != '~' && s[ss-1] != '\n' && s[ss-1] != '\r' {
		ss--
	}
	for ss < len(s) {
		for ss < len(s) && (s[ss] == '~' || s[ss] == '\n' || s[ss] == '\r') {
			ss++
		}
		se := ss
		for se < len(s) && s[se] != '~' && s[se] != '\n' && s[se] != '\r' {
			se++
		}
		if loc := x12Segment(s, ss, se, from); loc != nil {
			return loc
		}
		if se == ss {
			se++
		}
		ss = se
	}
	return nil
}

// x12Segment judges the segment s[ss:se].
func x12Segment(s string, ss, se, from int) []int {
	star := strings.IndexByte(s[ss:se], '*')
	if star < 2 || star > 3 {
		return nil
	}
	id := s[ss : ss+star]
	want, ok := x12Personal[id]
	if !ok {
		return nil
	}
	var el [12]string
	n := 0
	for a := ss + star + 1; n < len(el); n++ {
		b := a
		for b < se && s[b] != '*' {
			b++
		}
		el[n] = s[a:b]
		if b >= se {
			n++
			break
		}
		a = b + 1
	}
	switch id {
	case "NM1":
		if el[1] != "1" {
			return nil // an organisation
		}
	case "REF":
		if !x12PersonRefs[el[0]] {
			return nil
		}
	}
	// Find element k's offset again and return the first wanted one at or
	// after from.
	k, a := 1, ss+star+1
	for a <= se {
		b := a
		for b < se && s[b] != '*' {
			b++
		}
		if slices.Contains(want, k) && b > a && a >= from && !startsWithMarker(s, a) {
			return []int{a, b, -1, -1, a, b}
		}
		k++
		a = b + 1
	}
	return nil
}

// swiftPartyFields are the fields of a SWIFT MT message whose lines name a
// party by name and address: 50K and 50F (the ordering customer), 59 and
// 59F (the beneficiary customer). 50A and 59A name a bank by its BIC and
// stay.
var swiftPartyFields = []string{":50K:", ":50F:", ":59:", ":59F:", ":50H:"}

// findSwiftParty finds a name or address line of an ordering customer's or
// a beneficiary's field: the lines after the field's tag (its account on
// the first line, `/DE89…`) up to the next field or the block's end.
func findSwiftParty(s string, from int) []int {
	for ls := lineStartOf(s, from); ls < len(s); {
		le := lineEnd(s, ls)
		if s[ls] == ':' {
			for _, f := range swiftPartyFields {
				if !hasPrefixFold(s[ls:], strings.ToLower(f)) {
					continue
				}
				// The field's value: the rest of this line, then the lines
				// that do not start a new field.
				vs := ls + len(f)
				for p := vs; p < len(s); {
					pe := lineEnd(s, p)
					if p > vs && (p < len(s) && s[p] == ':' || hasPrefixFold(s[p:], "-}")) {
						break
					}
					a, b := p, pe
					if a < len(s) && s[a] == '/' && p == vs {
						a = b // the account: an IBAN's or an account's rule
					}
					if b > a && a >= from && !startsWithMarker(s, a) && strings.TrimSpace(s[a:b]) != "" {
						return []int{a, b, -1, -1, a, b}
					}
					p = pe + 1
					if pe < len(s) && s[pe] == '\r' && p < len(s) && s[p] == '\n' {
						p++
					}
				}
			}
		}
		ls = le + 1
	}
	return nil
}

// findFullWidthKeyValue finds the value of a personal key written in a
// script other than Latin before the full-width colon of CJK text
// (`手机：138…`, `地址：北京市…`): the key is the run of its script's
// characters back to a delimiter, the value runs to the next full-width
// comma, semicolon, full stop, space or line end.
func findFullWidthKeyValue(s string, from int) []int {
	const colon = "："
	for k := range marks(s, from, colon) {
		ks := k
		for ks > 0 && ks > k-48 && s[ks-1] >= 0x80 && !strings.HasSuffix(s[:ks], "，") && !strings.HasSuffix(s[:ks], "、") && !strings.HasSuffix(s[:ks], "；") && !strings.HasSuffix(s[:ks], colon) {
			ks--
		}
		for ks < k && s[ks]&0xC0 == 0x80 {
			ks++ // not inside a character
		}
		kind := PersonalKeys[s[ks:k]]
		if kind == "" {
			continue
		}
		vs, ve := k+len(colon), k+len(colon)
		for ve < len(s) && s[ve] != ' ' && s[ve] != '\n' && s[ve] != '\r' && s[ve] != '\t' &&
			!strings.HasPrefix(s[ve:], "，") && !strings.HasPrefix(s[ve:], "；") && !strings.HasPrefix(s[ve:], "。") && !strings.HasPrefix(s[ve:], "、") {
			ve++
		}
		if ve > vs && !startsWithMarker(s, vs) && plausible(kind, s[vs:ve]) {
			return []int{ks, ve, ks, k, vs, ve}
		}
	}
	return nil
}
