package redact

import (
	"fmt"
	"net/url"
	"strings"
	"unicode"
)

// People's names and postal addresses are personal data by the record they
// stand in, not by their key alone: "name" is a person's under customer,
// user, contact, owner, billing_details or shipping, or beside an e-mail
// address or a phone number, and a queue's, a model's or a function's
// elsewhere. A record is an object (JSON and its relatives, a YAML block)
// judged by its parent's key and its members.

// NameOwnerWords, right before "name" in a key, make it a person's name
// wherever it stands: holder_name, accountHolderName, caller_name,
// customer.name, AttentionName, real_name.
var NameOwnerWords = map[string]bool{
	"holder": true, "cardholder": true, "accountholder": true, "caller": true,
	"customer": true, "contact": true, "recipient": true, "payer": true, "payee": true,
	"beneficiary": true, "debtor": true, "creditor": true, "patient": true,
	"employee": true, "traveler": true, "traveller": true, "passenger": true,
	"guest": true, "applicant": true, "candidate": true, "person": true,
	"shopper": true, "buyer": true, "consignee": true, "attention": true,
	"real": true, "legal": true, "maiden": true, "birth": true, "student": true,
	"consumer": true, "member": true, "insured": true, "policyholder": true, "borrower": true,
	"subscriber": true, "signer": true, "remitter": true, "addressee": true, "depositor": true,
	"keeper": true, "driver": true,
}

// PersonWords, in the key of the record a value stands in, say the record
// describes a person or a person's postal address: its name, display name,
// address lines and numbers are personal data.
var PersonWords = map[string]bool{
	"customer": true, "customers": true, "user": true, "users": true, "contact": true,
	"addressee": true, "policyholder": true, "insured": true, "borrower": true,
	"member": true, "members": true, "sender": true, "client": true,
	"contacts": true, "owner": true, "owners": true, "holder": true, "cardholder": true,
	"payer": true, "payee": true, "recipient": true, "recipients": true,
	"beneficiary": true, "debtor": true, "creditor": true, "dbtr": true, "cdtr": true,
	"ultmtdbtr": true, "ultmtcdtr": true, "traveler": true, "travelers": true,
	"traveller": true, "travellers": true, "passenger": true, "passengers": true,
	"patient": true, "patients": true, "employee": true, "employees": true,
	"person": true, "people": true, "persons": true, "profile": true, "identity": true,
	"individual": true, "actor": true, "author": true, "committer": true,
	"requester": true, "assignee": true, "reporter": true, "applicant": true,
	"candidate": true, "guest": true, "guests": true, "buyer": true, "shopper": true,
	"signer": true, "attendee": true, "attendees": true, "participant": true,
	"participants": true, "subscriber": true, "student": true, "driver": true,
	"visitor": true, "lead": true, "consignee": true, "caller": true, "billing": true,
	"shipping": true, "delivery": true, "address": true, "addresses": true,
	"shipto": true, "billto": true, "soldto": true, "mailing": true, "home": true,
	"residence": true, "name": true, "names": true, "accountholder": true,
	"consumer": true, "remitter": true, "depositor": true,
}

// ThingWords, as the last word of the record's key, say it describes a
// thing an operator needs by name — a queue, a model, a function, a
// repository, a carrier — whatever its members hold.
var ThingWords = map[string]bool{
	"error": true, "errors": true, "exception": true, "function": true, "functions": true,
	"tool": true, "tools": true, "model": true, "models": true, "queue": true, "queues": true,
	"table": true, "tables": true, "bucket": true, "buckets": true, "service": true,
	"services": true, "stage": true, "stages": true, "file": true, "files": true,
	"resource": true, "resources": true, "repository": true, "repositories": true,
	"repo": true, "repos": true, "project": true, "projects": true, "app": true, "apps": true,
	"application": true, "applications": true, "client": true, "clients": true, "org": true,
	"organization": true, "organisation": true, "company": true, "team": true, "teams": true,
	"group": true, "groups": true, "pool": true, "pools": true, "role": true, "roles": true,
	"policy": true, "workspace": true, "index": true, "topic": true, "topics": true,
	"stream": true, "job": true, "jobs": true, "task": true, "tasks": true, "workflow": true,
	"step": true, "steps": true, "rule": true, "rules": true, "metric": true, "metrics": true,
	"span": true, "spans": true, "package": true, "module": true, "image": true,
	"container": true, "containers": true, "cluster": true, "database": true, "db": true,
	"schema": true, "column": true, "columns": true, "field": true, "fields": true,
	"parameter": true, "parameters": true, "param": true, "params": true, "header": true,
	"headers": true, "plan": true, "product": true, "products": true, "price": true,
	"region": true, "zone": true, "channel": true, "connection": true, "provider": true,
	"vendor": true, "carrier": true, "merchant": true, "browser": true, "os": true,
	"device": true, "sdk": true, "library": true, "runtime": true, "instance": true,
	"instances": true, "node": true, "nodes": true, "host": true, "pod": true,
	"deployment": true, "namespace": true, "metadata": true, "label": true, "labels": true,
	"tag": true, "tags": true, "secret": true, "certificate": true, "domain": true,
	"endpoint": true, "operation": true, "method": true, "class": true, "layer": true,
	"layers": true, "branch": true, "build": true, "pipeline": true, "environment": true,
	"env": true, "site": true, "page": true, "template": true, "dataset": true,
	"attachment": true, "feature": true, "flag": true, "setting": true, "config": true,
	"configuration": true, "status": true, "state": true, "priority": true,
	"component": true, "version": true, "release": true, "category": true,
	"machine": true, "statemachine": true, "store": true, "shop": true, "tenant": true,
	"account": true, "issuetype": true, "queuename": true, "event": true, "target": true,
}

// personNameKeys hold a name that is a person's only in a person's record
// (compared without case and separators).
var personNameKeys = map[string]bool{
	"name": true, "names": true, "nm": true, "lglnm": true, "displayname": true, "nickname": true,
	"preferredname": true, "fullname": true, "formattedname": true,
	"ad": true, "adı": true, "isim": true, // Turkish: beside soyad, a TC kimlik no
	// "name" in scripts without case: Arabic, Hebrew, Devanagari, Thai
	"الاسم": true, "اسم": true, "الاسمالكامل": true, "שם": true, "שםמלא": true, "नाम": true, "ชื่อ": true,
	"имя": true, "Имя": true, "όνομα": true, "Όνομα": true,
}

// displayNameKeys hold the name an account shows, which beside the
// account's own e-mail address (emailKeys) is a person's even in a thing's
// record: {"event": {"email": …, "displayName": …}}.
var displayNameKeys = map[string]bool{
	"displayname": true, "fullname": true, "realname": true, "preferredname": true,
	"formattedname": true, "legalname": true,
}

// emailKeys are the keys of a record's own e-mail address (not an
// owner's or a contact's: owner_email).
var emailKeys = map[string]bool{"email": true, "emailaddress": true, "mail": true, "primaryemail": true}

// addressLineKeys hold a line of a postal address in an address's record.
var addressLineKeys = map[string]bool{
	"line1": true, "line2": true, "line3": true, "address": true, "addressline": true,
	"line": true, "lines": true,
	"strtnm": true, "adrline": true, "streetname": true, // ISO 20022's postal address
}

