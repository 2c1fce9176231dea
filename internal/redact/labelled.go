package redact

import (
	"strconv"
	"strings"
	"time"
	"unicode"
	"unicode/utf8"
)

// The labelled-values layer: a value under a label no system writes.
//
// Every other rule knows the labels of personal data by name — in English
// and in the languages and scripts the corpora met. A service in another
// country writes its record in its own words: `Igama: Zinhle`, `ЖСН:
// 900412412810`, `nuit=169394881`, `<IDNP>2004507914437</IDNP>`. What tells
// such a label from an operator's fact is that systems report in a small
// vocabulary (the prose layer's, generated from real failures) and label
// their facts with it — id, code, status, request, region, amount — and the
// key rules know the English labels of personal data, while a form's fields
// are labelled in the language of the people it records. So a label none
// of whose words is a system's or one of the quantities below, and whose
// last word is no common English word of four letters or more (`hotel`, `city`; a shorter one is
// as often an acronym: `TIN`, `NIT`, `PIN`) is a form's field — so
// `buyerTin` and `receptor.nit` are a form's, `hotel`, `SubmissionId` and
// `error_subcode` are not, and a label holding a function word is a sentence's end — and
// its value goes as personal data when it has the shape of what a form
// holds about a person:
//
//   - a number of seven digits or more, grouped or not by spaces, '-', '.'
//     or one '/', with at most one capital before it and one after (an
//     identity, tax or account number: `P0097981087`, `A614787599H`,
//     `1400-0105-38271`, `3199748748/0800`) — not a date, a time, a Unix
//     time of these years or a UUID, and not a reference whose prefix is
//     two letters or more (`NAV-2026-0091`, `TR8812043319`);
//   - one to four words that read as a name (a particle or an initial
//     between them: "Pádraig Ó Súilleabháin"): letters only, two to sixteen
//     in each, each capitalised in a script with capitals and no
//     camelCase, none a system's word or a common English word that is no
//     name, not all places' or towns' words (names.txt.gz: "Oslo", "İzmir"
//     stay) — and not one word in capitals, which is a code;
//   - a calendar date ten years or more before this year: a birth date
//     (a job's or a document's date is recent).
//
// A label is `Label: value` (one to four words after a delimiter, a
// parenthesised gloss allowed: `ስም (በአማርኛ):`), `key=value` (logfmt, a
// quoted value whole), a JSON member `"key": "value"` or `"key": 123`,
// and an XML element `<Key>value</Key>`. A key whose last word is a
// name's (`enrollee_name`) is a form's field when the word before is no
// system's. A key the key rules already judge (KeyKind) is left to them,
// and so are a URL's query parameters, a one-letter key and an HTTP
// header of one's own (`x-…`).

// quantityWords label an operator's quantities and times, which the
// system's vocabulary may lack.
var quantityWords = map[string]bool{
	"amount": true, "amt": true, "price": true, "cost": true, "fee": true, "fees": true, "sum": true,
	"qty": true, "quantity": true, "size": true, "bytes": true, "length": true, "len": true,
	"offset": true, "seq": true, "sequence": true, "serial": true, "epoch": true, "millis": true,
	"ms": true, "ns": true, "us": true, "sec": true, "secs": true, "elapsed": true, "latency": true,
	"pid": true, "tid": true, "gid": true, "uid": true, "rev": true, "revision": true, "build": true,
	"row": true, "rows": true, "col": true, "shard": true, "partition": true, "slot": true,
	"invoice": true, "ticket": true, "order": true, "txn": true, "tx": true, "txid": true,
	"nonce": true, "checksum": true, "crc": true, "hash": true, "etag": true, "cluster": true,
	"age": true, "max": true, "min": true, "uuid": true, "guid": true, "ulid": true, "lsn": true, "scn": true, "xid": true, "gtid": true, "lag": true, "ttl": true,
	// A shipment's, an order's and an invoice's reference, in the words
	// couriers and tax services label it with (an air waybill's AWB, AFIP's
	// `cbte`, Korea's 주문번호 and 송장번호, Japan's 注文番号 and 伝票番号):
	// the number an operator looks the failure up by.
	"waybill": true, "awb": true, "consignment": true, "shipment": true, "parcel": true,
	"cbte": true, "comprobante": true, "factura": true, "pedido": true, "guia": true, "guía": true,
	"주문번호": true, "송장번호": true, "운송장번호": true, "注文番号": true, "伝票番号": true, "追跡番号": true,
	// A point's coordinates, which a geocoder's answer holds.
	"lat": true, "lon": true, "lng": true, "latitude": true, "longitude": true,
	// A town in the languages records are kept in: an operator may keep
	// the town a record is for, as the key rules do in English.
	"cidade": true, "ciudad": true, "ville": true, "stadt": true, "ort": true, "citta": true,
	"città": true, "stad": true, "plaats": true, "miasto": true, "mesto": true, "město": true,
	"şehir": true, "sehir": true, "kaupunki": true, "by": true, "poblacion": true, "localidad": true,
	"municipio": true, "comune": true, "gemeente": true, "город": true, "місто": true,
}

