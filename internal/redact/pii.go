package redact

import "strings"

// Personal data beyond the shapes of piiPatterns: IBANs in every written
// grouping (checked mod 97, as Presidio's recognizer does), phone numbers
// in national formats after a word that says so (Presidio's context
// words), e-mail addresses written to dodge a filter, and the values of
// keys that name personal data.

// KindIBAN is an International Bank Account Number that passes its mod-97
// check, spaced, dashed or not.
const KindIBAN Kind = "iban"

// KindPersonal is the value of a key that names personal data (first_name,
// date_of_birth, street_address, passport_number, …).
const KindPersonal Kind = "personal"

// ibanLengths is the length of an IBAN by country (the SWIFT IBAN
// registry).
var ibanLengths = map[string]int{
	"AD": 24, "AE": 23, "AL": 28, "AT": 20, "AZ": 28, "BA": 20, "BE": 16, "BG": 22, "BH": 22,
	"BI": 27, "BR": 29, "BY": 28, "CH": 21, "CR": 22, "CY": 28, "CZ": 24, "DE": 22, "DJ": 27,
	"DK": 18, "DO": 28, "EE": 20, "EG": 29, "ES": 24, "FI": 18, "FK": 18, "FO": 18, "FR": 27,
	"GB": 22, "GE": 22, "GI": 23, "GL": 18, "GR": 27, "GT": 28, "HR": 21, "HU": 28, "IE": 22,
	"IL": 23, "IQ": 23, "IS": 26, "IT": 27, "JO": 30, "KW": 30, "KZ": 20, "LB": 28, "LC": 32,
	"LI": 21, "LT": 20, "LU": 20, "LV": 21, "LY": 25, "MC": 27, "MD": 24, "ME": 22, "MK": 19,
	"MN": 20, "MR": 27, "MT": 31, "MU": 30, "NI": 28, "NL": 18, "NO": 15, "OM": 23, "PK": 24,
	"PL": 28, "PS": 29, "PT": 25, "QA": 29, "RO": 24, "RS": 22, "RU": 33, "SA": 24, "SC": 31,
	"SD": 18, "SE": 24, "SI": 19, "SK": 24, "SM": 27, "SO": 23, "ST": 25, "SV": 28, "TL": 23,
	"TN": 24, "TR": 26, "UA": 29, "VA": 22, "VG": 24, "XK": 20, "YE": 30, "HN": 28,
	// the countries whose banks write IBANs outside the registry (its
	// experimental list: Iran's Sheba, the Maghreb, West and Central Africa)
	"IR": 26, "DZ": 26, "MA": 28, "AO": 25, "BF": 28, "BJ": 28, "CF": 27, "CG": 27, "CI": 28,
	"CM": 27, "CV": 25, "GA": 27, "GQ": 27, "GW": 25, "KM": 27, "MG": 27, "ML": 28, "MZ": 25,
	"NE": 28, "SN": 28, "TD": 27, "TG": 28,
}

// findIBAN finds an IBAN: a country code, two check digits, then letters
// and digits in groups separated by single spaces or dashes (or none), as
// long as the country's IBAN, passing mod 97. It looks only where the
// text's runs of digits are: an IBAN's check digits start one, or a run
// of eight digits or more lies inside it.
func findIBAN(in *probe, s string, from int) []int {
	for _, r := range in.digitRuns() {
		// Runs of fewer than seven digits are the identity-number rule's
		// (its own MinDigits lowers the table's); no IBAN is made of them.
		if r.hi <= from || r.digits < 7 {
			continue
		}
		// The country code and check digits start at most 34 bytes before
		// the run's end.
		for i := max(from, r.lo-34); i < r.hi && i+4 <= len(s); i++ {
			if loc := ibanAt(s, i); loc != nil {
				return loc
			}
		}
	}
	return nil
}

// ibanAt returns the IBAN that starts at s[i], or nil.
func ibanAt(s string, i int) []int {
	c0, c1 := s[i]&^0x20, s[i+1]&^0x20
	if !isUpper(c0) || !isUpper(c1) || !isDigit(s[i+2]) || !isDigit(s[i+3]) {
		return nil
	}
	if i > 0 && (isWord(s[i-1]) || strings.HasPrefix(s[max(0, i-len(markerPrefix)):], markerPrefix)) {
		return nil
	}
	want := ibanLengths[string([]byte{c0, c1})]
	if want == 0 {
		return nil
	}
	var buf [34]byte
	n, k, end := 0, i, i
	for k < len(s) && n < want {
		c := s[k]
		switch {
		case isAlnum(c):
			buf[n] = c
			n++
			k++
			end = k
		case (c == ' ' || c == '-') && k+1 < len(s) && isAlnum(s[k+1]) && n >= 4:
			k++
		default:
			k = len(s) + 1
		}
	}
	if n != want || end < len(s) && isAlnum(s[end]) || !mod97(buf[:n]) {
		return nil
	}
	return []int{i, end, -1, -1, i, end}
}

// mod97 reports whether the IBAN iban (letters and digits) passes ISO
// 13616's check: moved four characters to the end, letters as 10–35, the
// number mod 97 is 1.
func mod97(iban []byte) bool {
	r := 0
	add := func(c byte) bool {
		switch {
		case isDigit(c):
			r = (r*10 + int(c-'0')) % 97
		case isLetter(c):
			v := int(c&^0x20-'A') + 10
			r = (r*100 + v) % 97
		default:
			return false
		}
		return true
	}
	for _, c := range iban[4:] {
		if !add(c) {
			return false
		}
	}
	for _, c := range iban[:4] {
		if !add(c) {
			return false
		}
	}
	return r == 1
}

// PhoneWords are the labels after which a run of digits is a phone number
// in any national format ("tel: 020 7946 0958", "mobile 06 12 34 56 78").
var PhoneWords = map[string]bool{
	"phone": true, "telephone": true, "tel": true, "mobile": true, "cell": true,
	"cellphone": true, "fax": true, "whatsapp": true, "sms": true, "msisdn": true,
	"phonenumber": true, "mobilenumber": true, "contactnumber": true, "call": true,
	"landline": true, "handy": true, "telefon": true, "telefono": true, "téléphone": true,
}

// findLabelledPhone finds 7 to 15 digits, in groups separated by spaces,
// dots, dashes or parentheses, right after a phone label. It looks only
// at the text's runs of at least seven digits.
func findLabelledPhone(in *probe, s string, from int) []int {
	for _, r := range in.digitRuns() {
		if r.hi <= from || r.digits < 7 {
			continue
		}
		for i := max(from, r.lo); i < r.hi; i++ {
			if loc := phoneAt(s, i); loc != nil {
				return loc
			}
		}
	}
	return nil
}

// phoneAt returns the labelled phone number that starts at s[i], or nil.
func phoneAt(s string, i int) []int {
	if !isDigit(s[i]) && s[i] != '+' && s[i] != '(' {
		return nil
	}
	if i > 0 && (isWord(s[i-1]) || s[i-1] == '.' || s[i-1] == '-' || s[i-1] == '/' || s[i-1] == '+' || s[i-1] == '(' || isDigit(s[i-1])) {
		return nil
	}
	k, digits, last := i, 0, i
	for k < len(s) && k-i < 24 {
		c := s[k]
		if isDigit(c) {
			digits++
			last = k + 1
		} else if !(c == ' ' || c == '.' || c == '-' || c == '(' || c == ')' || c == '+' && k == i) {
			break
		} else if c == ' ' && k+1 < len(s) && !isDigit(s[k+1]) && s[k+1] != '(' {
			break
		}
		k++
	}
	if digits < 7 || digits > 15 || last < len(s) && isWord(s[last]) {
		return nil
	}
	if !phoneLabel(s, i) && !(digits >= 11 && last-i == digits+b2i(s[i] == '+') && !epochMillis(s[i:last]) && partyLabel(s, i)) {
		return nil
	}
	return []int{i, last, -1, -1, i, last}
}