// namePartKeys are the parts of a person's name in a name's record:
// {"name": {"first": …, "last": …}}, FHIR's HumanName {"family": …,
// "given": […], "text": …}.
var namePartKeys = map[string]bool{
	"first": true, "last": true, "given": true, "family": true, "middle": true,
	"full": true, "formatted": true, "display": true, "text": true, "prefix": true,
	"suffix": true, "initials": true, "maiden": true, "nick": true, "preferred": true,
}

// inheritKeys hold the datum of their record — {"phone": {"number": …}},
// {"type": "passport", "unique_identifier": …} — and get its kind.
var inheritKeys = map[string]bool{
	"number": true, "value": true, "data": true, "identifier": true,
	"uniqueidentifier": true, "documentnumber": true, "idnumber": true,
	"nationalnumber": true, "localformat": true, "nationalformat": true,
	"internationalformat": true, "e164": true, "formatted": true,
}

// handleKeys hold a login, which an operator needs, unless it is a
// person's e-mail address or full name.
var handleKeys = map[string]bool{
	"username": true, "login": true, "screenname": true, "handle": true,
	"owner": true, "alternateid": true, "principalname": true, "userprincipalname": true,
}

// identityDocuments are the values of a record's type that make its number
// an identity document's.
var identityDocuments = map[string]bool{
	"passport": true, "nationalid": true, "nationalidentitycard": true, "idcard": true,
	"identitycard": true, "driverslicense": true, "driverlicense": true,
	"drivinglicence": true, "drivinglicense": true, "residencepermit": true, "visa": true,
	"nationalidentitydocument": true, "taxid": true, "ssn": true,
	"nationalinsurance": true, "nationalinsurancenumber": true, "socialinsurance": true,
	"socialsecurity": true, "socialsecuritynumber": true, "taxpayerid": true, "taxnumber": true,
	"tin": true, "personalnumber": true, "identitynumber": true, "nino": true, "sin": true,
	"cpf": true, "curp": true, "nric": true, "aadhaar": true, "bsn": true, "pesel": true,
}

// FormatWords may follow the words of a personal key without changing
// what it holds: CleansedPhoneNumberE164, phone_number_national.
var FormatWords = map[string]bool{
	"e164": true, "national": true, "international": true, "formatted": true,
	"normalized": true, "normalised": true, "cleansed": true, "raw": true,
	"original": true, "primary": true, "full": true, "local": true,
}

// record is what a record's key and members say about whom it describes.
type record struct {
	person   bool // a person or a person's address
	sure     bool // a member, not only the record's key, says so
	thing    bool // a thing: its names stay
	inherit  Kind // the record's key names personal data: its datum gets the kind
	document bool // its type names an identity document
	phone    bool // a member is a phone number
	address  bool // the record is an address
	name     bool // the record is a person's name: {"first": …, "last": …}
	email    bool // a member under an e-mail key is an e-mail address
	members  map[string]string
}

// newRecord judges a record by its key (the key it stands under, or the
// label before it in text).
func newRecord(parent string) *record {
	r := &record{}
	parent = stripMarkers(parent)
	var buf [16]string
	words := splitWords(parent, buf[:0])
	if len(words) == 0 {
		return r
	}
	if ThingWords[words[len(words)-1]] {
		r.thing = true
		return r
	}
	joined := strings.Join(words, "")
	if last := words[len(words)-1]; last == "name" || last == "names" || last == "nm" || last == "humanname" {
		r.name = true
	}
	for _, w := range words {
		if PersonWords[w] {
			r.person = true
		}
		if w == "address" || w == "addresses" || w == "street" || w == "shipto" || w == "billto" {
			r.address = true
		}
	}
	if PersonWords[joined] {
		r.person = true
	}
	if joined == "pstladr" {
		// ISO 20022's postal address of a payment's party (Dbtr, Cdtr,
		// UltmtCdtr): a person's, unless a thing's record says otherwise.
		r.person, r.address = true, true
	}
	if k := personalKind(words); k != "" {
		r.inherit = k
	} else if strings.HasSuffix(joined, "phone") || words[len(words)-1] == "phones" {
		r.inherit = KindPhone
	}
	return r
}

// member adds what one member of the record says: a personal key or an
// e-mail address says it is a person's (a thing's record stays one), a
// type names a person or an identity document, an E.164 number makes its
// numbers phones. val is a string member's text, or "".
func (r *record) member(key, val string) {
	if r.members == nil {
		r.members = make(map[string]string, 8)
	}
	nk := recordKey(stripMarkers(key))
	if _, seen := r.members[nk]; !seen {
		r.members[nk] = val
	}
	if r.thing {
		if emailKeys[nk] && looksLikeEmail(val) {
			r.email = true
		}
		return
	}
	var buf [16]string
	words := splitWords(key, buf[:0])
	switch k := personalKind(words); k {
	case "":
	case KindPhone:
		r.person, r.sure, r.phone = true, true, true
	default:
		r.person, r.sure = true, true
	}
	if val == "" {
		return
	}
	switch nk {
	case "type", "object", "kind", "recordtype", "resourcetype", "documenttype", "doctype", "objecttype":
		v := recordKey(val)
		if identityDocuments[v] {
			r.document = true
		}
		if PersonWords[v] || NameOwnerWords[v] {
			r.person, r.sure = true, true
		}
	}
	if isE164(val) || val == KindPhone.Marker() || messengerKeys[nk] && digitCount(val) >= 7 {
		r.phone = true
	}
	if looksLikeEmail(val) {
		r.person, r.sure = true, true
	}
}

// kindOf returns what the record makes of the value under key: a kind
// (personal data), "" with ok (a name that stays, in a thing's record), or
// ok false (the key decides alone).
func (r *record) kindOf(key, val string) (Kind, bool) {
	nk := recordKey(stripMarkers(key))
	if r.thing {
		if r.email && displayNameKeys[nk] && looksLikePersonName(val) {
			// An account's own e-mail address beside its display name
			// makes the name a person's, whatever the record's key
			// (an event's payload, a statement's parameters).
			return KindPersonal, true
		}
		if personNameKeys[nk] {
			return "", true
		}
		return "", false
	}
	if handleKeys[nk] {
		if looksLikeEmail(val) || looksLikePersonName(val) {
			return KindPersonal, true
		}
		return "", false
	}
	if inheritKeys[nk] {
		switch {
		case r.inherit != "":
			return r.inherit, true
		case r.document:
			return KindPersonal, true
		case r.phone && digitCount(val) >= 7:
			return KindPhone, true
		}
	}
	if personNameKeys[nk] && caselessName(val) {
		// A thing's name (a service's, a queue's, a model's) is an
		// identifier; words of a script without case under a name are a
		// person's, whatever the record says.
		return KindPersonal, true
	}
	if r.person && personNameKeys[nk] && (r.sure || looksLikePersonName(val)) {
		// The record's key alone (users:, owner) also heads records of
		// logins and service accounts: a name goes when it reads as a
		// person's.
		return KindPersonal, true
	}
	if partyNameKeys[nk] && (r.phone || r.sure) && looksLikePersonName(val) {
		return KindPersonal, true
	}
	if r.person && r.address && addressLineKeys[nk] {
		return KindPersonal, true
	}
	if r.name && namePartKeys[nk] {
		return KindPersonal, true
	}
	if r.person && nk == "address" && val != "" && looksLikeStreet(val) {
		return KindPersonal, true
	}
	return "", false
}