// maxNameWordRunes bounds one word of a name, its marks counted.
const maxNameWordRunes = 16

// nameKeyWords are "name" in the languages a form's key is written in.
var nameKeyWords = map[string]bool{"name": true, "names": true, "nombre": true, "nome": true, "nom": true, "naam": true, "navn": true, "namn": true, "nimi": true, "imie": true, "jina": true}

// labelled replaces the values of s that stand under a form's labels (see
// the comment above) with the personal marker.
func labelled(s string) string {
	if len(s) < 6 || strings.IndexByte(s, ':') < 0 && strings.IndexByte(s, '=') < 0 && strings.IndexByte(s, '<') < 0 {
		return s
	}
	out := splicer{s: s}
	for i := 0; i < len(s); i++ {
		if i < out.copied {
			continue
		}
		switch s[i] {
		case ':', '=':
			if !formValueStart(s, i+1) {
				continue
			}
			keyA, keyZ, ok := formLabelBefore(s, i)
			if !ok {
				continue
			}
			va, vz := formValueAfter(s, i)
			if va >= vz || va < out.copied {
				continue
			}
			if formValue(s[keyA:keyZ], s[va:vz]) {
				out.replace(va, vz, personalMarker)
				i = vz - 1
			}
		case '<':
			if !formValueStart(s, strings.IndexByte(s[i:], '>')+i+1) {
				continue
			}
			ka, kz, va, vz, ok := formElement(s, i)
			if !ok {
				continue
			}
			if personalElement(s[ka:kz], s[va:vz]) || formValue(s[ka:kz], s[va:vz]) {
				out.replace(va, vz, personalMarker)
				i = vz - 1
			}
		}
	}
	return out.String()
}

// formValueStart reports whether the value starting at i (after spaces
// and a quote) can have a form's shape at all: a digit, a capital or a
// letter of another script; a lower-case word never has one.
func formValueStart(s string, i int) bool {
	for i < len(s) && (s[i] == ' ' || s[i] == '"' || s[i] == '\'') {
		i++
	}
	if i >= len(s) {
		return false
	}
	c := s[i]
	return c >= '0' && c <= '9' || c >= 'A' && c <= 'Z' || c >= utf8.RuneSelf
}

// formLabelBefore returns the label whose separator is s[i] (':' followed by a
// space or '=' with no space around), and whether there is one.
func formLabelBefore(s string, i int) (int, int, bool) {
	if s[i] == ':' {
		if i+1 >= len(s) || s[i+1] != ' ' && !(i > 0 && s[i-1] == '"') {
			return 0, 0, false
		}
	} else if i == 0 || s[i-1] == ' ' || i+1 >= len(s) || s[i+1] == ' ' || s[i+1] == '=' || s[i-1] == '=' || s[i-1] == '!' {
		return 0, 0, false
	}
	z := i
	if z > 0 && s[z-1] == '"' {
		// A JSON member's key: the quoted string before the colon.
		a := strings.LastIndexByte(s[:z-1], '"')
		if a < 0 || z-1-a > 64 {
			return 0, 0, false
		}
		return a + 1, z - 1, a+1 < z-1
	}
	a, words := z, 0
scan:
	for a > 0 && words < 5 {
		r, n := utf8.DecodeLastRuneInString(s[:a])
		switch {
		case unicode.IsLetter(r) || unicode.IsMark(r) || unicode.IsDigit(r) || r == '_' || r == '.' || r == '-' && s[i] == '=' || r == '\u200c':
			a -= n
		case r == ')' && s[i] == ':':
			// A parenthesised gloss: `ስም (በአማርኛ):`.
			open := strings.LastIndexByte(s[:a], '(')
			if open < 0 || a-open > 48 {
				return 0, 0, false
			}
			a = open
		case r == ' ' && s[i] == ':' && a > 0 && a < z:
			if p, _ := utf8.DecodeLastRuneInString(s[:a-n]); !(unicode.IsLetter(p) || unicode.IsMark(p) || p == ')') {
				break scan
			}
			words++
			a -= n
		default:
			break scan
		}
	}
	for a < z && s[a] == ' ' {
		a++
	}
	if a >= z || words >= 4 || z-a < 2 {
		// A one-letter key is a query's or a format's (t=…, n=…).
		return 0, 0, false
	}
	if a > 0 && (s[a-1] == '?' || s[a-1] == '&') {
		// A URL's query parameter: the URL rules judge it.
		return 0, 0, false
	}
	return a, z, true
}

