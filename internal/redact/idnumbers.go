package redact

import "strings"

// KindNationalID is a national identity number (CPF, PESEL, BSN, NINO,
// SIN, Aadhaar, DNI/NIE, China's resident id, HETU, TFN) that passes its
// check digits in its written shape, or any number under a label naming
// one.
const KindNationalID Kind = "national-id"

// idLabels name an identity number; a number of 6 to 18 digits within
// idLabelReach bytes after one, with no other digit or marker between, goes whatever
// its check digits. Words that are common words elsewhere (sin, nie, pan)
// count only as a key: followed by ':' or '=' (after a quote).
var (
	idLabels = []string{
		"cpf", "pesel", "bsn", "burgerservicenummer", "nino", "ni number", "ni no",
		"national insurance", "social insurance", "aadhaar", "aadhar", "dni", "nif",
		"hetu", "henkilötunnus", "tfn", "tax file number", "codice fiscale",
		"codice_fiscale", "身份证",
		// other countries' numbers by their own names
		"cpr", "teudat_zehut", "teudat zehut", "מספר זהות", "curp", "tc kimlik", "tckimlik", "kimlik no", "tckn", "kimlik numarası", "kimlik numarasi",
		"t.c. no", "tc no",
		"cuil", "cuit", "docnro", "doc nro", "rut", "주민등록번호", "isikukood", "fødselsnummer", "fodselsnummer",
		"personnummer", "oib", "ahv", "sécurité sociale", "securite sociale", "social security",
		"steuer-identifikationsnummer", "steuer-idnr", "steueridentifikationsnummer", "egn", "егн", "ЕГН",
		"rodné číslo", "rodne cislo", "ssin", "rijksregisternummer", "national register", "cnp",
		"個人番号", "マイナンバー", "my number",
		"kennitala", "emšo", "emso", "ppsn", "pps number", "amka", "cédula", "cedula", "ird number",
		"rnokpp", "рнокпп", "іпн", "инн", "снилс", "thai id", "เลขประจำตัวประชาชน",
		"cnic", "mykad", "nric", "ת.ז.", "ת\"ז", "תעודת זהות", "cccd", "cmnd", "nik ",
		"ΑΜΚΑ", "αμκα", "ΑΦΜ", "αφμ", "РНОКПП", "ІПН", "ИНН", "СНИЛС", "رقم الهوية", "الهوية الوطنية",
		"رقم الإقامة", "आधार", "身分證", "住民票コード",
		// health services' numbers of a person
		"nhs number", "nhs_number", "nhsnumber", "nhs no", "chi number", "medicare number", "medicare no",
		"krankenversichertennummer", "versichertennummer", "kvnr", "health card number", "ohip",
		"統一證號", "居留證", "건강보험",
		"sv-nummer", "svnr", "sozialversicherungsnummer", "phn", "personal health number",
		"ic no", "ic number", "no. kp", "no kp",
		// more countries' numbers by their own names: Latvia's personal
		// code, Finland's tax number, Belgium's BIS, Bulgaria's foreigner's
		// number, Cuba's identity card, Peru's CUI, the US ITIN, India's
		// voter id and Aadhaar's virtual id, Nepal's citizenship number
		"personas kods", "personas koda", "personas kodu", "veronumero", "numéro bis", "numero bis", "bis-nummer",
		"bisnummer", "bis number", "niss", "inss", "лнч", "ЛНЧ", "личен номер", "lnch", "carné de identidad",
		"carnet de identidad", "número de identidad", "numero de identidad", "cédula de identidad", "c.i.", "itin", "individual taxpayer",
		"virtual id", "aadhaar vid", "epic no", "epic number", "voter id", "citizenship number", "citizenship no",
		"citizenship certificate", "नागरिकता",
		// words that say "identity number", "ID card", "national number"
		// or "document number" in many languages, whatever the country: a
		// number after one is a person's, whatever its format
		"id no", "id number", "id card", "id-nr", "id nr", "national id", "national_id", "nationalid",
		"national identity", "national number", "national code", "national_code", "identity number",
		"identity no", "identity card", "identification number", "identification no", "personal id number",
		"personal identification", "citizen id", "resident id", "emirates id", "emirates_id", "hkid",
		"nic no", "nic number", "document number", "document no", "document_number", "documentnumber",
		"número de documento", "numero de documento", "nro de documento", "nro. de documento",
		"documento de identidad", "documento nacional", "número de identificación", "numero de identificacion",
		"número de afiliación", "numero de afiliacion", "afiliación", "seguridad social", "identidade",
		"bilhete de identidade", "cartão de cidadão", "número de identidade", "numéro d'identité",
		"pièce d'identité", "carte d'identité", "numéro national", "numéro de sécurité sociale",
		"ausweisnummer", "personalausweis", "ausweis-nr", "versicherungsnummer", "identifikationsnummer",
		"carta d'identità", "numero documento", "documento d'identità", "identiteitsbewijs", "identiteitskaart",
		"dowód osobisty", "numer dowodu", "nr dowodu", "občanský průkaz", "číslo op", "osobní číslo",
		"személyi igazolvány", "személyi szám", "buletin de identitate", "osobni broj", "matični broj",
		"jmbg", "embg", "ЈМБГ", "јмбг", "ЕМБГ", "ембг", "матични број", "Матични број", "лична карта", "Лична карта",
		"личен број", "Личен број", "паспорт", "Паспорт", "удостоверение личности", "идентификационный номер",
		"личный номер", "Личный номер", "ИИН", "иин", "посвідчення особи",
		"ταυτότητα", "ΤΑΥΤΟΤΗΤΑ", "ταυτότητας", "ΑΔΤ",
		// Kyrgyzstan's personal identification number, Belarus's
		// identification and personal numbers
		"ПИН", "пин", "civil id", "civilid", "civil_id", "sss no", "sss number", "philsys", "adóazonosító", "adoazonosito", "ідэнтыфікацыйны нумар", "Ідэнтыфікацыйны нумар", "асабісты нумар", "Асабісты нумар",
		"الهوية", "الهويه", "رقم هوية", "الرقم الوطني", "رقم وطني", "الرقم المدني", "بطاقة", "رقم جواز",
		"کد ملی", "كد ملي", "کدملی", "شماره ملی", "شماره شناسنامه", "کارت ملی", "شناسه ملی", "شناختی کارڈ",
		"身份證", "身份证号", "證件號", "证件号", "居民身份", "護照號", "护照号",
		"身元", "신분증", "외국인등록번호", "số định danh", "căn cước", "so dinh danh", "can cuoc",
		"nomor induk", "ktp", "kad pengenalan", "kitambulisho", "piradi nomeri", "პირადი ნომერი",
		"पहचान", "पहचान पत्र", "அடையாள", "জাতীয় পরিচয়", "এনআইডি", "හැඳුනුම්", "ජා.හැ.අ",
		"บัตรประชาชน", "מספר תעודה",
		// Nigeria's NIN, Uzbekistan's PINFL (JSHSHIR, ЖШШИР), Armenia's
		// social card number (ՀԾՀ), Mongolia's register number, and
		// "identity number" in Zulu and Swahili
		"nin ", "nin number", "lambar nin", "jshshir", "жшшир", "ЖШШИР", "pinfl", "ՀԾՀ",
		"регистрийн дугаар", "Регистрийн дугаар", "inombolo kamazisi", "namba ya nida",
	}
	idKeyLabels = []string{"nin", "sin", "nie", "pan", "nir", "rfc", "vn", "idnr", "cui", "nic", "naf", "vsnr", "rvnr", "documento", "identity", "psn"}
)