// contextKey reports whether a key's value may depend on its record: a
// name, an address line, a datum, a login. It is the cheap test before a
// record is read.
func contextKey(key string) bool {
	nk := recordKey(stripMarkers(key))
	return personNameKeys[nk] || addressLineKeys[nk] || inheritKeys[nk] || handleKeys[nk] || namePartKeys[nk] || partyNameKeys[nk]
}

// messengerKeys name a messaging channel whose address is a phone number
// ({"whatsapp": "(21) 98734-5512"}).
var messengerKeys = map[string]bool{
	"whatsapp": true, "sms": true, "viber": true, "signal": true, "telegram": true, "imessage": true,
	"mobile": true, "cell": true, "celular": true, "handy": true, "movil": true, "móvil": true,
}

// partyNameKeys name a party by its role, in any language — the customer,
// the recipient, the patient — rather than saying "name": their value is a
// person's name when it reads as one in a record that also holds a phone
// number or says it is a person's ({"whatsapp": "…", "cliente": "Rafaela
// Monteiro"}).
var partyNameKeys = map[string]bool{
	"customer": true, "client": true, "cliente": true, "klant": true, "kunde": true, "kundin": true,
	"recipient": true, "destinatario": true, "destinataire": true, "empfanger": true, "empfänger": true,
	"ontvanger": true, "receiver": true, "addressee": true, "sender": true, "remitente": true,
	"patient": true, "paciente": true, "patiente": true, "passenger": true, "pasajero": true, "guest": true,
	"huesped": true, "hóspede": true, "hospede": true, "contact": true, "contato": true, "contacto": true,
	"buyer": true, "comprador": true, "usuario": true, "utente": true, "titular": true, "beneficiario": true,
}

// roleIn is role, the key's own, as the record changes it.
func (r *record) roleIn(key, val string, role keyRole) keyRole {
	if role.kind != "" && !personNameKeys[recordKey(stripMarkers(key))] || role.text {
		return role
	}
	k, ok := r.kindOf(key, val)
	if !ok {
		return role
	}
	return keyRole{kind: k}
}

// isE164 reports whether v is a phone number in E.164: '+' and 8 to 15
// digits.
func isE164(v string) bool {
	return len(v) >= 9 && len(v) <= 16 && v[0] == '+' && isAllDigits(v[1:])
}

func digitCount(v string) int {
	n := 0
	for i := 0; i < len(v); i++ {
		if isDigit(v[i]) {
			n++
		}
	}
	return n
}

// looksLikeEmail reports whether v is an e-mail address and nothing else.
func looksLikeEmail(v string) bool {
	at := strings.IndexByte(v, '@')
	if at <= 0 || at != strings.LastIndexByte(v, '@') || strings.ContainsAny(v, " \t\n/:") {
		return false
	}
	dot := strings.LastIndexByte(v[at:], '.')
	return dot > 1 && at+dot < len(v)-2
}

// looksLikePersonName reports whether v is written as a person's full
// name: two to five words of letters (apostrophes, hyphens and dots
// inside), each capitalised or all in capitals, lower-case particles
// (de, van, bin) between them — "Pieter de Vries", "MARCUS HOLLOWAY".
func looksLikePersonName(v string) bool {
	words := strings.Fields(v)
	if len(words) < 2 || len(words) > 5 {
		return false
	}
	caps := 0
	for _, w := range words {
		for i := 0; i < len(w); i++ {
			if c := w[i]; !(isLetter(c) || c >= 0x80 || i > 0 && (c == '\'' || c == '-' || c == '.')) {
				return false
			}
		}
		if isUpper(w[0]) || w[0] >= 0x80 {
			caps++
		} else if !nameParticles[w] {
			return false
		}
	}
	return caps >= 2
}

// caselessName reports whether v, percent-decoded when a query or a form
// writes it so, is two to five words of letters in a script without case
// (Hebrew, Arabic, Devanagari, Thai): a person's name, never an
// identifier.
func caselessName(v string) bool {
	if len(v) < 4 || v[0] < 0x80 && v[0] != '%' {
		return false
	}
	if v[0] == '%' {
		d, err := url.PathUnescape(v)
		if err != nil {
			return false
		}
		v = d
	}
	words, letters := 0, 0
	for _, w := range strings.Fields(v) {
		for _, r := range w {
			if !(unicode.IsLetter(r) && !unicode.IsUpper(r) && !unicode.IsLower(r) || unicode.Is(unicode.Mn, r) || unicode.Is(unicode.Mc, r) || r == '-' || r == '\'' || r == '.') {
				return false
			}
			letters++
		}
		words++
	}
	return words >= 2 && words <= 5 && letters >= 4
}

// nameParticles are the lower-case words inside a person's name.
var nameParticles = map[string]bool{
	"de": true, "da": true, "di": true, "del": true, "della": true, "van": true,
	"von": true, "der": true, "den": true, "la": true, "le": true, "bin": true,
	"bint": true, "binti": true, "al": true, "el": true, "ibn": true, "dos": true, "das": true, "du": true, "y": true,
}

// looksLikeStreet reports whether v reads as a street address: words with
// a house number, not a host, a path or an IP address.
func looksLikeStreet(v string) bool {
	if strings.ContainsAny(v, "/@:") || !strings.Contains(v, " ") && !hasHighByte(v) {
		return false
	}
	letters := false
	for i := 0; i < len(v); i++ {
		if isLetter(v[i]) || v[i] >= 0x80 { // letters of any script: 北京市朝阳区建国路88号, רחוב הרצל 12
			letters = true
		}
	}
	return letters && (digitCount(v) > 0 || strings.ContainsAny(v, "٠١٢٣٤٥٦٧٨٩"))
}

// structLabel returns the key or label just before a structure at s[i]:
// customer={…}, "user": {…}, UserRecord {…}, owners=[…].
func structLabel(s string, i int) string {
	k := i
	for k > 0 && i-k < 8 && (s[k-1] == ' ' || s[k-1] == '=' || s[k-1] == ':' || s[k-1] == '>' || s[k-1] == '"' || s[k-1] == '\'') {
		k--
	}
	e := k
	for k > 0 && e-k < 64 && (isKeyByte(s[k-1]) || s[k-1] == '$') {
		k--
	}
	return s[k:e]
}