// formValueAfter returns the value after the separator at i: a quoted string's
// contents, or the text up to the next delimiter.
func formValueAfter(s string, i int) (int, int) {
	a := i + 1
	for a < len(s) && s[a] == ' ' {
		a++
	}
	if a < len(s) && (s[a] == '"' || s[a] == '\'') {
		q := s[a]
		if z := strings.IndexByte(s[a+1:], q); z >= 0 && z <= 128 {
			return a + 1, a + 1 + z
		}
		return 0, 0
	}
	z, nextLabel := a, false
	for z < len(s) && z-a <= 128 {
		r, n := rune(s[z]), 1
		if r >= utf8.RuneSelf {
			r, n = utf8.DecodeRuneInString(s[z:])
			if r == '،' || r == '؛' {
				break
			}
		} else if valueEnds[r] || s[i] == '=' && r == ' ' {
			break
		}
		if r == ':' && z+1 < len(s) && s[z+1] == ' ' {
			nextLabel = true
			break
		}
		if r == ' ' && z+1 < len(s) && (s[z+1] == '-' || strings.HasPrefix(s[z+1:], "—") || strings.HasPrefix(s[z+1:], "–")) {
			break
		}
		z += n
	}
	for z > a && (s[z-1] == ' ' || s[z-1] == '.' && !unicode.IsDigit(rune(s[z-2]))) {
		z--
	}
	if nextLabel {
		// A value that runs into the next label ends before it.
		k := strings.LastIndexByte(s[a:z], ' ')
		if k < 0 {
			return 0, 0
		}
		z = a + k
	}
	for z > a && s[z-1] == ' ' {
		z--
	}
	return a, z
}

// valueEnds are the ASCII delimiters that end a label's value.
var valueEnds = [utf8.RuneSelf]bool{',': true, ';': true, '|': true, '\n': true, '\r': true, '\t': true, '<': true, '>': true, '[': true, ']': true, '{': true, '}': true, '"': true}

// formElement reads `<Key>value</Key>` at i.
func formElement(s string, i int) (ka, kz, va, vz int, ok bool) {
	gt := strings.IndexByte(s[i:], '>')
	if gt < 2 || gt > 48 {
		return
	}
	ka, kz = i+1, i+gt
	for _, c := range []byte(s[ka:kz]) {
		if !isAlnum(c) && c != '_' && c != '-' && c != ':' && c < 0x80 {
			return
		}
	}
	va = kz + 1
	end := strings.Index(s[va:], "</"+s[ka:kz]+">")
	if end <= 0 || end > 128 {
		return
	}
	return ka, kz, va, va + end, true
}

// personalElement reports whether an XML element's text goes because its
// name is a personal key of any language (`<Фамилия>`, `<Prenom>`): the key
// rules judge a member of JSON and a label of text, and an element is the
// same record written in XML.
func personalElement(key, value string) bool {
	if value == "" || strings.HasPrefix(value, markerPrefix) || strings.HasPrefix(value, "[text ") || strings.ContainsAny(value, "<>") {
		return false
	}
	if i := strings.IndexByte(key, ':'); i >= 0 {
		key = key[i+1:] // a namespace's prefix: crs:FirstName
	}
	switch k, ok := KeyKind(key); {
	case !ok:
		return false
	case k == KindPersonal || k == KindNationalID:
		return nameShaped(value) || formNumber(value) || birthDate(value)
	}
	return false
}