// PartyWords are the keys that name a party of a message (to=, from=,
// recipient=): their value is a phone number when it is one written
// whole in international form — 11 to 15 digits, the country code first
// and no '+' (447700900123, as SMS APIs take it), and not a time in
// milliseconds.
var PartyWords = map[string]bool{
	"to": true, "from": true, "recipient": true, "recipients": true, "sender": true,
	"dest": true, "destination": true, "caller": true, "callee": true, "number": true,
}

// partyPhone reports whether val, a whole value under key, is a phone
// number by PartyWords' rule: the key names a party of a message and the
// value is 11 to 15 digits (after an optional '+'), no time in
// milliseconds. A JSON member's value ("to": "447700900123") is read so as
// a key=value's is.
func partyPhone(key, val string) bool {
	d := strings.TrimPrefix(val, "+")
	if len(d) < 7 || len(d) > 15 || len(key) > 24 || epochMillis(d) || !isAllDigits(d) {
		return false
	}
	if len(d) < 11 || len(key) > 16 {
		// Fewer digits (a national number, 2155550147) count only under
		// a key that names a phone line.
		return phoneLineKey(normKey(key))
	}
	nk := normKey(key)
	return PartyWords[nk] || phoneLineKey(nk)
}

// phoneLineKeys name a phone line (mobile, msisdn, cell, handy): a value
// of digits alone under one, or under a key ending in one of the longer
// (customerMobile, contact_msisdn, workPhoneNumber), is a phone number.
var phoneLineKeys = map[string]bool{
	"tel": true, "cell": true, "fax": true, "handy": true, "celular": true, "movil": true,
	"telefon": true, "telefono": true, "telefone": true, "mobil": true, "gsm": true,
}

// phoneLineSuffixes end a normalized key that names a phone line.
var phoneLineSuffixes = []string{
	"mobile", "mobileno", "mobilenumber", "mobilephone", "msisdn", "phone", "phoneno",
	"phonenumber", "cellno", "cellnumber", "cellphone", "telephone", "whatsapp", "landline",
	"telno", "handynummer", "mobilnummer", "telefonnummer",
}

// phoneLineKey reports whether a normalized key names a phone line.
func phoneLineKey(nk string) bool {
	if phoneLineKeys[nk] {
		return true
	}
	for _, sfx := range phoneLineSuffixes {
		if strings.HasSuffix(nk, sfx) {
			return true
		}
	}
	return false
}

// partyLabel reports whether one of PartyWords, followed by '=' or ':',
// stands just before s[i] — or, in prose, a party's noun (number,
// recipient, caller, callee) after a preposition or an article, a blank
// between ("Error on number 972528814306", "for recipient 4477…"): an
// order's or an invoice's number has its noun before it.
func partyLabel(s string, i int) bool {
	if i >= 2 && s[i-1] == ' ' {
		e := i - 1
		b := e
		for b > 0 && e-b < 10 && isLetter(s[b-1]) {
			b--
		}
		switch strings.ToLower(s[b:e]) {
		case "number", "recipient", "caller", "callee":
			p := b - 1
			if p < 0 || s[p] != ' ' {
				break
			}
			q := p
			for q > 0 && p-q < 6 && isLetter(s[q-1]) {
				q--
			}
			switch strings.ToLower(s[q:p]) {
			case "on", "for", "to", "from", "at", "the", "with", "by":
				return true
			}
		}
	}
	k := i
	if k > 0 && (s[k-1] == '"' || s[k-1] == '\'') {
		k--
	}
	for k > 0 && i-k < 4 && (s[k-1] == ' ' || s[k-1] == '"' || s[k-1] == '\'') {
		k--
	}
	if k == 0 || s[k-1] != '=' && s[k-1] != ':' {
		return false
	}
	e := k - 1
	for e > 0 && (s[e-1] == '"' || s[e-1] == '\'') {
		e--
	}
	b := e
	for b > 0 && e-b < 16 && isAlnum(s[b-1]) {
		b--
	}
	return PartyWords[strings.ToLower(s[b:e])]
}

// epochMillis reports whether digits read as a Unix time in milliseconds
// from 2001 to 2065 (13 digits, a leading 1 or 2).
func epochMillis(d string) bool {
	return len(d) == 13 && (d[0] == '1' || d[0] == '2')
}

func b2i(b bool) int {
	if b {
		return 1
	}
	return 0
}

// findBracketedPhone finds a phone number written with its area code in
// brackets and the subscriber number split by a dash — (11) 91234-5678,
// (021) 3456-7890 — standing alone: by hand from each '(', as it costs
// nothing where no bracket is followed by digits.
func findBracketedPhone(s string, from int) []int {
	for i := from; i < len(s); i++ {
		k := strings.IndexByte(s[i:], '(')
		if k < 0 {
			return nil
		}
		i += k
		if i > 0 && isAlnum(s[i-1]) {
			continue
		}
		j := i + 1
		digits := func(min, max int) bool {
			n := 0
			for j < len(s) && isDigit(s[j]) && n < max {
				j++
				n++
			}
			return n >= min && !(j < len(s) && isDigit(s[j]))
		}
		if !digits(2, 3) || j >= len(s) || s[j] != ')' {
			continue
		}
		j++
		if j < len(s) && s[j] == ' ' {
			j++
		}
		if !digits(4, 5) || j >= len(s) || s[j] != '-' {
			continue
		}
		j++
		if !digits(4, 4) || j < len(s) && isAlnum(s[j]) {
			continue
		}
		return []int{i, j, -1, -1, i, j}
	}
	return nil
}

// phoneLabel reports whether one of PhoneWords stands just before s[i]
// (past ':', '=', quotes and spaces), as a word or as the last word of a
// key (phone_number, contactPhone).
func phoneLabel(s string, i int) bool {
	k := i
	lo := max(0, i-40)
	for k > lo && strings.IndexByte(" \t:=\"'", s[k-1]) >= 0 {
		k--
	}
	e := k
	for k > lo && (isAlnum(s[k-1]) || s[k-1] == '_' || s[k-1] == '-' || s[k-1] >= 0x80) {
		k--
	}
	if k == e {
		return false
	}
	var buf [16]string
	words := splitWords(s[k:e], buf[:0])
	if len(words) == 0 {
		return false
	}
	joined := strings.Join(words, "")
	return PhoneWords[words[len(words)-1]] || PhoneWords[joined] || strings.HasSuffix(joined, "phone") || strings.HasSuffix(joined, "phonenumber")
}