// record reads the members of the object whose content starts at i and
// ends with close — keys, and the text of strings — without editing
// anything, and judges it with its parent's key.
func (p *lenient) record(i int, close byte, parent string) *record {
	r := newRecord(parent)
	limit := i + recordReach
	for n := 0; n < 256 && i < limit; n++ {
		i = p.ws(i)
		if i >= len(p.s) || p.s[i] == close {
			break
		}
		_, ke, key, ok := p.key(i)
		if !ok {
			break
		}
		i, ok = p.valueAt(ke)
		if !ok {
			return r
		}
		if i >= len(p.s) {
			break
		}
		val := ""
		switch c := p.s[i]; c {
		case '"', '\'':
			k := i + 1
			for k < len(p.s) && p.s[k] != c && p.s[k] != '\n' {
				if p.s[k] == '\\' {
					k++
				}
				k++
			}
			if k >= len(p.s) {
				r.member(key, "")
				return r
			}
			val = p.s[i+1 : k]
			if strings.IndexByte(val, '\\') >= 0 {
				if d, ok := unescape(val); ok {
					val = d
				}
			}
			i = k + 1
		case '{', '[', '(':
			i = skipNested(p.s[:min(len(p.s), limit)], i)
		default:
			e := p.bareEnd(i)
			val = strings.TrimSpace(p.s[i:e])
			if isLiteral(val) {
				val = ""
			}
			i = e
		}
		r.member(key, val)
		i = p.ws(i)
		if i < len(p.s) && p.s[i] == ',' {
			i++
		}
	}
	return r
}

// recordReach bounds how far a record's members are read: a record's
// members stand within 4 KiB of its start, and nested records are read
// once per level, not to the end of the text each.
const recordReach = 4 << 10

// skipNested returns the end of the bracketed value at s[i], past its
// closing bracket (strings inside skipped), or the end of the line where
// it is cut short.
func skipNested(s string, i int) int {
	depth := 0
	for k := i; k < len(s); k++ {
		switch c := s[k]; c {
		case '{', '[', '(':
			depth++
		case '}', ']', ')':
			depth--
			if depth == 0 {
				return k + 1
			}
		case '"', '\'':
			k++
			for k < len(s) && s[k] != c && s[k] != '\n' {
				if s[k] == '\\' {
					k++
				}
				k++
			}
		}
	}
	return len(s)
}

// jsonRecord reads the members of the JSON object starting at in[i] — keys
// and the text of strings — and judges it with its parent's key.
func jsonRecord(in []byte, i int, parent string) *record {
	rec := newRecord(parent)
	r := walker{in: in[:min(len(in), i+recordReach)], i: i + 1}
	for n := 0; n < 256 && r.i < len(r.in); n++ {
		r.skipWS()
		if r.peek() != '"' {
			break
		}
		key := decodeString(r.skip())
		r.skipWS()
		r.i++ // :
		r.skipWS()
		raw := r.skip()
		val := ""
		if firstByte(raw) == '"' {
			val = decodeString(raw)
		}
		rec.member(key, val)
		r.skipWS()
		if r.peek() != ',' {
			break
		}
		r.i++
	}
	return rec
}

// findTextRecord finds, outside quoted structure, the value of a key that
// holds a name, an address line or a login (contextKey) when its record
// makes it personal data: a YAML mapping (its parent's key, the keys
// beside it at its indentation) or a logfmt, form or query line (the
// other keys on the line: name="…" beside email=…). customer.name and
// holder_name are personal keys anywhere (personalKind), for the
// key-value rule.
func findTextRecord(s string, from int) []int {
	for i := from; i < len(s); {
		ks, ke, sep := nextKey(s, from, i)
		if sep < 0 {
			return nil
		}
		i = sep + 1
		if s[sep] == ':' {
			ks = spacedKeyStart(s, ks)
		}
		if nk := recordKey(s[ks:ke]); ks == ke || ke-ks > 40 || !(personNameKeys[nk] || addressLineKeys[nk] || handleKeys[nk]) {
			continue
		}
		if ks > 0 && (s[ks-1] == '"' || s[ks-1] == '\'' || s[ks-1] == '/' || s[ks-1] == '@' || s[ks-1] == '<') {
			continue // a quoted key is the structure layer's; a path or a tag is no key
		}
		key := s[ks:ke]
		var rec *record
		var vs, ve, end int
		switch {
		case s[sep] == ':' && lineIndentStart(s, ks) && sep+1 < len(s) && (s[sep+1] == ' ' || s[sep+1] == '\t'):
			vs, ve = yamlValue(s, ks, sep+1)
			if ve <= vs || strings.ContainsAny(s[vs:ve], "\n\r") {
				continue
			}
			end = ve
			rec = yamlRecord(s, ks)
		case s[sep] == '=':
			vs, ve, end = valueAt(s, sep+1, false, 0)
			if ve <= vs {
				continue
			}
			if ve == end {
				ve = personalEnd(s, vs, ve, KindPersonal)
				end = ve
			}
			rec = lineRecord(s, ks, end)
		default:
			continue
		}
		val := s[vs:ve]
		if isMarker(val) || isLiteral(val) || startsWithMarker(s, vs) {
			continue
		}
		if k, ok := rec.kindOf(key, strings.ReplaceAll(val, "+", " ")); ok && k != "" && plausible(k, val) {
			return []int{ks, end, ks, ke, vs, ve}
		}
	}
	return nil
}

// checkTextRecord gives a record's value the kind its record says.
func checkTextRecord(m Match) (Kind, bool) {
	if k := personalKind(splitWords(m.Key, nil)); k != "" {
		return k, true
	}
	return KindPersonal, true
}

// lineRecord judges the record of a key=value pair by the other keys on
// its line.
func lineRecord(s string, ks, end int) *record {
	r := newRecord("")
	ls := lineStartOf(s, ks)
	le := end
	for le < len(s) && le-end < 256 && s[le] != '\n' && s[le] != '\r' {
		le++
	}
	line := s[ls:le]
	var buf [16]string
	for k := 0; k < len(line) && !r.sure; k++ {
		if line[k] != '=' {
			continue
		}
		b := k
		for b > 0 && isKeyByte(line[b-1]) {
			b--
		}
		if b < k && ls+b != ks && k-b <= 40 && personalKind(splitWords(line[b:k], buf[:0])) != "" {
			r.person, r.sure = true, true
		}
	}
	return r
}

// yamlRecord judges the record of the YAML key at ks: the key of the
// mapping it belongs to (the nearest line above indented less) and the
// keys beside it (the lines around at its indentation, up to 16 lines and
// 1 KiB each way).
func yamlRecord(s string, ks int) *record {
	ls := lineStartOf(s, ks)
	indent := ks - ls
	parent := ""
	// Up: siblings, then the parent.
	var siblings []string
	p := ls
	for n := 0; n < 16 && p > 0 && ls-p < 1024; n++ {
		pe := p - 1
		if pe > 0 && s[pe] == '\n' && s[pe-1] == '\r' {
			pe--
		}
		pl := lineStartOf(s, pe)
		line := s[pl:pe]
		p = pl
		t := strings.TrimLeft(line, " \t")
		if t == "" {
			continue
		}
		d := len(line) - len(t)
		k := yamlKey(t)
		if d < indent {
			parent = k
			break
		}
		if d == indent && k != "" {
			siblings = append(siblings, k)
		}
	}
	// Down: siblings.
	q := ks
	for n := 0; n < 16 && q < len(s) && q-ks < 1024; n++ {
		e := strings.IndexAny(s[q:], "\n\r")
		if e < 0 {
			break
		}
		q += e
		for q < len(s) && (s[q] == '\n' || s[q] == '\r') {
			q++
		}
		le := lineEnd(s, q)
		line := s[q:le]
		t := strings.TrimLeft(line, " \t")
		if t == "" {
			continue
		}
		d := len(line) - len(t)
		if d < indent {
			break
		}
		if d == indent {
			if k := yamlKey(t); k != "" {
				siblings = append(siblings, k)
			}
		}
	}
	r := newRecord(parent)
	var buf [16]string
	for _, k := range siblings {
		if r.thing || r.sure {
			break
		}
		if personalKind(splitWords(k, buf[:0])) != "" {
			r.person, r.sure = true, true
		}
	}
	return r
}