const idLabelReach = 64

// findNationalID looks only at the text's runs of six digits or more and
// tries the written shapes of the numbers whose check digits it knows.
func findNationalID(in *probe, s string, from int) []int {
	return findNationalIDs(in, s, from, false)
}

// findLabelledNationalID is findNationalID that also takes a number under
// a label; its pattern runs only when a label occurs (its Triggers).
func findLabelledNationalID(in *probe, s string, from int) []int {
	return findNationalIDs(in, s, from, true)
}

func findNationalIDs(in *probe, s string, from int, labels bool) []int {
	for _, r := range in.digitRuns() {
		if r.hi <= from || r.digits < 6 {
			continue
		}
		lo := r.lo
		for lo < r.hi && !isDigit(s[lo]) {
			lo++
		}
		if lo < from {
			continue
		}
		if loc := nationalIDAt(s, lo, r.hi, labels); loc != nil {
			return loc
		}
	}
	return nil
}

// nationalIDAt returns the identity number around the run of digits
// s[lo:hi], or nil.
func nationalIDAt(s string, lo, hi int, labels bool) []int {
	span := func(a, b int) []int {
		if a > 0 && isAlnum(s[a-1]) || b < len(s) && isAlnum(s[b]) {
			return nil
		}
		return []int{a, b, -1, -1, a, b}
	}
	// Shapes with a letter: HETU (ddmmyy-nnnC), DNI (8 digits and a
	// letter), NIE (X/Y/Z, 7 digits, a letter), NINO (AA 12 34 56 C).
	if lo+11 <= len(s) && hetuValid(s[lo:lo+11]) {
		if loc := span(lo, lo+11); loc != nil {
			return loc
		}
	}
	if lo+9 <= len(s) && dniValid(s[lo:lo+9]) {
		if loc := span(lo, lo+9); loc != nil {
			return loc
		}
	}
	if lo >= 1 && lo+8 <= len(s) && dniValid(s[lo-1:lo+8]) {
		if loc := span(lo-1, lo+8); loc != nil {
			return loc
		}
	}
	if loc := ninoAt(s, lo, hi); loc != nil {
		return loc
	}
	if hi-lo == 7 && lo >= 1 && hi < len(s) && nricValid(s[lo-1:hi+1]) {
		if loc := span(lo-1, hi+1); loc != nil {
			return loc
		}
	}
	if loc := hkidAt(s, lo, hi); loc != nil {
		return loc
	}
	if loc := rvnrAt(s, lo); loc != nil {
		return loc
	}
	if hi-lo == 9 && hi < len(s) && lkNICOldValid(s[lo:hi+1]) {
		// Sri Lanka's NIC of the old form: nine digits and V or X.
		if loc := span(lo, hi+1); loc != nil {
			return loc
		}
	}
	if hi-lo == 7 && hi+7 <= len(s) && byIDValid(s[lo:hi+7]) {
		// Belarus's identification number (4170388H021PB1).
		if loc := span(lo, hi+7); loc != nil {
			return loc
		}
	}
	var groups [8]int
	var d [20]byte
	ng, nd, seps := 0, 0, ""
	for i := lo; i < hi; i++ {
		if isDigit(s[i]) {
			if nd == len(d) {
				return nil
			}
			d[nd] = s[i]
			nd++
			if i == lo || !isDigit(s[i-1]) {
				if ng == len(groups) {
					return nil
				}
				ng++
			}
			groups[ng-1]++
		} else {
			seps += s[i : i+1]
		}
	}
	digits, g := string(d[:nd]), groups[:ng]
	uniform := func(n int, sep string) bool {
		return len(g) == n && strings.Count(seps, sep[:1]) == len(seps) && len(seps) == n-1
	}
	switch {
	case len(g) == 4 && g[0] == 3 && g[1] == 3 && g[2] == 3 && g[3] == 2 && seps == "..-" && cpfValid(digits):
		return span(lo, hi)
	case len(g) == 3 && g[0] == 3 && g[1] == 3 && g[2] == 3 && (uniform(3, " ") || uniform(3, "-")) &&
		(sinValid(digits) || tfnValid(digits)):
		return span(lo, hi)
	case len(g) == 3 && g[0] == 4 && g[1] == 4 && g[2] == 4 && (uniform(3, " ") || uniform(3, "-")) &&
		aadhaarValid(digits):
		return span(lo, hi)
	case len(g) == 2 && g[0] == 6 && g[1] == 5 && seps == " " && peselValid(digits):
		return span(lo, hi)
	case len(g) == 2 && g[0] == 4 && g[1] == 6 && seps == " " && svnrValid(digits):
		return span(lo, hi)
	case len(g) == 3 && g[0] == 4 && g[1] == 3 && g[2] == 3 && (uniform(3, " ") || uniform(3, "-")) && phnValid(digits):
		return span(lo, hi)
	case len(g) == 2 && g[0] == 6 && g[1] == 4 && seps == "-" && personnummerValid(digits):
		// Sweden's personnummer (YYMMDD-NNNN), bare: a valid date and the
		// Luhn digit of its ten.
		return span(lo, hi)
	case len(g) == 3 && g[0] == 6 && g[1] == 2 && g[2] == 4 && seps == "--" && mykadValid(digits):
		return span(lo, hi)
	case len(g) == 3 && g[0] == 3 && g[1] == 2 && g[2] == 4 && uniform(3, "-") && itinValid(digits):
		// The US ITIN (9NN-GG-NNNN), which no SSN rule takes: an SSN
		// never opens with 9.
		return span(lo, hi)
	case len(g) == 2 && g[0] == 6 && g[1] == 5 && seps == "-" && personasKodsValid(digits):
		return span(lo, hi)
	case len(g) == 5 && g[0] == 2 && g[1] == 2 && g[2] == 2 && g[3] == 3 && g[4] == 2 && (seps == "..-." || seps == "..- ") &&
		belgianNNValid(digits):
		// Belgium's national number and BIS number, YY.MM.DD-SSS.CC.
		return span(lo, hi)
	case len(g) == 4 && g[0] == 4 && g[1] == 4 && g[2] == 4 && g[3] == 4 && uniform(4, " ") && vidValid(digits):
		return span(lo, hi)
	case len(g) == 2 && g[0] == 8 && g[1] == 1 && seps == "-" && lo >= 2 && s[lo-1] == '-' && rifValid(s[lo-2:lo-1]+digits):
		// Venezuela's RIF of a person (V-, E-, P-): eight digits and a check.
		return span(lo-2, hi)
	case len(g) == 1 && (nd == 13 || nd == 12 && hi < len(s) && isUpper(s[hi])) && lo >= 1 && isUpper(s[lo-1]):
		// Mauritius' national identity number: a letter, DDMMYY, six digits
		// and a check character.
		if end := lo + 13; end <= len(s) && mauritiusNIDValid(s[lo-1:end]) {
			return span(lo-1, end)
		}
	case nd == 15 && digits[:3] == "784" && (len(g) == 1 || len(g) == 4 && g[0] == 3 && g[1] == 4 && g[2] == 7 && (uniform(4, "-") || uniform(4, " "))) &&
		luhn(digitValues(digits)):
		// The UAE's Emirates ID: 784, the birth year, a serial and a Luhn
		// digit (784-YYYY-NNNNNNN-C).
		return span(lo, hi)
	case len(g) == 3 && g[0] == 3 && g[1] == 6 && g[2] == 1 && uniform(3, "-") && iranCodeValid(digits):
		// Iran's national code in its written shape (NNN-NNNNNN-N).
		return span(lo, hi)
	case len(g) == 4 && g[0] == 2 && g[1] == 3 && g[2] == 3 && g[3] == 3 && uniform(4, " ") && abnValid(digits),
		len(g) == 1 && nd == 11 && abnValid(digits) && wordBefore(s, lo, "abn"):
		// Australia's ABN written in its groups (NN NNN NNN NNN), or bare
		// under its own name: a sole trader's is the person's.
		return span(lo, hi)
	case len(g) == 3 && g[0] == 2 && g[1] == 8 && g[2] == 1 && uniform(3, "-") && cuitValid(digits) && !companyTaxNumber(s[lo:hi]):
		// Argentina's CUIT and CUIL in their written shape (NN-NNNNNNNN-N),
		// but a company's (30, 33, 34).
		return span(lo, hi)
	case len(g) == 1 && nd == 13 && jmbgValid(digits):
		return span(lo, hi)
	case len(g) == 4 && g[0] == 1 && g[1] == 3 && g[2] == 3 && g[3] == 1 && seps == "..-" && uyCIValid(digits):
		// Uruguay's cédula, N.NNN.NNN-N.
		return span(lo, hi)
	case len(g) == 3 && g[0] == 2 && g[1] == 8 && g[2] == 2 && (uniform(3, "/") || uniform(3, " ") || uniform(3, "-")) && esNSSValid(digits):
		// Spain's social security number, PP/NNNNNNNN/CC.
		return span(lo, hi)
	case len(g) == 1 && nd == 11 && isikukoodValid(digits):
		// Estonia's and Lithuania's personal code, bare or after its
		// country (X-Road's userId "EE48504178696").
		if lo >= 2 && (s[lo-2:lo] == "EE" || s[lo-2:lo] == "LT") {
			return span(lo-2, hi)
		}
		return span(lo, hi)
	case len(g) == 1 && nd == 9 && teudatKeyBefore(s, lo) && israelIDValid(digits):
		// Israel's teudat zehut under its abbreviation as a key (tz=,
		// "tz": …): a time zone is never nine digits.
		return span(lo, hi)
	case len(g) == 1 && nd == 17 && hi < len(s) && (s[hi] == 'X' || s[hi] == 'x'):
		if cnRIValid(digits + "X") {
			return span(lo, hi+1)
		}
	case len(g) == 1 && nd == 18 && cnRIValid(digits) && (digits[6:8] == "19" || digits[6:8] == "20"):
		return span(lo, hi)
	}
	if labels && nd <= 18 && !companyTaxNumber(s[lo:hi]) && idLabelled(s, lo) {
		// A letter may open the number (Taiwan's A123456789, Germany's
		// health insurance number) or close it.
		start, end := lo, hi
		if start >= 1 && isUpper(s[start-1]) && (start == 1 || !isAlnum(s[start-2])) {
			start--
		}
		if end < len(s) && isUpper(s[end]&^0x20) && (end+1 == len(s) || !isAlnum(s[end+1])) {
			end++
		}
		if end < len(s) && s[end] == ')' && strings.Count(s[start:end], "(") > strings.Count(s[start:end], ")") {
			// A check character in brackets: A123456(7).
			end++
		}
		return span(start, end)
	}
	return nil
}