// findObfuscatedEmail finds an address written to dodge a filter:
// "jane.doe [at] example [dot] com", "jane(at)example(dot)com",
// "jane at example dot com" (with a common top-level domain), parsed by
// hand around each "at" so that no expression runs over the whole text.
func findObfuscatedEmail(s string, from int) []int {
	for a := range foldMarks(s, from, "at") {
		bracketed, ls, re := wordToken(s, a, 2)
		if ls < 0 {
			continue
		}
		// The local part ends just before the token.
		lb, le := localPartBefore(s, ls)
		if lb == le {
			continue
		}
		// The local part may itself be written with "dot": "marta dot
		// lindqvist at …".
		for n := 0; n < 4; n++ {
			d := lb
			for d > 0 && s[d-1] == ' ' {
				d--
			}
			if d > 0 && strings.IndexByte("])}>", s[d-1]) >= 0 {
				d--
				for d > 0 && s[d-1] == ' ' {
					d--
				}
			}
			dw := dotWordBefore(s, d)
			if dw == 0 {
				break
			}
			_, ts, te := wordToken(s, d-dw, dw)
			if ts < 0 || te != lb && strings.TrimSpace(s[te:lb]) != "" {
				break
			}
			b, e := localPartBefore(s, ts)
			if b == e {
				break
			}
			lb = b
		}
		// The domain: labels joined by '.', "[dot]" or " dot ".
		k, labels, wordDots, last := re, 0, 0, ""
		for {
			for k < len(s) && s[k] == ' ' {
				k++
			}
			ds := k
			for k < len(s) && k-ds < 63 && (isAlnum(s[k]) || s[k] == '-') {
				k++
			}
			if k == ds {
				break
			}
			labels++
			last = strings.ToLower(s[ds:k])
			end := k
			if k < len(s) && s[k] == '.' && k+1 < len(s) && isAlnum(s[k+1]) {
				k++
				continue
			}
			if j, dw := dotWordIn(s[k:min(len(s), k+10)]); j >= 0 {
				if b, _, de := wordToken(s, k+j, dw); de > 0 && (b || strings.TrimSpace(s[k:k+j]) == "") {
					wordDots++
					k = de
					continue
				}
			}
			k = end
			break
		}
		if labels < 2 || !bracketed && (wordDots == 0 || !commonTLDs[last] && !countryTLD(last)) {
			continue
		}
		return []int{lb, k, -1, -1, lb, k}
	}
	return nil
}

// dotWords are "dot" in the languages an address is spelled out in to
// dodge a filter: `lena punkt brandt at example punkt de`, `punto`, `ponto`.
var dotWords = []string{"dot", "punkt", "punto", "ponto", "point", "kropka"}

// dotWordBefore returns the length of the dot word ending at s[d], or 0.
func dotWordBefore(s string, d int) int {
	for _, w := range dotWords {
		if d >= len(w) && hasPrefixFold(s[d-len(w):], w) {
			return len(w)
		}
	}
	return 0
}

// dotWordIn returns the offset and length of the first dot word in w, or
// -1.
func dotWordIn(w string) (int, int) {
	best, bl := -1, 0
	for _, d := range dotWords {
		if j := indexFold(w, d); j >= 0 && (best < 0 || j < best) {
			best, bl = j, len(d)
		}
	}
	return best, bl
}

// localPartBefore returns the span s[lb:le] of the address characters
// (letters, digits, "._%+-"; at most 64) that end where the blanks before
// s[end] start: the local part before a spelled "at", or a word of it
// before a spelled "dot".
func localPartBefore(s string, end int) (lb, le int) {
	le = end
	for le > 0 && s[le-1] == ' ' {
		le--
	}
	lb = le
	for lb > 0 && le-lb < 64 && (isAlnum(s[lb-1]) || strings.IndexByte("._%+-", s[lb-1]) >= 0) {
		lb--
	}
	return lb, le
}

// wordToken reports whether the word of n bytes at s[i] ("at", "dot")
// stands as a token: in brackets ([at], (at), {at}, <at>, spaces allowed
// inside) or between spaces. It returns whether it was bracketed and the
// token's bounds, brackets included; ls is -1 when it is no token.
func wordToken(s string, i, n int) (bracketed bool, ls, le int) {
	b, e := i, i+n
	for b > 0 && s[b-1] == ' ' {
		b--
	}
	for e < len(s) && s[e] == ' ' {
		e++
	}
	if b > 0 && e < len(s) && strings.IndexByte("[({<", s[b-1]) >= 0 && strings.IndexByte("])}>", s[e]) >= 0 {
		return true, b - 1, e + 1
	}
	if i > 0 && s[i-1] == ' ' && i+n < len(s) && s[i+n] == ' ' {
		return false, i - 1, i + n + 1
	}
	return false, -1, -1
}

// indexFold is strings.Index ignoring ASCII case, for a lowercase word: it
// hops between the occurrences of the word's first byte in either case.
func indexFold(s, w string) int {
	up := w[0] - 'a' + 'A'
	for i := 0; i+len(w) <= len(s); {
		j := strings.IndexByte(s[i:], w[0])
		if k := strings.IndexByte(s[i:], up); k >= 0 && (j < 0 || k < j) {
			j = k
		}
		if j < 0 {
			return -1
		}
		if i += j; i+len(w) <= len(s) && hasPrefixFold(s[i:], w) {
			return i
		}
		i++
	}
	return -1
}

// commonTLDs are the top-level domains an address written in words must
// end with: "jane at example dot com".
var commonTLDs = map[string]bool{
	"com": true, "org": true, "net": true, "edu": true, "gov": true, "io": true, "co": true,
	"de": true, "fr": true, "uk": true, "es": true, "it": true, "nl": true, "ch": true,
	"ca": true, "au": true, "jp": true, "ai": true, "dev": true, "app": true,
}