// yamlKey returns the key of a YAML line "key: …" (after a list dash), or
// "": also a label of up to four words, as a report's block of fields
// writes it ("Date of Birth:", a Windows event's "User Principal Name:").
func yamlKey(t string) string {
	t = strings.TrimPrefix(t, "- ")
	k := 0
	for words := 1; ; words++ {
		for k < len(t) && isKeyByte(t[k]) {
			k++
		}
		if words < 4 && k+1 < len(t) && t[k] == ' ' && isKeyByte(t[k+1]) {
			k++
			continue
		}
		break
	}
	if k == 0 || k >= len(t) || t[k] != ':' {
		return ""
	}
	return t[:k]
}

// spacedKeyStart returns where the key ending in the word at s[ks] starts
// when it is a label of up to four words standing at its line's start
// ("\tDisplay Name:\t\tIda Ström"), or ks.
func spacedKeyStart(s string, ks int) int {
	st := ks
	for words := 1; words < 4 && st > 1 && s[st-1] == ' ' && isKeyByte(s[st-2]); words++ {
		w := keyStart(s, 0, st-1)
		st = w
		if lineIndentStart(s, st) {
			return st
		}
	}
	return ks
}

// findXMLRecord finds the text of a leaf element that holds a name or an
// address line (contextKey) inside an element that names a person or an
// address: <Dbtr><Nm>…</Nm></Dbtr>, <ShipTo><Name>…</Name></ShipTo>.
func findXMLRecord(s string, from int) []int {
	for from < len(s) {
		loc := xmlElement(s, from, func(keyRole) bool { return true })
		if loc == nil {
			return nil
		}
		from = loc[1]
		name := localName(s[loc[2]:loc[3]])
		if !contextKey(name) {
			continue
		}
		rec := newRecord(xmlParent(s, loc[0]))
		if k, ok := rec.kindOf(name, s[loc[4]:loc[5]]); ok && k != "" {
			return loc
		}
	}
	return nil
}

// xmlParent returns the local name of the element that holds the tag at
// s[o], looking back over at most 32 tags.
func xmlParent(s string, o int) string {
	depth := 0
	for n := 0; n < 32 && o > 0; n++ {
		lt := strings.LastIndexByte(s[:o], '<')
		if lt < 0 {
			return ""
		}
		gt := strings.IndexByte(s[lt:o], '>')
		o = lt
		if gt < 0 || lt+1 >= len(s) {
			continue
		}
		tag := s[lt+1 : lt+gt]
		switch {
		case tag == "" || tag[0] == '?' || tag[0] == '!' || tag[len(tag)-1] == '/':
		case tag[0] == '/':
			depth++
		case depth > 0:
			depth--
		default:
			e := 0
			for e < len(tag) && isXMLNameByte(tag[e]) {
				e++
			}
			return localName(tag[:e])
		}
	}
	return ""
}

// A database's error names the columns a value belongs to: PostgreSQL's
// "Key (full_name, date_of_birth)=(Ana Souza, 1990-01-31) already
// exists", MySQL's "Duplicate entry 'Ana Souza-1990-01-31' for key
// 'uniq_full_name_birthdate'", SQLAlchemy's "[SQL: INSERT INTO members
// (email, display_name) VALUES (?, ?)] [parameters: ('…', '…')]". A value
// is judged by its column as a member of a record whose other members are
// the other columns (display_name beside email is a person's).

// findDBRecord finds the next value at or after from that a database
// error's columns call personal data. The error's head may stand before
// from, on its line: it starts at the nearest head in the line's 1 KiB
// before from.
func findDBRecord(s string, from int) []int {
	i := from
back:
	for k := from - 1; k >= 0 && from-k <= 1024 && s[k] != '\n'; k-- {
		switch s[k] {
		case 'k', 'K', 'd', 'D', '[', 'i', 'I', 'f', 'F':
			if k+1 < len(s) && strings.IndexByte("eEuUpPnNaA", s[k+1]) < 0 {
				continue // no head's second byte
			}
			if h, _ := nextDBHead(s[:min(len(s), k+32)], k); h == k {
				i = k
				break back
			}
		}
	}
	for i < len(s) {
		at, head := nextDBHead(s, i)
		if at < 0 {
			return nil
		}
		var spans [][2]int
		switch head {
		case 'k':
			spans = pgKeyValues(s, at+len("key ("))
		case 'd':
			spans = mysqlDupEntry(s, at+len("duplicate entry '"))
		case 'i':
			spans = insertValues(s, at)
		case 'f':
			spans = failingRow(s, at+len("failing row contains ("))
		case 's':
			spans = duplicateKeyValue(s, at, at+len("duplicate key value is ("))
		default:
			spans = sqlParameters(s, at)
		}
		for _, sp := range spans {
			if sp[0] >= from && sp[1] > sp[0] && !isMarker(s[sp[0]:sp[1]]) {
				return []int{sp[0], sp[1], -1, -1, sp[0], sp[1]}
			}
		}
		i = at + 1
	}
	return nil
}

// nextDBHead returns where the next head of a database error stands at or
// after i — "Key (", "Duplicate entry '", "[parameters: ", "INSERT INTO",
// "Failing row contains (", "The duplicate key value is (" — and which it
// is ('k', 'd', 'p', 'i', 'f', 's'), in one pass over the text.
func nextDBHead(s string, i int) (int, byte) {
	for ; i < len(s); i++ {
		if !dbHeadStart[s[i]] {
			continue
		}
		switch s[i] {
		case 'k', 'K':
			if hasPrefixFold(s[i:], "key (") {
				return i, 'k'
			}
		case 'd', 'D':
			if hasPrefixFold(s[i:], "duplicate entry '") {
				return i, 'd'
			}
			if hasPrefixFold(s[i:], "duplicate key value is (") {
				return i, 's'
			}
		case 'i', 'I':
			// The second byte first: 'i' starts many words.
			if i+1 < len(s) && s[i+1]|0x20 == 'n' && hasPrefixFold(s[i:], "insert into ") && (i == 0 || !isWord(s[i-1])) {
				return i, 'i'
			}
		case 'f', 'F':
			if i+1 < len(s) && s[i+1]|0x20 == 'a' && hasPrefixFold(s[i:], "failing row contains (") {
				return i, 'f'
			}
		case '[':
			if strings.HasPrefix(s[i:], "[parameters: ") {
				return i, 'p'
			}
		}
	}
	return -1, 0
}

// dbHeadStart holds the first bytes of the heads nextDBHead finds.
var dbHeadStart = func() (t [256]bool) {
	for _, c := range "kKdDiIfF[" {
		t[c] = true
	}
	return t
}()