// hkidAt returns a Hong Kong identity card number whose six digits open
// s[lo:hi]: one or two capitals before them and the check character in
// brackets after them (A123456(3)), or nil.
func hkidAt(s string, lo, hi int) []int {
	if lo < 1 || !isUpper(s[lo-1]) || lo+9 > len(s) || !isAllDigits(s[lo:lo+6]) || s[lo+6] != '(' || s[lo+8] != ')' {
		return nil
	}
	a := lo - 1
	if a >= 1 && isUpper(s[a-1]) {
		a--
	}
	if a > 0 && isAlnum(s[a-1]) || lo+9 < len(s) && isAlnum(s[lo+9]) {
		return nil
	}
	if !hkidValid(s[a:lo+6] + s[lo+7:lo+8]) {
		return nil
	}
	return []int{a, lo + 9, -1, -1, a, lo + 9}
}

// rvnrAt returns a German pension insurance number opening at s[lo], in
// its compact (15070649C103) or spaced (15 070649 C 103) shape, or nil.
func rvnrAt(s string, lo int) []int {
	var n [12]byte
	k, i := 0, lo
	for _, part := range [4]int{2, 6, 1, 3} {
		if k > 0 && i < len(s) && s[i] == ' ' && (k == 2 || k == 8 || k == 9) {
			i++
		}
		for j := 0; j < part; j++ {
			if i >= len(s) {
				return nil
			}
			n[k] = s[i]
			k++
			i++
		}
	}
	if lo > 0 && isAlnum(s[lo-1]) || i < len(s) && isAlnum(s[i]) || !rvnrValid(string(n[:])) {
		return nil
	}
	return []int{lo, i, -1, -1, lo, i}
}