// PersonalKeys are keys, compared without case and separators, whose
// values are personal data: the key rule replaces them as it replaces a
// credential, with the kind given.
var PersonalKeys = map[string]Kind{
	"email": KindEmail, "emailaddress": KindEmail, "useremail": KindEmail,
	"customeremail": KindEmail, "contactemail": KindEmail,
	"phone": KindPhone, "phonenumber": KindPhone, "mobilenumber": KindPhone,
	"telephone": KindPhone, "tel": KindPhone, "fax": KindPhone, "msisdn": KindPhone,
	"contactnumber": KindPhone, "cellphone": KindPhone,
	"ssn": KindSSN, "socialsecuritynumber": KindSSN,
	"iban": KindIBAN, "bankaccount": KindIBAN, "accountnumber": KindIBAN, "bankaccountnumber": KindIBAN,
	"cardnumber": KindCard, "creditcard": KindCard, "creditcardnumber": KindCard, "pan": KindCard,
	"cvv": KindCard, "cvc": KindCard, "cvv2": KindCard, "cardcvc": KindCard,
	"firstname": KindPersonal, "lastname": KindPersonal, "fullname": KindPersonal,
	"givenname": KindPersonal, "familyname": KindPersonal, "surname": KindPersonal,
	"firstnames": KindPersonal, "forename": KindPersonal, "forenames": KindPersonal, "givennames": KindPersonal,
	"middlename": KindPersonal, "customername": KindPersonal, "patientname": KindPersonal,
	"dateofbirth": KindPersonal, "dob": KindPersonal, "birthdate": KindPersonal, "birthday": KindPersonal,
	"streetaddress": KindPersonal, "street": KindPersonal,
	"homeaddress": KindPersonal, "billingaddress": KindPersonal, "shippingaddress": KindPersonal,
	"mailingaddress": KindPersonal, "addressline1": KindPersonal, "addressline2": KindPersonal,
	"postalcode": KindPersonal, "zipcode": KindPersonal, "postcode": KindPersonal,
	"passport": KindPersonal, "passportnumber": KindPersonal, "nationalid": KindPersonal,
	"taxid": KindPersonal, "driverslicense": KindPersonal, "driverlicense": KindPersonal,
	"licensenumber": KindPersonal, "medicalrecordnumber": KindPersonal, "mrn": KindPersonal,
	"fname": KindPersonal, "lname": KindPersonal, "realname": KindPersonal, "legalname": KindPersonal,
	"maidenname": KindPersonal, "bornon": KindPersonal, "placeofbirth": KindPersonal,
	"birthplace": KindPersonal, "street1": KindPersonal, "street2": KindPersonal,
	"street3": KindPersonal, "address1": KindPersonal, "address2": KindPersonal,
	"address3": KindPersonal, "addr1": KindPersonal, "addr2": KindPersonal,
	"addressline": KindPersonal, "addressline3": KindPersonal, "housenumber": KindPersonal,
	"passportno": KindPersonal, "passportid": KindPersonal, "nationalidnumber": KindPersonal,
	"nationalidentifier": KindPersonal, "nationalidentificationnumber": KindPersonal,
	"idnumber": KindPersonal, "idcardnumber": KindPersonal, "identitycardnumber": KindPersonal,
	"identitynumber": KindPersonal, "personalnumber": KindPersonal, "personalid": KindPersonal,
	"nino": KindPersonal, "nationalinsurancenumber": KindPersonal, "socialinsurancenumber": KindPersonal,
	"taxpayerid": KindPersonal, "personnummer": KindPersonal, "cpf": KindPersonal,
	"dni": KindPersonal, "curp": KindPersonal, "pesel": KindPersonal, "aadhaar": KindPersonal,
	"bsn": KindPersonal, "codicefiscale": KindPersonal,
	"nif": KindPersonal, "tfn": KindPersonal, "hetu": KindPersonal, "henkilotunnus": KindPersonal,
	"nome": KindPersonal, "nomecompleto": KindPersonal, "titulaire": KindPersonal,
	"kontoinhaber": KindPersonal, "cardholder": KindPersonal, "accountholder": KindPersonal,
	"employee": KindPersonal, "holder": KindPersonal,
	"adresse": KindPersonal, "endereco": KindPersonal, "indirizzo": KindPersonal, "direccion": KindPersonal,
	"telefone": KindPhone, "telefono": KindPhone,
	// identity numbers and names under their own languages' keys
	"cpr": KindPersonal, "cprnummer": KindPersonal, "teudatzehut": KindPersonal, "rfc": KindPersonal,
	"tckimlikno": KindPersonal, "kimlikno": KindPersonal, "cuil": KindPersonal, "cuit": KindPersonal,
	"rut": KindPersonal, "isikukood": KindPersonal, "fodselsnummer": KindPersonal,
	"fødselsnummer": KindPersonal, "oib": KindPersonal, "ahv": KindPersonal, "ahvnummer": KindPersonal,
	"avs": KindPersonal, "nir": KindPersonal, "steuerid": KindPersonal, "steueridnr": KindPersonal,
	"idnr": KindPersonal, "egn": KindPersonal, "rodnecislo": KindPersonal, "ssin": KindPersonal,
	"rijksregisternummer": KindPersonal, "cnp": KindPersonal, "mynumber": KindPersonal,
	"nameoncard": KindPersonal, "cardholdername": KindPersonal, "officialname": KindPersonal,
	"navn": KindPersonal, "fornavn": KindPersonal, "efternavn": KindPersonal, "etternavn": KindPersonal,
	"nombre": KindPersonal, "apellido": KindPersonal, "apellidos": KindPersonal, "nombrecompleto": KindPersonal,
	"soyad": KindPersonal, "soyadi": KindPersonal, "vorname": KindPersonal, "nachname": KindPersonal,
	"prenom": KindPersonal, "prénom": KindPersonal, "nomdefamille": KindPersonal, "cognome": KindPersonal,
	"imie": KindPersonal, "nazwisko": KindPersonal, "jmeno": KindPersonal, "prijmeni": KindPersonal,
	"achternaam": KindPersonal, "voornaam": KindPersonal, "sukunimi": KindPersonal, "etunimi": KindPersonal,
	"fullnavn": KindPersonal, "fuldenavn": KindPersonal, "adsoyad": KindPersonal,
	"kennitala": KindPersonal, "emso": KindPersonal, "ppsn": KindPersonal, "ppsnumber": KindPersonal,
	"amka": KindPersonal, "cedula": KindPersonal, "cédula": KindPersonal, "irdnumber": KindPersonal,
	"rnokpp": KindPersonal, "snils": KindPersonal, "pinthai": KindPersonal,
	"piб": KindPersonal, "піб": KindPersonal, "ПІБ": KindPersonal, "фио": KindPersonal, "ФИО": KindPersonal,
	"성명": KindPersonal, "이름": KindPersonal, "氏名": KindPersonal, "姓名": KindPersonal, "名前": KindPersonal,
	"comprador": KindPersonal, "destinatario": KindPersonal,
	"hoten": KindPersonal, "socccd": KindPersonal, "cccd": KindPersonal, "cmnd": KindPersonal, "diachi": KindPersonal,
	"nama": KindPersonal, "namalengkap": KindPersonal, "nik": KindPersonal, "tgllahir": KindPersonal, "tanggallahir": KindPersonal,
	"idcard": KindPersonal, "idcardno": KindPersonal, "cnic": KindPersonal, "mykad": KindPersonal, "nric": KindPersonal,
	"sendername": KindPersonal, "mailingname": KindPersonal, "cardname": KindPersonal,
	"namn": KindPersonal, "fornamn": KindPersonal, "efternamn": KindPersonal, "förnamn": KindPersonal,
	"geslachtsnaam": KindPersonal, "voornamen": KindPersonal, "tussenvoegsel": KindPersonal,
	"geslachtsnaamtussenvoegsel": KindPersonal, "adisoyadi": KindPersonal, "adısoyadı": KindPersonal,
	"titular": KindPersonal, "intestatario": KindPersonal, "rekeninghouder": KindPersonal,
	"kontohavare": KindPersonal, "kontohaver": KindPersonal, "tilinomistaja": KindPersonal,
	"nhsnumber": KindPersonal, "nhsno": KindPersonal, "chinumber": KindPersonal,
	// a postal address, a phone and an identity number under other
	// languages' keys and labels (Cyrillic and Greek in both cases: keys
	// are lowered in ASCII only)
	"adres": KindPersonal, "adresa": KindPersonal, "anschrift": KindPersonal, "osoite": KindPersonal,
	"aadress": KindPersonal, "cím": KindPersonal, "lakcím": KindPersonal, "morada": KindPersonal,
	"endereço": KindPersonal, "dirección": KindPersonal, "адрес": KindPersonal, "Адрес": KindPersonal,
	"адреса": KindPersonal, "Адреса": KindPersonal, "διεύθυνση": KindPersonal, "Διεύθυνση": KindPersonal,
	"כתובת": KindPersonal, "العنوان": KindPersonal, "عنوان": KindPersonal, "पता": KindPersonal,
	"ที่อยู่": KindPersonal, "住所": KindPersonal, "주소": KindPersonal, "地址": KindPersonal, "住址": KindPersonal,
	"手机": KindPhone, "手机号": KindPhone, "手机号码": KindPhone, "电话": KindPhone, "電話番号": KindPhone,
	"携帯電話": KindPhone, "휴대전화": KindPhone, "전화번호": KindPhone, "телефон": KindPhone, "Телефон": KindPhone,
	"τηλέφωνο": KindPhone, "Τηλέφωνο": KindPhone, "טלפון": KindPhone, "الجوال": KindPhone, "الهاتف": KindPhone,
	"मोबाइल": KindPhone, "फ़ोन": KindPhone, "โทรศัพท์": KindPhone, "puhelin": KindPhone,
	"рнокпп": KindPersonal, "РНОКПП": KindPersonal, "іпн": KindPersonal, "ІПН": KindPersonal,
	"инн": KindPersonal, "ИНН": KindPersonal, "снилс": KindPersonal, "СНИЛС": KindPersonal,
	"αμκα": KindPersonal, "ΑΜΚΑ": KindPersonal, "αφμ": KindPersonal, "ΑΦΜ": KindPersonal,
	// a person's address by what it is for: registered, residential,
	// postal, delivery
	"registrationaddress": KindPersonal, "registeredaddress": KindPersonal, "residentialaddress": KindPersonal,
	"residenceaddress": KindPersonal, "postaladdress": KindPersonal, "deliveryaddress": KindPersonal,
	"permanentaddress": KindPersonal, "currentaddress": KindPersonal, "legaladdress": KindPersonal,
	"contactaddress": KindPersonal, "pickupaddress": KindPersonal, "dropoffaddress": KindPersonal,
	"correspondenceaddress": KindPersonal, "domicileaddress": KindPersonal,
	// a surname, given names and a birth date under other languages' keys
	// (the Romance languages' birth words are birthKeyWords', which take a
	// date only):
	// Spanish's two surnames (apellidoPaterno, primer_apellido), Latvian,
	// Lithuanian, Estonian, Finnish, Hungarian, the South Slavic languages,
	// Romanian, Portuguese; Cyrillic, Georgian, Armenian and South Asian
	// scripts' own words
	"apellidopaterno": KindPersonal, "apellidomaterno": KindPersonal, "primerapellido": KindPersonal,
	"segundoapellido": KindPersonal, "nombres": KindPersonal, "apprimer": KindPersonal, "apsegundo": KindPersonal,
	"prenombres": KindPersonal, "nudniconsulta": KindPersonal, "numerodocumento": KindPersonal, "veronumero": KindPersonal, "primernombre": KindPersonal,
	"segundonombre": KindPersonal, "sobrenome": KindPersonal, "apelido": KindPersonal,
	"uzvards": KindPersonal, "uzvārds": KindPersonal, "vards": KindPersonal, "vārds": KindPersonal,
	"pavarde": KindPersonal, "pavardė": KindPersonal, "vardas": KindPersonal,
	"perekonnanimi": KindPersonal, "eesnimi": KindPersonal, "etunimet": KindPersonal,
	"vezeteknev": KindPersonal, "vezetéknév": KindPersonal, "keresztnev": KindPersonal, "keresztnév": KindPersonal,
	"prezime": KindPersonal, "priezvisko": KindPersonal, "priimek": KindPersonal, "nume": KindPersonal, "prenume": KindPersonal,
	"фамилия": KindPersonal, "Фамилия": KindPersonal, "имя": KindPersonal, "Имя": KindPersonal,
	"отчество": KindPersonal, "Отчество": KindPersonal, "прізвище": KindPersonal, "Прізвище": KindPersonal,
	"სახელი": KindPersonal, "გვარი": KindPersonal, "Անուն": KindPersonal, "անուն": KindPersonal,
	"Ազգանուն": KindPersonal, "ազգանուն": KindPersonal, "பெயர்": KindPersonal, "নাম": KindPersonal, "नाम": KindPersonal,
	"dzimsanasdatums": KindPersonal, "dzimšanasdatums": KindPersonal, "gimimodata": KindPersonal,
	"syntymaaika": KindPersonal, "syntymäaika": KindPersonal, "syntymapaiva": KindPersonal, "syntymäpäivä": KindPersonal,
	"geburtsdatum": KindPersonal, "datumnarozeni": KindPersonal,
	"fodselsdato": KindPersonal, "fødselsdato": KindPersonal, "fodelsedatum": KindPersonal, "födelsedatum": KindPersonal,
	"dogumtarixi": KindPersonal, "doğumtarixi": KindPersonal, "ataadi": KindPersonal, "ataadı": KindPersonal,
	"kokonimi": KindPersonal, "dogumtarihi": KindPersonal, "doğumtarihi": KindPersonal, "szuletesidatum": KindPersonal, "születésidátum": KindPersonal,
	"датарождения": KindPersonal, "датанародження": KindPersonal,
	// Kyrgyz, Belarusian, Welsh, Irish, Tagalog, Thaana, Malayalam and
	// Kannada: a name, a surname, a birth date and an address
	"аты": KindPersonal, "Аты": KindPersonal, "атыжөнү": KindPersonal, "атыжөнүңүз": KindPersonal, "Атыжөнүңүз": KindPersonal,
	"фамилиясы": KindPersonal, "Фамилиясы": KindPersonal, "туулганкүнү": KindPersonal, "дареги": KindPersonal,
	"прозвішча": KindPersonal, "Прозвішча": KindPersonal, "імя": KindPersonal, "Імя": KindPersonal,
	"імяпабацьку": KindPersonal, "датанараджэння": KindPersonal, "адрас": KindPersonal,
	"enw": KindPersonal, "enwllawn": KindPersonal, "enwcyntaf": KindPersonal, "cyfenw": KindPersonal,
	"dyddiadgeni": KindPersonal, "cyfeiriad": KindPersonal, "codpost": KindPersonal,
	"ainm": KindPersonal, "sloinne": KindPersonal, "seoladh": KindPersonal, "dátabreithe": KindPersonal,
	"pangalan": KindPersonal, "apelyido": KindPersonal, "kaarawan": KindPersonal, "tirahan": KindPersonal,
	"ނަން": KindPersonal, "ދިވެހިކާޑު": KindPersonal, "പേര്": KindPersonal, "വിലാസം": KindPersonal,
	"ജനനതീയതി": KindPersonal, "ಹೆಸರು": KindPersonal, "ವಿಳಾಸ": KindPersonal, "ಜನ್ಮದಿನಾಂಕ": KindPersonal,
	"datenaissance": KindPersonal,
	// identity and tax numbers under their own names: Kuwait's civil id,
	// Kyrgyzstan's ПИН, the Philippines' PhilSys number, Hungary's tax
	// identification mark
	"civilid": KindPersonal, "пин": KindPersonal, "ПИН": KindPersonal, "psn": KindPersonal, "philsysnumber": KindPersonal,
	"adoazonosito": KindPersonal, "adoazonositojel": KindPersonal, "adóazonosító": KindPersonal, "adóazonosítójel": KindPersonal,
	// the value of an identity document beside its type (id_type, id_value)
	"idvalue": KindPersonal,
	// a name, a surname, a birth date, an identity number and an address
	// under keys in other languages and scripts (Persian, Arabic, Chinese,
	// South Slavic Cyrillic in both cases, Sinhala, Thai, Hebrew, Greek),
	// their words joined as splitWords gives them
	"نام": KindPersonal, "نامخانوادگی": KindPersonal, "نامونامخانوادگی": KindPersonal, "تاریختولد": KindPersonal,
	"کدملی": KindPersonal, "شمارهملی": KindPersonal, "آدرس": KindPersonal, "نشانی": KindPersonal,
	"اسم": KindPersonal, "الاسم": KindPersonal, "اسمالعائلة": KindPersonal, "تاريخالميلاد": KindPersonal,
	"رقمالهوية": KindPersonal, "出生日期": KindPersonal, "出生年月日": KindPersonal, "生年月日": KindPersonal,
	"名字": KindPersonal, "姓氏": KindPersonal, "身份證號碼": KindPersonal, "身份证号码": KindPersonal,
	"身份證": KindPersonal, "身份证": KindPersonal, "생년월일": KindPersonal,
	"име": KindPersonal, "Име": KindPersonal, "презиме": KindPersonal, "Презиме": KindPersonal,
	"имеипрезиме": KindPersonal, "Имеипрезиме": KindPersonal, "датумрођења": KindPersonal, "Датумрођења": KindPersonal,
	"јмбг": KindPersonal, "ЈМБГ": KindPersonal, "ембг": KindPersonal, "ЕМБГ": KindPersonal, "jmbg": KindPersonal,
	"embg": KindPersonal, "imeiprezime": KindPersonal, "datumrodjenja": KindPersonal, "datumrođenja": KindPersonal,
	"නම": KindPersonal, "ලිපිනය": KindPersonal, "උපන්දිනය": KindPersonal, "ชื่อ": KindPersonal, "นามสกุล": KindPersonal,
	"วันเกิด": KindPersonal, "שם": KindPersonal, "שםמשפחה": KindPersonal, "תאריךלידה": KindPersonal,
	"όνομα": KindPersonal, "Όνομα": KindPersonal, "επώνυμο": KindPersonal, "Επώνυμο": KindPersonal,
	"fechanacimiento": KindPersonal, "fechadenacimiento": KindPersonal, "datanascimento": KindPersonal,
	"datadinascita": KindPersonal, "datedenaissance": KindPersonal, "geboortedatum": KindPersonal,
	"nationalcode": KindPersonal, "emiratesid": KindPersonal, "hkid": KindPersonal,
	// a phone and a bank account under other languages' keys and scripts
	"موبایل": KindPhone, "تلفن": KindPhone, "تلفنهمراه": KindPhone, "شمارهموبایل": KindPhone, "شمارهتلفن": KindPhone,
	"جوال": KindPhone, "هاتف": KindPhone, "رقمالهاتف": KindPhone, "رقمالبطاقة": KindPersonal, "رقمالبطاقةالوطنية": KindPersonal, "رقمالجوال": KindPhone,
	"手機": KindPhone, "手機號碼": KindPhone, "電話": KindPhone, "電話號碼": KindPhone, "聯絡電話": KindPhone, "联系电话": KindPhone,
	"мобилни": KindPhone, "Мобилни": KindPhone, "мобилен": KindPhone, "Мобилен": KindPhone, "мобильный": KindPhone,
	"Мобильный": KindPhone, "ජංගම": KindPhone, "දුරකථන": KindPhone, "දුරකථනය": KindPhone, "נייד": KindPhone,
	"κινητό": KindPhone, "Κινητό": KindPhone,
	"sheba": KindIBAN, "shaba": KindIBAN, "شبا": KindIBAN, "شمارهشبا": KindIBAN, "clabe": KindIBAN, "cbu": KindIBAN,
	"cvu": KindIBAN, "kontonummer": KindIBAN, "rekeningnummer": KindIBAN, "numerodecuenta": KindIBAN, "númerodecuenta": KindIBAN,
	// a number a school, a health plan, a licensing authority or a
	// vehicle register gives one person, under a key that says whose it
	// is (the student's, the insured's, the driver's, the keeper's), in
	// English and German; an employer's and a fund's numbers of their
	// staff and members (employee_no, member_id) stay facts, as a
	// consumer group's member.id does
	"studentnumber": KindPersonal, "studentno": KindPersonal, "studentid": KindPersonal, "sisuserid": KindPersonal,
	"matriculationnumber": KindPersonal, "schülernummer": KindPersonal, "schuelernummer": KindPersonal,
	"schülerid": KindPersonal, "schuelerid": KindPersonal,
	"subscriberid":     KindPersonal,
	"subscribernumber": KindPersonal, "mbi": KindPersonal, "medicarenumber": KindPersonal, "kvnr": KindPersonal,
	"versichertennummer": KindPersonal, "krankenversichertennummer": KindPersonal,
	"drivinglicence": KindPersonal, "drivinglicencenumber": KindPersonal, "drivinglicense": KindPersonal,
	"drivinglicensenumber": KindPersonal, "driverslicensenumber": KindPersonal, "driverlicensenumber": KindPersonal,
	"driverslicence": KindPersonal, "licencenumber": KindPersonal, "führerscheinnummer": KindPersonal,
	"fuehrerscheinnummer": KindPersonal,
	"vrm":                 KindPersonal, "numberplate": KindPersonal, "licenseplate": KindPersonal, "licenceplate": KindPersonal,
	"registrationplate": KindPersonal, "vehicleregistration": KindPersonal, "kennzeichen": KindPersonal,
	"personalno": KindPersonal, "iddocumentnumber": KindPersonal, "identitydocumentnumber": KindPersonal,
	// a name, a surname, a patronymic, an address, a birth date, an
	// identity or passport number and a phone under the keys of Lao,
	// Georgian, Armenian, Mongolian, Uzbek (Latin and Cyrillic), Burmese,
	// Zulu, Yoruba, Khmer, Sinhala, Amharic, Swahili and Hausa, their words
	// joined as splitWords gives them
	"ຊື່": KindPersonal, "ນາມສະກຸນ": KindPersonal, "ທີ່ຢູ່": KindPersonal, "ວັນເດືອນປີເກີດ": KindPersonal, "ໂທລະສັບ": KindPhone,
	"მისამართი": KindPersonal, "მამისსახელი": KindPersonal, "დაბადებისთარიღი": KindPersonal, "პირადინომერი": KindPersonal,
	"პასპორტი": KindPersonal, "ტელეფონი": KindPhone,
	"Հասցե": KindPersonal, "հասցե": KindPersonal, "Հայրանուն": KindPersonal, "հայրանուն": KindPersonal,
	"Ծննդյանամսաթիվ": KindPersonal, "ծննդյանամսաթիվ": KindPersonal, "ՀԾՀ": KindPersonal, "Անձնագիր": KindPersonal,
	"անձնագիր": KindPersonal, "անունազգանուն": KindPersonal, "Հեռախոս": KindPhone, "հեռախոս": KindPhone,
	"Овог": KindPersonal, "овог": KindPersonal, "Нэр": KindPersonal, "нэр": KindPersonal, "Хаяг": KindPersonal,
	"хаяг": KindPersonal, "Регистрийндугаар": KindPersonal, "регистрийндугаар": KindPersonal,
	"Төрсөногноо": KindPersonal, "төрсөногноо": KindPersonal, "Утас": KindPhone, "утас": KindPhone,
	"familiya": KindPersonal, "familiyasi": KindPersonal, "ismi": KindPersonal, "otasiningismi": KindPersonal,
	"manzil": KindPersonal, "manzili": KindPersonal, "tugilgansana": KindPersonal, "jshshir": KindPersonal, "pinfl": KindPersonal,
	"Фамилияси": KindPersonal, "фамилияси": KindPersonal, "Исми": KindPersonal, "исми": KindPersonal,
	"Отасинингисми": KindPersonal, "отасинингисми": KindPersonal, "Манзил": KindPersonal, "манзил": KindPersonal,
	"Манзили": KindPersonal, "манзили": KindPersonal, "Туғилгансана": KindPersonal, "туғилгансана": KindPersonal,
	"ЖШШИР": KindPersonal, "жшшир": KindPersonal,
	"အမည်": KindPersonal, "အဘအမည်": KindPersonal, "လိပ်စာ": KindPersonal, "မွေးသက္ကရာဇ်": KindPersonal,
	"မှတ်ပုံတင်အမှတ်": KindPersonal, "ဖုန်း": KindPhone,
	"igama": KindPersonal, "isibongo": KindPersonal, "ikheli": KindPersonal, "inombolokamazisi": KindPersonal,
	"orúkọ": KindPersonal, "orukọ": KindPersonal, "orúkọìdílé": KindPersonal, "àdírẹ́sì": KindPersonal, "Àdírẹ́sì": KindPersonal, "ọjọ́ìbí": KindPersonal, "Ọjọ́ìbí": KindPersonal,
	"ឈ្មោះ": KindPersonal, "នាមត្រកូល": KindPersonal, "អាសយដ្ឋាន": KindPersonal, "ថ្ងៃខែឆ្នាំកំណើត": KindPersonal,
	"លេខអត្តសញ្ញាណប័ណ្ណ": KindPersonal, "ទូរស័ព្ទ": KindPhone,
	"ජාතිකහැඳුනුම්පත්අංකය": KindPersonal,
	"ስም": KindPersonal, "የአባትስም": KindPersonal, "አድራሻ": KindPersonal, "የትውልድቀን": KindPersonal, "ስልክ": KindPhone,
	"jinalaukoo": KindPersonal, "anwani": KindPersonal, "tareheyakuzaliwa": KindPersonal, "nambayanida": KindPersonal,
	"nambayasimu": KindPhone,
	"suna":        KindPersonal, "sunanuba": KindPersonal, "sunanmahaifi": KindPersonal, "adireshi": KindPersonal,
	"ranarhaihuwa": KindPersonal, "lambarnin": KindPersonal, "lambarwaya": KindPhone, "nin": KindPersonal,
	"emails": KindEmail, "emailaddresses": KindEmail, "phones": KindPhone, "phonenumbers": KindPhone,
}