// columnKinds returns the kind each column gives its value ("" for none),
// the columns judged together as one record's keys.
func columnKinds(table string, cols []string, vals []string) []Kind {
	rec := newRecord(table)
	for _, c := range cols {
		rec.member(c, "")
	}
	kinds := make([]Kind, len(cols))
	for j, c := range cols {
		if k := personalKind(splitWords(c, nil)); k != "" {
			kinds[j] = k
			continue
		}
		v := ""
		if j < len(vals) {
			v = vals[j]
		}
		if k, ok := rec.kindOf(c, v); ok {
			kinds[j] = k
		}
	}
	return kinds
}

// pgKeyValues reads "cols)=(vals)" at s[i] and returns the spans of the
// personal values: each value by its column, or all of them when the
// values do not split as the columns do (a value holding ", ").
func pgKeyValues(s string, i int) [][2]int {
	j := strings.Index(s[i:min(len(s), i+512)], ")=(")
	if j < 0 {
		return nil
	}
	cols := strings.Split(s[i:i+j], ",")
	for k := range cols {
		cols[k] = strings.Trim(strings.TrimSpace(cols[k]), `"`)
	}
	vs := i + j + 3
	eol := vs
	for eol < len(s) && eol-vs < 1024 && s[eol] != '\n' && s[eol] != '\r' {
		eol++
	}
	ve := strings.LastIndexByte(s[vs:eol], ')')
	if ve < 0 {
		return nil
	}
	ve += vs
	if k := strings.Index(s[vs:eol], ") "); k >= 0 && vs+k < ve {
		ve = vs + k
	}
	vals := strings.Split(s[vs:ve], ", ")
	kinds := columnKinds("", cols, vals)
	var out [][2]int
	if len(vals) != len(cols) {
		for _, k := range kinds {
			if k != "" {
				return [][2]int{{vs, ve}}
			}
		}
		return nil
	}
	p := vs
	for k, v := range vals {
		if kinds[k] != "" && plausible(kinds[k], v) {
			out = append(out, [2]int{p, p + len(v)})
		}
		p += len(v) + 2
	}
	return out
}

// mysqlDupEntry reads "V' for key 'K'" at s[i] and returns V's span when
// the words of the index K name personal data.
func mysqlDupEntry(s string, i int) [][2]int {
	j := strings.Index(s[i:min(len(s), i+1024)], "' for key '")
	if j < 0 {
		return nil
	}
	k0 := i + j + len("' for key '")
	k1 := strings.IndexByte(s[k0:min(len(s), k0+256)], '\'')
	if k1 < 0 {
		return nil
	}
	words := splitWords(s[k0:k0+k1], nil)
	for e := len(words); e >= 1; e-- {
		if personalKind(words[:e]) != "" {
			return [][2]int{{i, i + j}}
		}
	}
	return nil
}

// sqlParameters reads SQLAlchemy's "[parameters: (…)]" (or a list of
// tuples) at s[i] and returns the spans of the values whose columns, in
// the INSERT before it, are personal data. A dict of parameters is the
// structure layer's: its keys are the columns.
func sqlParameters(s string, i int) [][2]int {
	head := s[max(0, i-4096):i]
	ins := max(strings.LastIndex(head, "INSERT INTO "), strings.LastIndex(head, "insert into "))
	if ins < 0 {
		return nil
	}
	rest := head[ins+len("INSERT INTO "):]
	open := strings.IndexByte(rest, '(')
	cl := strings.IndexByte(rest, ')')
	if open <= 0 || cl < open || indexFold(rest[cl:], "values") < 0 {
		return nil
	}
	table := strings.Trim(strings.TrimSpace(rest[:open]), "`\"")
	cols := strings.Split(rest[open+1:cl], ",")
	for k := range cols {
		cols[k] = strings.Trim(strings.TrimSpace(cols[k]), "`\"")
	}
	p := i + len("[parameters: ")
	if p < len(s) && s[p] == '{' {
		return sqlParamDict(s, p, table)
	}
	kinds := columnKinds(table, cols, nil)
	var out [][2]int
	if p < len(s) && s[p] == '[' {
		p++
	}
	for t := 0; t < 64 && p < len(s) && s[p] == '('; t++ {
		p++
		for col := 0; p < len(s) && s[p] != ')'; col++ {
			for p < len(s) && s[p] == ' ' {
				p++
			}
			var vs, ve int
			vs, ve, p = lineValue(s, p, ')')
			if col < len(kinds) && kinds[col] != "" && ve > vs && plausible(kinds[col], s[vs:ve]) && !isLiteral(s[vs:ve]) {
				out = append(out, [2]int{vs, ve})
			}
			for p < len(s) && s[p] == ' ' {
				p++
			}
			if p < len(s) && s[p] == ',' {
				p++
			} else if p >= len(s) || s[p] != ')' {
				return out
			}
		}
		p++ // )
		for p < len(s) && (s[p] == ',' || s[p] == ' ') {
			p++
		}
	}
	return out
}

// sqlParamDict reads a dict of named parameters ({'email': '…',
// 'display_name': '…'}) whose opening brace is s[p] and returns the spans
// of the values its keys call personal data, the keys judged together as
// one record under the INSERT's table (a "user" row's display name beside
// its e-mail address is a person's).
func sqlParamDict(s string, p int, table string) [][2]int {
	type member struct {
		key    string
		vs, ve int
	}
	var ms []member
	p++
	for len(ms) < 128 && p < len(s) {
		for p < len(s) && s[p] == ' ' {
			p++
		}
		if p >= len(s) || s[p] != '\'' && s[p] != '"' {
			break
		}
		q := s[p]
		ke := strings.IndexByte(s[p+1:min(len(s), p+130)], q)
		if ke < 0 {
			break
		}
		key := s[p+1 : p+1+ke]
		p += ke + 2
		if !strings.HasPrefix(s[p:], ": ") {
			break
		}
		p += 2
		var vs, ve int
		vs, ve, p = lineValue(s, p, '}')
		ms = append(ms, member{key, vs, ve})
		if p >= len(s) || s[p] != ',' {
			break
		}
		p++
	}
	rec := newRecord(table)
	for _, m := range ms {
		rec.member(m.key, s[m.vs:m.ve])
	}
	var out [][2]int
	for _, m := range ms {
		v := s[m.vs:m.ve]
		if m.ve <= m.vs || isLiteral(v) {
			continue
		}
		k := personalKind(splitWords(m.key, nil))
		if k == "" {
			k, _ = rec.kindOf(m.key, v)
		}
		if k != "" && plausible(k, v) {
			out = append(out, [2]int{m.vs, m.ve})
		}
	}
	return out
}

// insertColumns reads "INSERT INTO t (a, b)" at s[at] and returns the
// table, its columns and the offset past the columns' closing bracket, or
// ok false.
func insertColumns(s string, at int) (table string, cols []string, end int, ok bool) {
	rest := s[at+len("insert into ") : min(len(s), at+2048)]
	open := strings.IndexByte(rest, '(')
	if open <= 0 || strings.IndexAny(rest[:open], "\n;") >= 0 {
		return "", nil, 0, false
	}
	cl := strings.IndexByte(rest[open:], ')')
	if cl < 0 {
		return "", nil, 0, false
	}
	cl += open
	table = strings.Trim(strings.TrimSpace(rest[:open]), "`\"[]")
	cols = strings.Split(rest[open+1:cl], ",")
	for k := range cols {
		cols[k] = strings.Trim(strings.TrimSpace(cols[k]), "`\"[]")
	}
	return table, cols, at + len("insert into ") + cl + 1, true
}