// formValue reports whether value, under key, is a form's personal datum.
func formValue(key, value string) bool {
	if strings.HasPrefix(value, markerPrefix) || strings.HasPrefix(value, "[text ") {
		return false
	}
	// The value's shape first: it is cheaper than the key's words, and
	// most values have none of a form's shapes.
	if !formNumber(value) && !birthDate(value) && !nameShaped(value) || companyTaxNumber(value) || rucOfCompany(key, value) {
		return false
	}
	if k, ok := KeyKind(key); ok {
		// The key rules judge it; a datum of a form's shape they left
		// (a birth date written `1961. 05. 30.`) goes here.
		return k == KindPersonal || k == KindNationalID
	}
	words := splitWords(key, nil)
	if len(words) == 0 || words[0] == "x" {
		// An HTTP header of its own (x-…) is a protocol's.
		return false
	}
	vocab, table := proseVocabulary(), nameTable()
	// A label in English or in the system's words is no form's: the key
	// rules know the English labels of personal data.
	known := func(w string) bool {
		return wordClass(vocab, w) == wordSystem || quantityWords[w] || len(w) >= 4 && wordClass(table, w)&nameCommon != 0
	}
	last := words[len(words)-1]
	if nameKeyWords[last] && len(words) > 1 && !known(words[len(words)-2]) {
		return nameShaped(value)
	}
	for _, w := range words {
		switch c := wordClass(vocab, w); {
		case c == wordFunction && !labelParticles[w]:
			// A sentence before a colon, not a label.
			return false
		case c == wordSystem || quantityWords[w]:
			// A system's word anywhere in the key makes it the
			// system's: `error_subcode`, `id_incarcare`.
			return false
		}
	}
	return !known(last)
}

// labelParticles are the function words a form's label holds between its
// words ("date de naissance", "Nom i cognoms").
var labelParticles = map[string]bool{"de": true, "da": true, "di": true, "do": true, "du": true, "van": true, "von": true, "y": true, "e": true, "i": true, "of": true}

// formNumber reports whether v is an identity, tax or account number's
// shape: seven digits or more, grouped or not, between at most three
// letters and one; never a date or a time.
func formNumber(v string) bool {
	if len(v) > 40 || len(v) == 36 && strings.Count(v, "-") == 4 {
		// Too long for a form's number, or a UUID.
		return false
	}
	i := 0
	if len(v) > 1 && (v[0] >= 'A' && v[0] <= 'Z') {
		// One letter before the digits, as a tax number's class (P…,
		// A…); two or more make a reference's prefix (NAV-2026-…).
		i++
	}
	if strings.Count(v, "/") > 1 {
		return false
	}
	digits, seps, lastSep := 0, 0, byte(0)
	for ; i < len(v); i++ {
		c := v[i]
		switch {
		case c >= '0' && c <= '9':
			digits++
		case c == ' ' || c == '-' || c == '.' || c == '/':
			if i+1 >= len(v) || lastSep != 0 && v[i-1] == lastSep {
				return false
			}
			if c == '-' && i+2 == len(v) && (v[i+1] >= 'A' && v[i+1] <= 'Z') {
				continue
			}
			seps++
			lastSep = c
		case c >= 'A' && c <= 'Z' && i == len(v)-1:
		default:
			return false
		}
	}
	if digits < 7 {
		return false
	}
	return !calendarDate(v) && !compactDate(v) && !epochTime(v)
}

// birthDate reports whether v is a calendar date at least ten years
// before this year: a form's birth date, where a job's or a document's
// date is recent (2026-03-02 stays). Written year first or last, with '-',
// '.', '/' or ". " between (1961. 05. 30.).
func birthDate(v string) bool {
	if len(v) < 8 || len(v) > 16 || v[0] < '0' || v[0] > '9' {
		return false
	}
	v = strings.TrimSuffix(strings.ReplaceAll(v, ". ", "."), ".")
	parts := strings.FieldsFunc(v, func(r rune) bool { return r == '-' || r == '.' || r == '/' })
	if len(parts) != 3 || !calendarDate(strings.Join(parts, "-")) {
		return false
	}
	year := parts[0]
	if len(year) != 4 {
		year = parts[2]
	}
	y, err := strconv.Atoi(year)
	return err == nil && y >= 1900 && y <= birthYearsBefore
}