// personalKind returns the kind of a key, given as its lowercase words,
// that names personal data — the whole key or its last one to three words
// ("customer_first_name" is a first name) — or "".
func personalKind(words []string) Kind {
	if len(words) >= 2 && typeKeyWords[words[0]] {
		// A type's word before the datum names the kind of document a
		// record holds, a code (tipoIdentificacionComprador = 04, Ecuador's
		// SRI's code for a RUC; tipo_documento = DNI): the order of the
		// languages that write the type first.
		return ""
	}
	if k := personalKindOf(words); k != "" {
		return k
	}
	if n := len(words); n > 0 {
		// A numbered part of a record (Apellido1, Apellido2): the key
		// without its number.
		if w := strings.TrimRight(words[n-1], "0123456789"); w != "" && len(w) < len(words[n-1]) && len(words[n-1])-len(w) <= 2 {
			return personalKindOf(append(words[:n-1:n-1], w))
		}
	}
	return ""
}

// typeKeyWords, as a key's first word, say the key names a kind of datum.
var typeKeyWords = map[string]bool{"tipo": true, "type": true, "typ": true, "tipus": true, "kind": true}

// personalKindOf is personalKind without reading a key's number.
func personalKindOf(words []string) Kind {
	// The key's last words, or the words before a format word
	// (CleansedPhoneNumberE164).
	end := len(words)
	for end > 1 && FormatWords[words[end-1]] {
		end--
	}
	var buf [96]byte
	for e := len(words); e >= end; e-- {
		for n := min(3, e); n >= 1; n-- {
			b := buf[:0]
			for _, w := range words[e-n : e] {
				b = append(b, w...)
			}
			if k := PersonalKeys[string(b)]; k != "" {
				return k
			}
		}
	}
	// A name whose owner is a person: holder_name, caller_name,
	// customer.name, AttentionName — and, as a key's own words, an
	// account's owner (OwnerName, owner_name; "owner" as a record's key
	// is as often a team's or a service's, so it is no NameOwnerWord).
	if n := len(words); n >= 2 && (words[n-1] == "name" || words[n-1] == "names" || words[n-1] == "nm") && (NameOwnerWords[words[n-2]] || words[n-2] == "owner" || words[n-2] == "owners") {
		return KindPersonal
	}
	// A name's key with a language tag before or after it (name_en,
	// en_name, enName, fullName_ja): a record that writes a name in two
	// scripts writes a person's, in their own and a transliterated one.
	if n := len(words); (n == 2 || n == 3) && (len(words[0]) == 2 || len(words[n-1]) == 2) {
		inner := words
		if len(words[n-1]) == 2 && languageTags[words[n-1]] {
			inner = words[:n-1]
		} else if len(words[0]) == 2 && languageTags[words[0]] {
			inner = words[1:]
		}
		if len(inner) < n && (len(inner) == 1 && inner[0] == "name" || personalKind(inner) == KindPersonal) {
			return KindPersonal
		}
	}
	// The same in languages that write the name before its owner and in
	// their own words: nomeCliente, nombre_titular, naamKlant,
	// kunde_navn, cliente_nome.
	if n := len(words); n >= 2 && (nameWords[words[0]] && partyWords[words[1]] || nameWords[words[n-1]] && partyWords[words[n-2]]) {
		return KindPersonal
	}
	return ""
}