// sqlValues reads the values of a list whose opening bracket is s[p] —
// quoted strings (the quotes left out) or bare text up to the next comma —
// and returns their spans and the offset past its closing bracket, or ok
// false when the list is cut short.
func sqlValues(s string, p int) (vals [][2]int, end int, ok bool) {
	closer := byte(')')
	if s[p] == '[' {
		closer = ']'
	}
	p++
	for len(vals) < 256 && p < len(s) {
		for p < len(s) && s[p] == ' ' {
			p++
		}
		if p < len(s) && s[p] == closer && len(vals) == 0 {
			return nil, p + 1, true
		}
		vs, ve := p, p
		if p < len(s) && (s[p] == '\'' || s[p] == '"') {
			q := s[p]
			k := p + 1
			for k < len(s) && s[k] != '\n' {
				if s[k] == '\\' {
					k += 2
					continue
				}
				if s[k] == q {
					if q == '\'' && k+1 < len(s) && s[k+1] == q { // SQL's doubled quote
						k += 2
						continue
					}
					break
				}
				k++
			}
			if k >= len(s) || s[k] != q {
				return vals, p, false
			}
			vs, ve, p = p+1, k, k+1
		} else {
			for p < len(s) && s[p] != ',' && s[p] != closer && s[p] != '\n' {
				p++
			}
			ve = p
			for ve > vs && s[ve-1] == ' ' {
				ve--
			}
		}
		vals = append(vals, [2]int{vs, ve})
		for p < len(s) && s[p] == ' ' {
			p++
		}
		if p < len(s) && s[p] == ',' {
			p++
			continue
		}
		if p < len(s) && s[p] == closer {
			return vals, p + 1, true
		}
		return vals, p, false
	}
	return vals, p, false
}

// placeholder reports whether a statement's value is a bound parameter's
// place: ?, $1, :name, %s, %(name)s, @p1.
func placeholder(v string) bool {
	if v == "" {
		return false
	}
	switch v[0] {
	case '?', '$':
		return true
	case ':', '@':
		return len(v) > 1 && isWord(v[1])
	case '%':
		return len(v) > 1 && (v[1] == 's' || v[1] == '(' || v[1] == 'd')
	}
	return false
}

// paramHeads name the list of a statement's bound values after it:
// Doctrine's "with params [", TypeORM's "-- PARAMETERS: [", "bindings: [",
// "binds: [".
var paramHeads = []string{"params", "parameters", "bindings", "binds", "bind variables", "values"}

// insertValues reads "INSERT INTO t (cols) VALUES (…)" at s[at] and
// returns the spans of the values its columns call personal data: the
// statement's own literals (quoted, or bare as Laravel prints its
// bindings into the SQL), or, when the statement holds placeholders, the
// list of bound values a driver prints after it (with params […],
// parameters: […], bindings: […]).
func insertValues(s string, at int) [][2]int {
	table, cols, p, ok := insertColumns(s, at)
	if !ok {
		return nil
	}
	for p < len(s) && s[p] == ' ' {
		p++
	}
	if !hasPrefixFold(s[p:], "values") {
		return nil
	}
	p += len("values")
	for p < len(s) && s[p] == ' ' {
		p++
	}
	if p >= len(s) || s[p] != '(' {
		return nil
	}
	vals, end, whole := sqlValues(s, p)
	if len(vals) > 0 && placeholder(s[vals[0][0]:vals[0][1]]) {
		lp := boundList(s, end)
		if lp < 0 {
			return nil
		}
		if s[lp+1] == '(' { // a list of rows: SQLAlchemy's executemany
			lp++
		}
		vals, _, whole = sqlValues(s, lp)
	}
	return byColumn(s, table, cols, vals, whole)
}

// boundList returns the offset of the opening bracket of the bound values'
// list that a driver prints within 256 bytes after a statement's end, or
// -1.
func boundList(s string, end int) int {
	w := s[end:min(len(s), end+256)]
	for _, h := range paramHeads {
		k := indexFold(w, h)
		if k < 0 {
			continue
		}
		p := k + len(h)
		for p < len(w) && (w[p] == ' ' || w[p] == ':' || w[p] == '=' || w[p] == '>') {
			p++
		}
		if p+1 < len(w) && (w[p] == '[' || w[p] == '(') {
			return end + p
		}
	}
	return -1
}

// byColumn returns the spans of the values that their columns call
// personal data, judged together as one record's; when the values do not
// split as the columns do (a bare value holding a comma, a list cut short)
// and a column is personal, the list goes whole.
func byColumn(s, table string, cols []string, vals [][2]int, whole bool) [][2]int {
	if len(vals) == 0 {
		return nil
	}
	texts := make([]string, len(vals))
	for k, v := range vals {
		texts[k] = s[v[0]:v[1]]
	}
	kinds := columnKinds(table, cols, texts)
	if len(vals) != len(cols) || !whole {
		for _, k := range kinds {
			if k != "" {
				return [][2]int{{vals[0][0], vals[len(vals)-1][1]}}
			}
		}
		return nil
	}
	var out [][2]int
	for k, v := range texts {
		if kinds[k] != "" && plausible(kinds[k], v) && !isLiteral(v) && !strings.EqualFold(v, "null") && !placeholder(v) {
			out = append(out, vals[k])
		}
	}
	return out
}

// failingRow reads PostgreSQL's "Failing row contains (…)" at s[i] — a
// row's values, the table's columns in order — and judges them by the
// columns of the INSERT that failed, printed before or after it (its
// STATEMENT line). Without a statement whose columns match the values in
// number, a value written as a person's full name goes.
func failingRow(s string, i int) [][2]int {
	vals, _, whole := sqlValues(s, i-1)
	ins := -1
	if k := strings.LastIndex(lowerString(s[max(0, i-4096):i]), "insert into "); k >= 0 {
		ins = max(0, i-4096) + k
	}
	if k := indexFold(s[i:min(len(s), i+4096)], "insert into "); k >= 0 && (ins < 0 || k < i-ins) {
		ins = i + k
	}
	if ins >= 0 {
		if table, cols, _, ok := insertColumns(s, ins); ok && len(cols) == len(vals) && whole {
			return byColumn(s, table, cols, vals, whole)
		}
	}
	var out [][2]int
	for _, v := range vals {
		if looksLikePersonName(s[v[0]:v[1]]) {
			out = append(out, v)
		}
	}
	return out
}

// duplicateKeyValue reads SQL Server's "The duplicate key value is (…)" at
// s[i]: the values go whole when the words of the index or constraint
// named before it ("unique index 'IX_customers_full_name_dob'") name
// personal data, as MySQL's duplicate entry does.
func duplicateKeyValue(s string, at, i int) [][2]int {
	vals, _, _ := sqlValues(s, i-1)
	if len(vals) == 0 {
		return nil
	}
	head := s[max(0, at-512):at]
	for q := len(head); ; {
		q = strings.LastIndexByte(head[:q], '\'')
		if q < 0 {
			return nil
		}
		o := strings.LastIndexByte(head[:q], '\'')
		if o < 0 {
			return nil
		}
		words := splitWords(head[o+1:q], nil)
		for e := len(words); e >= 1; e-- {
			if personalKind(words[:e]) != "" {
				return [][2]int{{vals[0][0], vals[len(vals)-1][1]}}
			}
		}
		q = o
	}
}