// birthYearsBefore is the last year a birth date can fall in: ten years
// before the year the process started.
var birthYearsBefore = time.Now().Year() - 10

// epochTime reports whether v is a Unix time in seconds or milliseconds
// between 2020 and 2030 (16… to 18…, ten or thirteen digits).
func epochTime(v string) bool {
	return (len(v) == 10 || len(v) == 13) && v[0] == '1' && v[1] >= '6' && v[1] <= '8' && strings.Trim(v, "0123456789") == ""
}

// compactDate reports whether v is a date written YYYYMMDD (DICOM's DA, a
// batch's day).
func compactDate(v string) bool {
	if len(v) != 8 || v[0] != '1' && v[0] != '2' {
		return false
	}
	for i := 0; i < 8; i++ {
		if v[i] < '0' || v[i] > '9' {
			return false
		}
	}
	m, d := (v[4]-'0')*10+v[5]-'0', (v[6]-'0')*10+v[7]-'0'
	return m >= 1 && m <= 12 && d >= 1 && d <= 31
}

// calendarDate reports whether v is a date and nothing more, as dateEnd
// reads one: 2026-03-02, 02.03.2026, 02/03/2026.
func calendarDate(v string) bool {
	return v != "" && dateEnd(v, 0) == len(v)
}

// nameShaped reports whether v reads as a person's name: one to four
// words of letters, capitalised where the script has capitals, none a
// system's word, not all common or places' words, and not one word in
// capitals.
func nameShaped(v string) bool {
	if v == "" || len(v) > 80 {
		return false
	}
	if r, _ := utf8.DecodeRuneInString(v); unicode.IsLower(r) || r < utf8.RuneSelf && !(r >= 'A' && r <= 'Z') {
		// A name starts with a capital, or with a letter of a script
		// without case.
		return false
	}
	var buf [5]string
	fields := buf[:0]
	for f := range strings.FieldsSeq(v) {
		if len(fields) == 4 {
			return false
		}
		fields = append(fields, f)
	}
	if len(fields) == 0 {
		return false
	}
	vocab, table := proseVocabulary(), nameTable()
	places := 0
	particles := 0
	for _, f := range fields {
		f = strings.TrimSuffix(f, ".")
		if f == "" {
			return false
		}
		if nameParticles[f] || utf8.RuneCountInString(f) == 1 && len(fields) > 2 {
			// de, van, bin; Ó, an initial between names.
			particles++
			continue
		}
		upper, lower, other := 0, 0, 0
		if utf8.RuneCountInString(f) > maxNameWordRunes {
			// A compound noun, not a name: "Zeitüberschreitung".
			return false
		}
		for j, r := range f {
			switch {
			case unicode.IsUpper(r):
				upper++
			case unicode.IsLower(r):
				lower++
				if j == 0 {
					return false
				}
			case unicode.IsLetter(r) || unicode.IsMark(r) || r == '\u200c' || r == '\u200d':
				other++
			case (r == '\'' || r == '’' || r == '-') && j > 0:
			default:
				return false
			}
		}
		if upper+lower == 0 && other == 0 {
			return false
		}
		if upper+lower+other < 2 || wordClass(vocab, f) == wordSystem || camelHump(f) {
			return false
		}
		fl := wordClass(table, f)
		if fl&nameCommon != 0 && fl&(nameGiven|nameFamily) == 0 {
			// A common word that is no name: "Clinic", "None".
			return false
		}
		if fl&(namePlace|nameTown) != 0 {
			places++
		}
		if len(fields) == 1 && upper > 1 && lower == 0 {
			return false
		}
	}
	return particles < len(fields) && places < len(fields)-particles
}

// camelHump reports whether w has a capital after a small letter: an
// identifier's camelCase, no name's ("DevedorInvalido").
func camelHump(w string) bool {
	prevLower := false
	for _, r := range w {
		if unicode.IsUpper(r) && prevLower {
			return true
		}
		prevLower = unicode.IsLower(r)
	}
	return false
}