// nameWords say "name" in other languages, as a word of a key.
var nameWords = map[string]bool{
	"nome": true, "nombre": true, "nom": true, "naam": true, "navn": true, "namn": true,
	"nimi": true, "imie": true, "jmeno": true, "isim": true, "ad": true, "name": true,
}

// partyWords name a person by the role the record gives them, in English
// and other languages, as a word of a key beside a name's word.
var partyWords = map[string]bool{
	"cliente": true, "clienti": true, "klant": true, "kunde": true, "kund": true, "asiakas": true,
	"titular": true, "titulaire": true, "paciente": true, "patient": true, "usuario": true,
	"utente": true, "utilisateur": true, "gebruiker": true, "benutzer": true, "customer": true,
	"destinatario": true, "destinataire": true, "ontvanger": true, "empfanger": true,
	"comprador": true, "acheteur": true, "pagador": true, "holder": true, "contato": true,
	"contacto": true, "contatto": true, "musteri": true, "mailing": true, "cardholder": true,
	"tyontekija": true, "tyontekijan": true, "henkilo": true, "henkilon": true,
}

// plausible reports whether v could be personal data of kind: a phone
// number, a card, an SSN or an IBAN holds digits, an e-mail address an
// '@' (or its escapes); "unknown", "n/a" and "redacted" are none of them.
// Credentials' kinds are always plausible: their values go whatever their
// shape.
func plausible(kind Kind, v string) bool {
	digits := digitCount(v)
	switch kind {
	case KindPhone, KindSSN, KindCard:
		return digits >= 3
	case KindIBAN:
		return digits >= 2
	case KindEmail:
		return strings.ContainsAny(v, "@") || strings.Contains(strings.ToLower(v), "%40") || strings.Contains(strings.ToLower(v), "at")
	case KindNationalID:
		return !companyTaxNumber(strings.TrimSpace(v))
	case KindPersonal:
		l := strings.ToLower(strings.TrimSpace(v))
		return !companyTaxNumber(strings.TrimSpace(v)) && l != "unknown" && l != "n/a" && l != "none" && l != "redacted" && l != "-"
	}
	return true
}