// nricValid reports whether n is a Singapore NRIC or FIN: S, T, F, G or M,
// seven digits, and the check letter of their weighted sum (weights 2 7 6
// 5 4 3 2; T and G add 4, M adds 3; S and T map by JZIHGFEDCBA, F and G by
// XWUTRQPNMLK, M by XWUTRQPNJLK).
func nricValid(n string) bool {
	if len(n) != 9 {
		return false
	}
	sum := 0
	for k, w := range [7]int{2, 7, 6, 5, 4, 3, 2} {
		c := n[1+k]
		if !isDigit(c) {
			return false
		}
		sum += int(c-'0') * w
	}
	var table string
	switch n[0] {
	case 'S':
		table = "JZIHGFEDCBA"
	case 'T':
		table, sum = "JZIHGFEDCBA", sum+4
	case 'F':
		table = "XWUTRQPNMLK"
	case 'G':
		table, sum = "XWUTRQPNMLK", sum+4
	case 'M':
		table, sum = "XWUTRQPNJLK", sum+3
	default:
		return false
	}
	return n[8] == table[sum%11]
}

// ninoAt returns a UK National Insurance number whose six digits are
// s[lo:hi] (grouped 2-2-2 by spaces, or not), or nil.
func ninoAt(s string, lo, hi int) []int {
	a := lo - 2
	if a >= 1 && s[a+1] == ' ' {
		a--
	}
	b := hi
	if b+1 < len(s) && s[b] == ' ' {
		b++
	}
	if a < 0 || b >= len(s) {
		return nil
	}
	var n [9]byte
	k := 0
	for i := a; i <= b; i++ {
		if s[i] == ' ' {
			continue
		}
		if k == len(n) {
			return nil
		}
		n[k] = s[i]
		k++
	}
	if k != 9 || !ninoValid(string(n[:])) {
		return nil
	}
	if a > 0 && isAlnum(s[a-1]) || b+1 < len(s) && isAlnum(s[b+1]) {
		return nil
	}
	return []int{a, b + 1, -1, -1, a, b + 1}
}