// inThingRecord reports whether the key at s[ks:ke], a name's, stands in
// an object whose own key names a thing ("repository": {…, "full_name":
// …}): the object's opening brace is found by counting brackets back, at
// most 4 KiB.
func inThingRecord(s string, ks, ke int) bool {
	if !personNameKeys[recordKey(s[ks:ke])] {
		return false
	}
	depth := 0
	for k := ks - 1; k >= 0 && ks-k < 4096; k-- {
		switch s[k] {
		case '}', ']':
			depth++
		case '[':
			depth--
		case '{':
			if depth == 0 {
				return newRecord(structLabel(s, k)).thing
			}
			depth--
		}
	}
	return false
}

// mapRecord judges a decoded object (Value) by its parent's key and its
// members.
func mapRecord(m map[string]any, parent string) *record {
	r := newRecord(parent)
	for k, x := range m {
		v, _ := x.(string)
		r.member(k, v)
	}
	return r
}

// A list under a personal key — emails, phone_numbers, names, or a
// field's validation errors ({"email": ["has already been taken"]}) — is
// judged element by element: a string or a number by the key's kind (so
// "+1 415 555 0142" goes and "is invalid" stays), an object as a record
// under the key (its data, value or number gets the kind).

// personalList walks the JSON array at w.i under a key of kind.
func (w *walker) personalList(kind Kind) {
	w.copyByte() // [
	for w.i < len(w.in) {
		w.ws()
		switch c := w.peek(); {
		case c == ']':
			w.copyByte()
			return
		case c == '{' || c == '[':
			w.value()
		case c == '"':
			raw := w.skip()
			s := decodeString(raw)
			w.emitString(raw, s, secretString(kind, s))
		default:
			raw := w.skip()
			if c == 'n' || c == 't' || c == 'f' || !plausible(kind, string(raw)) {
				w.out = append(w.out, raw...)
			} else {
				w.out = appendQuoted(w.out, kind.Marker())
			}
		}
		w.ws()
		if w.peek() != ',' {
			w.copyByte() // ]
			return
		}
		w.copyByte()
	}
}

// personalList redacts a decoded list under the key k of kind.
func personalList(kind Kind, a []any, depth int, k string) []any {
	out := make([]any, len(a))
	for i, x := range a {
		switch t := x.(type) {
		case string:
			out[i] = secretString(kind, t)
		case nil, bool:
			out[i] = t
		case map[string]any, []any:
			out[i] = valueIn(t, depth+1, k)
		default:
			if plausible(kind, fmt.Sprint(t)) {
				out[i] = kind.Marker()
			} else {
				out[i] = t
			}
		}
	}
	return out
}

// recordKey is normKey without an allocation for a key that is already
// lower case letters and digits, as most are.
func recordKey(k string) string {
	for i := 0; i < len(k); i++ {
		if c := k[i]; !(c >= 'a' && c <= 'z' || c >= '0' && c <= '9') {
			return withoutLanguage(normKey(k))
		}
	}
	return k
}

// withoutLanguage returns a name's key without the language tag a
// multilingual record writes after it (name_th, name_en, fullName_ja).
func withoutLanguage(nk string) string {
	if n := len(nk); n > 4 && languageTags[nk[n-2:]] && personNameKeys[nk[:n-2]] {
		return nk[:n-2]
	}
	return nk
}

// languageTags are ISO 639-1 codes a record's keys end in.
var languageTags = map[string]bool{
	"en": true, "th": true, "ja": true, "ko": true, "zh": true, "ru": true, "uk": true, "el": true,
	"ar": true, "he": true, "fr": true, "de": true, "es": true, "it": true, "pt": true, "hi": true,
	"vi": true, "tr": true, "pl": true, "nl": true, "sv": true, "fi": true, "is": true, "cs": true,
}

// hasHighByte reports whether v holds a byte outside ASCII, of a letter of
// another script: an address written in a script that puts no spaces
// between its words, a key lowerKey lowers byte by byte.
func hasHighByte(v string) bool {
	for i := 0; i < len(v); i++ {
		if v[i] >= 0x80 {
			return true
		}
	}
	return false
}

// findFormPersonParam finds a person's name in a form-encoded body or a
// query under a bracketed key (card[name]=Hamid+Rahimi,
// billing_details%5Bname%5D=…, owner[address][line1]=…, customer[first_name]=…):
// the last part a name's or an address line's key, an outer part a
// person's record (PersonWords) or a payment card, whose name is its
// holder's.
func findFormPersonParam(s string, from int) []int {
	for a := range anyMarks(s, from, "?&") {
		name := a + 1
		k := name
		for k < len(s) && isParamByte(s[k]) {
			k++
		}
		if k == name || k >= len(s) || s[k] != '=' || formKeyKind(s[name:k]) == "" {
			continue
		}
		ve := k + 1
		for ve < len(s) && !isParamStop(s[ve]) {
			ve++
		}
		if ve == k+1 || strings.HasPrefix(s[k+1:], markerPrefix) {
			continue
		}
		return []int{name, ve, name, k, k + 1, ve}
	}
	return nil
}

// formKeyKind returns the kind of personal data a bracketed form key
// names (see findFormPersonParam), or "": its last part's own kind
// (card[cvc], customer[email], payer[phone]), or a person's name or
// address line under a person's record or a card.
func formKeyKind(key string) Kind {
	if !strings.Contains(key, "[") && !strings.Contains(key, "%5B") && !strings.Contains(key, "%5b") {
		return ""
	}
	key = strings.NewReplacer("%5B", "[", "%5b", "[", "%5D", "]", "%5d", "]").Replace(key)
	var parts []string
	for _, p := range strings.FieldsFunc(key, func(r rune) bool { return r == '[' || r == ']' }) {
		parts = append(parts, normKey(p))
	}
	if len(parts) < 2 {
		return ""
	}
	last := parts[len(parts)-1]
	if k := PersonalKeys[last]; k != "" {
		return k
	}
	if !personNameKeys[last] && !namePartKeys[last] && !addressLineKeys[last] {
		return ""
	}
	for _, p := range parts[:len(parts)-1] {
		if PersonWords[p] || p == "card" || p == "billingdetails" || p == "shippingdetails" || p == "owner" {
			return KindPersonal
		}
	}
	return ""
}

// lineValue reads the value starting at s[p] within its line: a quoted one
// (a backslash escapes) without its quotes, or a bare one up to a comma,
// close or the line's end. It returns the value's bounds and where reading
// goes on (past a closing quote).
func lineValue(s string, p int, close byte) (vs, ve, next int) {
	if p < len(s) && (s[p] == '\'' || s[p] == '"') {
		vs, ve := lineQuoted(s, p)
		return vs, ve, min(ve+1, len(s))
	}
	e := p
	for e < len(s) && s[e] != ',' && s[e] != close && s[e] != '\n' {
		e++
	}
	return p, e, e
}