// pathE164 reports whether s[start:end] is a phone number in E.164 that is
// a whole segment of a URL path (a lookup API's /PhoneNumbers/+4477…): an
// id never starts with '+'.
func pathE164(s string, start, end int) bool {
	if start == 0 || s[start-1] != '/' || !isE164(s[start:end]) {
		return false
	}
	return end == len(s) || strings.IndexByte("/?#&\"' )\n\r", s[end]) >= 0
}

// countryTLD reports whether the lowercase label is two letters: a
// country's top-level domain, which an address written in words may end
// with ("… at example dot se").
func countryTLD(l string) bool {
	return len(l) == 2 && isLower(l[0]) && isLower(l[1])
}

// birthLabels and surnameLabels label a date of birth and a surname that
// may follow with no colon; they are matched in any ASCII case.
var (
	birthLabels = []string{"dob", "d.o.b.", "d.o.b", "date of birth", "birth date", "born on", "born",
		"geb.", "geboren am", "geboren", "geburtsdatum", "fecha de nacimiento", "data di nascita",
		"geboortedatum", "date de naissance", "née le", "né le"}
	// scriptBirthLabels say "date of birth" in other languages and scripts;
	// the date after them may be written in another calendar (Jalali
	// 1368/05/12) and in Arabic-Indic or Persian digits (dateEnd).
	scriptBirthLabels = []string{"تاریخ تولد", "تاريخ الميلاد", "تاريخ ميلاد", "出生日期", "出生年月日", "生年月日", "생년월일",
		"Датум рођења", "датум рођења", "Дата рождения", "дата рождения", "Дата народження", "дата народження",
		"Датум на раѓање", "датум на раѓање", "උපන් දිනය", "जन्म तिथि", "जन्मतिथि", "วันเกิด", "תאריך לידה",
		"ημερομηνία γέννησης", "Ημερομηνία γέννησης", "doğum tarihi", "tanggal lahir", "ngày sinh",
		"datum rođenja", "datum rojstva"}
	surnameLabels = []string{"surname", "last name", "family name", "nachname", "apellidos", "apellido",
		"achternaam", "cognome", "nazwisko"}
)