// idLabelled reports whether a label naming an identity number ends at
// most idLabelReach bytes before s[lo], with no digit between.
func idLabelled(s string, lo int) bool {
	w := s[max(0, lo-idLabelReach):lo]
	// A digit or a marker between the label and the number means the
	// label's own number came first (and may be redacted already).
	if k := strings.LastIndexFunc(w, func(r rune) bool { return r >= '0' && r <= '9' || r == ']' }); k >= 0 {
		// A second number right after a labelled one, a word or a comma
		// between ("is … not …", "… or …"), shares its label.
		if w[k] == ']' && strings.HasSuffix(w[:k+1], "[REDACTED:"+string(KindNationalID)+"]") && len(w)-k-1 <= 6 &&
			strings.IndexFunc(w[k+1:], func(r rune) bool { return r != ' ' && r != ',' && r != '/' && !(r >= 'a' && r <= 'z') }) < 0 {
			return true
		}
		w = w[k+1:]
	}
	// indexFold folds ASCII case without allocating: a window holds
	// lower- and upper-case labels alike.
	word := func(i, n int) bool {
		return (i == 0 || !isLetter(w[i-1])) && (i+n == len(w) || !isLetter(w[i+n]))
	}
	at := func(l string, ok func(i int) bool) bool {
		for i := 0; i < len(w); {
			k := indexFold(w[i:], l)
			if k < 0 {
				return false
			}
			if ok(i + k) {
				return true
			}
			i += k + 1
		}
		return false
	}
	for _, l := range idLabels {
		if at(l, func(i int) bool { return word(i, len(l)) }) {
			return true
		}
	}
	for _, l := range idKeyLabels {
		if at(l, func(i int) bool {
			if !word(i, len(l)) {
				return false
			}
			rest := strings.TrimLeft(w[i+len(l):], `"' `)
			// A key, or an XML element of that name (<NAF>…</NAF>).
			return rest != "" && (rest[0] == ':' || rest[0] == '=' || rest[0] == '>' && i > 0 && w[i-1] == '<')
		}) {
			return true
		}
	}
	return false
}