// findBareLabelledPersonal finds a date of birth (digits in three groups
// split by '-', '/' or '.') right after a birth label, blanks, ':', '=',
// '(' or a quote between (four bytes at most), and one or two capitalised
// words (any script with case; hyphens and apostrophes inside) right
// after a surname's label and blanks.
func findBareLabelledPersonal(s string, from int) []int {
	// One pass over the label's first bytes, as findLabelledName does.
	for a := from; a < len(s); a++ {
		c := lowerASCII(s[a])
		if !bareLabelFirst[c] {
			continue
		}
		if a > 0 && isAlnum(s[a-1]) {
			// A birth word as a key's last word (dataNascimento=,
			// fecha_nacimiento:, data_urodzenia=): the date after it.
			if isUpper(s[a]) && isLower(s[a-1]) {
				if loc := birthKeyDate(s, a); loc != nil {
					return loc
				}
			}
			continue
		}
		if a > 0 && s[a-1] == '_' {
			if loc := birthKeyDate(s, a); loc != nil {
				return loc
			}
		}
		for _, l := range allBirthLabels {
			if l[0] != c || !hasPrefixFold(s[a:], l) {
				continue
			}
			e := a + len(l)
			if e < len(s) && isLetter(s[e]) && isLetter(l[len(l)-1]) {
				continue
			}
			j := e
			for j < len(s) && j-e < 4 && strings.IndexByte(" \t:=(\"'", s[j]) >= 0 {
				j++
			}
			if de := dateEnd(s, j); j > e && de > j {
				return []int{j, de, -1, -1, j, de}
			}
		}
		for _, l := range surnameLabels {
			if l[0] != c || !hasPrefixFold(s[a:], l) {
				continue
			}
			e := a + len(l)
			if e < len(s) && (s[e] == '=' || s[e] == ':') && e+1 < len(s) && s[e+1] != ' ' {
				// A record's field printed key=value (a toString(), a
				// logfmt line): one capitalised word or two, the value.
				e++
				if e < len(s) && (s[e] == '"' || s[e] == '\'') {
					e++
				}
				if st, en := namesAfter(s, e, 1); st == e && en > st {
					return []int{st, en, -1, -1, st, en}
				}
				continue
			}
			if e >= len(s) || s[e] != ' ' && s[e] != '\t' {
				continue
			}
			if st, en := namesAfter(s, skipBlanks(s, e), 1); en > st {
				// one or two words
				if w := strings.IndexByte(s[st:en], ' '); w >= 0 {
					if w2 := strings.IndexByte(s[st+w+1:en], ' '); w2 >= 0 {
						en = st + w + 1 + w2
					}
					if nextLabel(s[st+w+1 : en]) {
						en = st + w // the next field's label ("… DOB 1961-…", "… NHS number")
					}
				}
				return []int{st, en, -1, -1, st, en}
			}
		}
	}
	return nil
}

// birthKeyWords are the words for birth that end a key naming a birth
// date in other languages (dataNascimento, fecha_nacimiento,
// data_urodzenia, geboorteDatum).
var birthKeyWords = []string{"nascimento", "nacimiento", "nascita", "naissance", "urodzenia", "geboorte"}

// birthKeyDate returns the date after the birth word at s[a] that ends a
// key ("date" or "datum" may follow it), '=' or ':' and blanks or a quote
// between, or nil.
func birthKeyDate(s string, a int) []int {
	for _, w := range birthKeyWords {
		if !hasPrefixFold(s[a:], w) {
			continue
		}
		e := a + len(w)
		for _, t := range [...]string{"_date", "date", "datum", "_datum"} {
			if hasPrefixFold(s[e:], t) {
				e += len(t)
				break
			}
		}
		if e < len(s) && (s[e] == '"' || s[e] == '\'') {
			e++ // a quoted key's closing quote
		}
		if e >= len(s) || s[e] != '=' && s[e] != ':' {
			return nil
		}
		j := e + 1
		for j < len(s) && j-e < 3 && strings.IndexByte(" \t\"'", s[j]) >= 0 {
			j++
		}
		if de := dateEnd(s, j); de > j {
			return []int{j, de, -1, -1, j, de}
		}
		return nil
	}
	return nil
}

// nextLabel reports whether the second word after a surname's label is
// the next field's label rather than a name: a birth label, or an
// acronym of capitals (DOB, NHS, MRN, SSN).
func nextLabel(w string) bool {
	for _, l := range birthLabels {
		if strings.EqualFold(w, l) {
			return true
		}
	}
	if len(w) < 2 || len(w) > 5 {
		return false
	}
	for i := 0; i < len(w); i++ {
		if !isUpper(w[i]) && w[i] != '.' {
			return false
		}
	}
	return true
}

// allBirthLabels are birthLabels and scriptBirthLabels.
var allBirthLabels = append(append([]string{}, birthLabels...), scriptBirthLabels...)

// bareLabelFirst holds the first bytes of birthLabels and surnameLabels.
var bareLabelFirst = func() (t [256]bool) {
	for _, l := range allBirthLabels {
		t[l[0]] = true
	}
	for _, l := range surnameLabels {
		t[l[0]] = true
	}
	for _, l := range birthKeyWords {
		t[l[0]] = true
	}
	return t
}()

// digitWidth returns the bytes of the digit at s[k]: 1 for an ASCII
// digit, 2 for an Arabic-Indic (U+0660–0669) or Persian (U+06F0–06F9) one,
// 0 for anything else.
func digitWidth(s string, k int) int {
	if isDigit(s[k]) {
		return 1
	}
	if k+1 < len(s) && (s[k] == 0xD9 && s[k+1] >= 0xA0 && s[k+1] <= 0xA9 || s[k] == 0xDB && s[k+1] >= 0xB0 && s[k+1] <= 0xB9) {
		return 2
	}
	return 0
}

// dateEnd returns the end of a date written as three groups of digits
// (one to four, one or two, two to four) split by the same '-', '/' or
// '.', standing alone, at s[i], or i.
func dateEnd(s string, i int) int {
	group := func(j, lo, hi int) int {
		k, n := j, 0
		for k < len(s) && n < hi {
			w := digitWidth(s, k)
			if w == 0 {
				break
			}
			k += w
			n++
		}
		if n < lo {
			return -1
		}
		return k
	}
	a := group(i, 1, 4)
	if a < 0 || a >= len(s) || s[a] != '-' && s[a] != '/' && s[a] != '.' {
		return i
	}
	sep := s[a]
	b := group(a+1, 1, 2)
	if b < 0 || b >= len(s) || s[b] != sep {
		return i
	}
	c := group(b+1, 2, 4)
	if c < 0 || c < len(s) && isAlnum(s[c]) {
		return i
	}
	return c
}