// teudatKeyBefore reports whether the key tz or t.z (any case, quoted or
// not) and ':' or '=' stand right before s[lo].
func teudatKeyBefore(s string, lo int) bool {
	k := lo
	for k > 0 && (s[k-1] == '"' || s[k-1] == '\'' || s[k-1] == ' ') && lo-k < 3 {
		k--
	}
	if k == 0 || s[k-1] != '=' && s[k-1] != ':' {
		return false
	}
	k--
	for k > 0 && (s[k-1] == '"' || s[k-1] == '\'') && lo-k < 5 {
		k--
	}
	for _, key := range [...]string{"tz", "t.z", "t.z."} {
		if k >= len(key) && strings.EqualFold(s[k-len(key):k], key) && (k == len(key) || !isAlnum(s[k-len(key)-1])) {
			return true
		}
	}
	return false
}

// israelIDValid: Israel's identity number, nine digits whose Luhn sum
// (weights 1, 2 from the left) is a multiple of ten.
func israelIDValid(d string) bool {
	if len(d) != 9 {
		return false
	}
	sum := 0
	for i := 0; i < 9; i++ {
		v := int(d[i]-'0') * (1 + i%2)
		sum += v/10 + v%10
	}
	return sum%10 == 0
}

// personnummerValid reports whether d, ten digits, is a Swedish
// personnummer or samordningsnummer: a month 01–12, a day 01–31 (61–91
// for a coordination number) and the Luhn check digit.
func personnummerValid(d string) bool {
	if len(d) != 10 {
		return false
	}
	m, day := atoi2(d[2:4]), atoi2(d[4:6])
	if day > 60 {
		day -= 60
	}
	return m >= 1 && m <= 12 && day >= 1 && day <= 31 && luhn(digitValues(d))
}

// alnumIDLabels name identity numbers written in letters and digits, too
// few digits in a run for the labelled rule above: Azerbaijan's FIN (seven
// characters), India's EPIC (three letters, seven digits), Mauritius' NID (a
// letter, thirteen digits and a check character). A label of one word
// counts only as a key, followed by ':' or '='.
var (
	alnumIDLabels = []string{"fin kod", "fin kodu", "fİn kod", "epic no", "epic number", "voter id", "voter_id", "voterid", "national identity card", "national id card",
		"मतदाता पहचान पत्र", "मतदाता फोटो पहचान पत्र", "मतदाता"}
	alnumIDKeyLabels = []string{"fin", "fİn", "nid", "epic"}
)

// findLabelledAlnumID finds the number after one of alnumIDLabels: seven to
// fourteen capitals and digits, a letter and a digit among them, standing
// as a word.
func findLabelledAlnumID(s string, from int) []int {
	best := []int(nil)
	try := func(l string, key bool) {
		for i := from; i < len(s); {
			k := indexFold(s[i:], l)
			if k < 0 {
				return
			}
			k += i
			i = k + 1
			e := k + len(l)
			if k > 0 && (isAlnum(s[k-1]) || s[k-1] >= 0x80) || e < len(s) && (isAlnum(s[e]) || s[e] >= 0x80) {
				continue
			}
			j := e
			sep := false
			// A label in another script may run on in its own words
			// (मतदाता पहचान पत्र संख्या:) before the number.
			reach := 8
			if l[0] >= 0x80 {
				reach = 48
			}
			for j < len(s) && j-e < reach && (strings.IndexByte(`"' :=#.`, s[j]) >= 0 || l[0] >= 0x80 && s[j] >= 0x80) {
				sep = sep || s[j] == ':' || s[j] == '='
				j++
			}
			if key && !sep || j == e {
				continue
			}
			v, digits := j, 0
			for v < len(s) && (isUpper(s[v]) || isDigit(s[v])) {
				if isDigit(s[v]) {
					digits++
				}
				v++
			}
			if n := v - j; n < 7 || n > 14 || digits == 0 || digits == n || v < len(s) && (isAlnum(s[v]) || s[v] >= 0x80) {
				continue
			}
			if best == nil || j < best[0] {
				best = []int{j, v, -1, -1, j, v}
			}
			return
		}
	}
	for _, l := range alnumIDLabels {
		try(l, false)
	}
	for _, l := range alnumIDKeyLabels {
		try(l, true)
	}
	return best
}

// wordBefore reports whether the word w (ASCII, any case) stands within
// the 12 bytes before s[lo], as a key's whole name: "abn=", "(abn)=(",
// "\"abn\": ".
func wordBefore(s string, lo int, w string) bool {
	win := s[max(0, lo-12):lo]
	for i := 0; i+len(w) <= len(win); i++ {
		if hasPrefixFold(win[i:], w) && (i == 0 || !isLetter(win[i-1])) && (i+len(w) == len(win) || !isLetter(win[i+len(w)])) &&
			strings.IndexFunc(win[i+len(w):], func(r rune) bool { return r >= '0' && r <= '9' || r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' }) < 0 {
			return true
		}
	}
	return false
}
