package redact

import (
	"slices"
	"strings"
)

// Check digits of national identity numbers (the algorithms of
// python-stdnum). Each takes the number's characters without separators
// and reports whether its check digit or letter is right; the finder in
// idnumbers.go gives them only text in the number's written shape.

// cpfValid: Brazil's CPF, 11 digits, two check digits mod 11.
func cpfValid(d string) bool {
	if len(d) != 11 || !isAllDigits(d) || d == "00000000000" {
		return false
	}
	for n := 9; n <= 10; n++ {
		sum := 0
		for i := 0; i < n; i++ {
			sum += int(d[i]-'0') * (n + 1 - i)
		}
		c := (11 - sum%11) % 11 % 10
		if int(d[n]-'0') != c {
			return false
		}
	}
	return true
}

// peselValid: Poland's PESEL, 11 digits, weights 1 3 7 9, and a month
// that encodes the century (01–12, 21–32, 41–52, 61–72, 81–92).
func peselValid(d string) bool {
	if len(d) != 11 || !isAllDigits(d) {
		return false
	}
	if m := atoi2(d[2:4]); m%20 < 1 || m%20 > 12 {
		return false
	}
	return (10-weightedSum(d, 1, 3, 7, 9, 1, 3, 7, 9, 1, 3)%10)%10 == int(d[10]-'0')
}

// bsnValid: the Netherlands' BSN, 9 digits, the 11-test (weights 9…2,
// then -1).
func bsnValid(d string) bool {
	if len(d) != 9 || !isAllDigits(d) || d == "000000000" {
		return false
	}
	return weightedSum(d, 9, 8, 7, 6, 5, 4, 3, 2, -1)%11 == 0
}

// sinValid: Canada's SIN, 9 digits passing Luhn, not starting 8.
func sinValid(d string) bool {
	if len(d) != 9 || !isAllDigits(d) || d[0] == '8' {
		return false
	}
	return luhn(digitValues(d))
}

// tfnValid: Australia's TFN, 9 digits, weights 1 4 3 7 5 8 6 9 10 mod 11.
func tfnValid(d string) bool {
	if len(d) != 9 || !isAllDigits(d) {
		return false
	}
	return weightedSum(d, 1, 4, 3, 7, 5, 8, 6, 9, 10)%11 == 0
}

// verhoeff tables (dihedral group D5).
var (
	verhoeffD = [10][10]byte{
		{0, 1, 2, 3, 4, 5, 6, 7, 8, 9}, {1, 2, 3, 4, 0, 6, 7, 8, 9, 5},
		{2, 3, 4, 0, 1, 7, 8, 9, 5, 6}, {3, 4, 0, 1, 2, 8, 9, 5, 6, 7},
		{4, 0, 1, 2, 3, 9, 5, 6, 7, 8}, {5, 9, 8, 7, 6, 0, 4, 3, 2, 1},
		{6, 5, 9, 8, 7, 1, 0, 4, 3, 2}, {7, 6, 5, 9, 8, 2, 1, 0, 4, 3},
		{8, 7, 6, 5, 9, 3, 2, 1, 0, 4}, {9, 8, 7, 6, 5, 4, 3, 2, 1, 0},
	}
	verhoeffP = [8][10]byte{
		{0, 1, 2, 3, 4, 5, 6, 7, 8, 9}, {1, 5, 7, 6, 2, 8, 3, 0, 9, 4},
		{5, 8, 0, 3, 7, 9, 6, 1, 4, 2}, {8, 9, 1, 6, 0, 4, 3, 5, 2, 7},
		{9, 4, 5, 3, 1, 2, 7, 6, 8, 0}, {4, 2, 8, 6, 5, 7, 3, 9, 0, 1},
		{2, 7, 9, 3, 8, 0, 6, 4, 1, 5}, {7, 0, 4, 6, 9, 1, 3, 2, 5, 8},
	}
)

// verhoeff reports whether the digits d pass Verhoeff's check.
func verhoeff(d string) bool {
	c := byte(0)
	for i := 0; i < len(d); i++ {
		c = verhoeffD[c][verhoeffP[i%8][d[len(d)-1-i]-'0']]
	}
	return c == 0
}

// aadhaarValid: India's Aadhaar, 12 digits, not starting 0 or 1, and
// Verhoeff's check.
func aadhaarValid(d string) bool {
	return len(d) == 12 && isAllDigits(d) && d[0] >= '2' && verhoeff(d)
}

// dniValid: Spain's DNI (8 digits and a letter) or NIE (X, Y or Z, 7
// digits and a letter): the letter is the number mod 23.
func dniValid(d string) bool {
	if len(d) != 9 {
		return false
	}
	n := 0
	for i := 0; i < 8; i++ {
		c := d[i]
		if i == 0 && c >= 'X' && c <= 'Z' { // NIE: X, Y, Z stand for 0, 1, 2
			c = '0' + c - 'X'
		}
		if !isDigit(c) {
			return false
		}
		n = n*10 + int(c-'0')
	}
	return "TRWAGMYFPDXBNJZSQVHLCKE"[n%23] == d[8]
}

// cnRIValid: China's resident id, 17 digits and a check character (0–9
// or X), ISO 7064 mod 11-2, with a birth month 01–12 and day 01–31.
func cnRIValid(d string) bool {
	if len(d) != 18 || !isAllDigits(d[:17]) {
		return false
	}
	if m := atoi2(d[10:12]); m < 1 || m > 12 {
		return false
	}
	if day := atoi2(d[12:14]); day < 1 || day > 31 {
		return false
	}
	sum := 0
	for i := 0; i < 17; i++ {
		w := 1
		for k := 0; k < 17-i; k++ {
			w = w * 2 % 11
		}
		sum += int(d[i]-'0') * w
	}
	return "10X98765432"[sum%11] == d[17]
}

// hetuValid: Finland's HETU, ddmmyy, a century sign, three digits and a
// check character: the nine digits mod 31.
func hetuValid(d string) bool {
	if len(d) != 11 || !isAllDigits(d[:6]) || !isAllDigits(d[7:10]) {
		return false
	}
	switch d[6] {
	case '+', '-', 'A', 'B', 'C', 'D', 'E', 'F', 'U', 'V', 'W', 'X', 'Y':
	default:
		return false
	}
	if day, m := atoi2(d[0:2]), atoi2(d[2:4]); day < 1 || day > 31 || m < 1 || m > 12 {
		return false
	}
	n := 0
	for _, c := range d[:6] + d[7:10] {
		n = n*10 + int(c-'0')
	}
	return "0123456789ABCDEFHJKLMNPRSTUVWXY"[n%31] == d[10]
}

// ninoValid: the UK's National Insurance number, two prefix letters
// (neither D, F, I, Q, U or V, the second not O, and not BG, GB, KN, NK,
// NT, TN or ZZ), six digits and a suffix A–D.
func ninoValid(d string) bool {
	if len(d) != 9 || !isUpper(d[0]) || !isUpper(d[1]) || !isAllDigits(d[2:8]) || d[8] < 'A' || d[8] > 'D' {
		return false
	}
	const never = "DFIQUV"
	for _, c := range d[:2] {
		for _, x := range never {
			if c == x {
				return false
			}
		}
	}
	switch d[:2] {
	case "BG", "GB", "KN", "NK", "NT", "TN", "ZZ":
		return false
	}
	return d[1] != 'O'
}

func atoi2(s string) int { return int(s[0]-'0')*10 + int(s[1]-'0') }

// weightedSum returns the sum of the digits d opens with, each times the
// weight of its place.
func weightedSum(d string, weights ...int) int {
	sum := 0
	for i, w := range weights {
		sum += int(d[i]-'0') * w
	}
	return sum
}

func digitValues(s string) []byte {
	b := make([]byte, len(s))
	for i := 0; i < len(s); i++ {
		b[i] = s[i] - '0'
	}
	return b
}

// isikukoodValid: Estonia's and Lithuania's personal code, 11 digits — a
// century and sex digit (1–6), YYMMDD, a serial, a check digit by weights
// 1…9,1 then, when that gives 10, 3…9,1,2,3.
func isikukoodValid(d string) bool {
	if len(d) != 11 || !isAllDigits(d) || d[0] < '1' || d[0] > '6' {
		return false
	}
	if m := atoi2(d[3:5]); m < 1 || m > 12 {
		return false
	}
	if day := atoi2(d[5:7]); day < 1 || day > 31 {
		return false
	}
	c := weightedSum(d, 1, 2, 3, 4, 5, 6, 7, 8, 9, 1) % 11
	if c == 10 {
		if c = weightedSum(d, 3, 4, 5, 6, 7, 8, 9, 1, 2, 3) % 11; c == 10 {
			c = 0
		}
	}
	return c == int(d[10]-'0')
}

// svnrValid: Austria's social insurance number, a serial of three digits,
// a check digit and the birth date DDMMYY; the check is the sum of the
// other digits weighted 3 7 9 · 5 8 4 2 1 6, modulo 11 (never 10).
func svnrValid(d string) bool {
	if len(d) != 10 || !isAllDigits(d) || d[0] == '0' {
		return false
	}
	if dd, mm := atoi2(d[4:6]), atoi2(d[6:8]); dd < 1 || dd > 31 || mm < 1 || mm > 12 {
		return false
	}
	sum := weightedSum(d, 3, 7, 9, 0, 5, 8, 4, 2, 1, 6)
	return sum%11 != 10 && sum%11 == int(d[3]-'0')
}

// phnValid: British Columbia's personal health number, ten digits opening
// with 9; the last is 11 minus the sum of the second to ninth weighted
// 2 4 8 5 10 9 7 3, modulo 11.
func phnValid(d string) bool {
	if len(d) != 10 || !isAllDigits(d) || d[0] != '9' {
		return false
	}
	c := 11 - weightedSum(d[1:], 2, 4, 8, 5, 10, 9, 7, 3)%11
	return c < 10 && c == int(d[9]-'0')
}

// mykadValid: Malaysia's identity card number (YYMMDD-PB-###G) has no
// check digit; its shape, a birth date that exists and a place-of-birth
// code in use (01–16 the states, 21–59 the states again, 60–99 abroad less
// the unassigned 69, 70, 73, 80, 81) are what it has.
func mykadValid(d string) bool {
	if len(d) != 12 || !isAllDigits(d) {
		return false
	}
	if mm, dd := atoi2(d[2:4]), atoi2(d[4:6]); mm < 1 || mm > 12 || dd < 1 || dd > 31 {
		return false
	}
	switch pb := atoi2(d[6:8]); {
	case pb == 0, pb >= 17 && pb <= 20, pb == 69, pb == 70, pb == 73, pb == 80, pb == 81:
		return false
	}
	return true
}

// itinValid: the US Individual Taxpayer Identification Number, nine
// digits opening with 9 whose fourth and fifth fall in 50–65, 70–88, 90–92
// or 94–99.
func itinValid(d string) bool {
	if len(d) != 9 || !isAllDigits(d) || d[0] != '9' {
		return false
	}
	g := atoi2(d[3:5])
	return g >= 50 && g <= 65 || g >= 70 && g <= 88 || g >= 90 && g <= 92 || g >= 94
}

// personasKodsValid: Latvia's personal code, eleven digits — DDMMYY and
// a century digit (0–2), or 32 and nine digits (issued since 2017) — whose
// last is 1 plus the others weighted 10 5 8 4 2 1 6 3 7 9, mod 11, mod 10.
func personasKodsValid(d string) bool {
	if len(d) != 11 || !isAllDigits(d) {
		return false
	}
	if d[:2] != "32" {
		if dd, mm := atoi2(d[0:2]), atoi2(d[2:4]); dd < 1 || dd > 31 || mm < 1 || mm > 12 || d[6] > '2' {
			return false
		}
	}
	sum := 1 + weightedSum(d, 10, 5, 8, 4, 2, 1, 6, 3, 7, 9)
	return sum%11%10 == int(d[10]-'0')
}

// belgianNNValid: Belgium's national number (month 0–12) or BIS number
// (month plus 20 or 40), eleven digits whose last two are 97 minus the
// first nine mod 97 (with a 2 before them for those born since 2000).
func belgianNNValid(d string) bool {
	if len(d) != 11 || !isAllDigits(d) {
		return false
	}
	if m := atoi2(d[2:4]) % 20; m > 12 || atoi2(d[2:4]) >= 60 || atoi2(d[4:6]) > 31 {
		return false
	}
	n := 0
	for i := 0; i < 9; i++ {
		n = n*10 + int(d[i]-'0')
	}
	c := atoi2(d[9:11])
	return 97-n%97 == c || 97-(2000000000+n)%97 == c
}

// vidValid: Aadhaar's virtual id, sixteen digits not opening with 0 or 1,
// Verhoeff's check.
func vidValid(d string) bool {
	return len(d) == 16 && isAllDigits(d) && d[0] >= '2' && verhoeff(d)
}

// rifValid: Venezuela's RIF of a natural person — V (born there), E (a
// foreigner) or P (by passport), eight digits and a check digit: the
// letter's value (4, 8, 16) and the digits weighted 3 2 7 6 5 4 3 2, mod
// 11, through 00987654321.
func rifValid(n string) bool {
	if len(n) != 10 || !isAllDigits(n[1:]) {
		return false
	}
	var c int
	switch n[0] {
	case 'V':
		c = 4
	case 'E':
		c = 8
	case 'P':
		c = 16
	default:
		return false
	}
	c += weightedSum(n[1:], 3, 2, 7, 6, 5, 4, 3, 2)
	return "00987654321"[c%11] == n[9]
}

// mauritiusNIDValid: Mauritius' national identity number, a letter (the
// surname's first), DDMMYY, six digits and a check character: the first
// thirteen's values in 0–9A–Z weighted 14 down to 2, and 17 minus that,
// mod 17.
func mauritiusNIDValid(n string) bool {
	const alphabet = "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZ"
	if len(n) != 14 || !isUpper(n[0]) || !isAllDigits(n[1:13]) {
		return false
	}
	if dd, mm := atoi2(n[1:3]), atoi2(n[3:5]); dd < 1 || dd > 31 || mm < 1 || mm > 12 {
		return false
	}
	sum := 0
	for i := 0; i < 13; i++ {
		sum += (14 - i) * strings.IndexByte(alphabet, n[i])
	}
	return alphabet[((17-sum)%17+17)%17] == n[13]
}

// hkidValid: Hong Kong's identity card number, one or two capitals, six
// digits and a check character (0–9 or A) making the sum of the
// characters' values (a letter 10–35, a missing first letter 36) weighted
// 9 to 1 a multiple of 11 (python-stdnum's and stdnum-js' hk.hkid).
func hkidValid(n string) bool {
	if len(n) == 8 {
		n = " " + n
	}
	if len(n) != 9 || !isUpper(n[1]) || !isAllDigits(n[2:8]) || !isDigit(n[8]) && n[8] != 'A' {
		return false
	}
	val := func(c byte) int {
		switch {
		case c == ' ':
			return 36
		case isDigit(c):
			return int(c - '0')
		case isUpper(c):
			return int(c-'A') + 10
		}
		return -1000
	}
	if n[0] != ' ' && !isUpper(n[0]) {
		return false
	}
	sum := 0
	for i := 0; i < 9; i++ {
		c := n[i]
		if i == 8 && c == 'A' {
			sum += 10
			continue
		}
		sum += val(c) * (9 - i)
	}
	return sum%11 == 0
}

// iranCodeValid: Iran's national code (کد ملی), ten digits; with r the sum
// of the first nine weighted 10 to 2 modulo 11, the last is r when r < 2
// and 11 − r otherwise.
func iranCodeValid(d string) bool {
	if len(d) != 10 || !isAllDigits(d) || strings.Count(d, d[:1]) == 10 {
		return false
	}
	r := weightedSum(d, 10, 9, 8, 7, 6, 5, 4, 3, 2) % 11
	c := int(d[9] - '0')
	return r < 2 && c == r || r >= 2 && c == 11-r
}

// jmbgValid: the former Yugoslavia's unique master citizen number (JMBG,
// ЈМБГ, ЕМБГ, EMŠO): DDMMYYY, a region, a serial and a check digit, 11
// minus the weighted sum (7 6 5 4 3 2 twice) modulo 11, 0 for 10 and 11.
// The year's three digits read as 1900–2099.
func jmbgValid(d string) bool {
	if len(d) != 13 || !isAllDigits(d) {
		return false
	}
	if dd, mm := atoi2(d[0:2]), atoi2(d[2:4]); dd < 1 || dd > 31 || mm < 1 || mm > 12 {
		return false
	}
	if y := d[4]; y != '9' && y != '0' {
		return false
	}
	m := 11 - weightedSum(d, 7, 6, 5, 4, 3, 2, 7, 6, 5, 4, 3, 2)%11
	if m > 9 {
		m = 0
	}
	return m == int(d[12]-'0')
}

// uyCIValid: Uruguay's cédula de identidad, seven digits and a check digit,
// 10 minus their sum weighted 2 9 8 7 6 3 4, modulo 10.
func uyCIValid(d string) bool {
	if len(d) != 8 || !isAllDigits(d) {
		return false
	}
	return (10-weightedSum(d, 2, 9, 8, 7, 6, 3, 4)%10)%10 == int(d[7]-'0')
}

// esNSSValid: Spain's social security number (NSS, número de afiliación),
// a province (01–53, 66), eight digits, and the first ten modulo 97 as
// its last two.
func esNSSValid(d string) bool {
	if len(d) != 12 || !isAllDigits(d) {
		return false
	}
	if p := atoi2(d[:2]); p < 1 || p > 53 && p != 66 {
		return false
	}
	n := 0
	for i := 0; i < 10; i++ {
		n = n*10 + int(d[i]-'0')
	}
	return n%97 == atoi2(d[10:12])
}

// rvnrValid: Germany's pension insurance number (Rentenversicherungs- or
// Sozialversicherungsnummer), twelve characters: an area (02–89), the
// birth date DDMMYY, the initial of the birth name, a serial of two digits
// and a check digit, the sum of the digits of each place's product
// (weights 2 1 2 5 7 1 2 1 2 1 2 1, the letter as its two-digit place in
// the alphabet) modulo 10.
func rvnrValid(n string) bool {
	if len(n) != 12 || !isAllDigits(n[:8]) || !isUpper(n[8]) || !isAllDigits(n[9:]) {
		return false
	}
	if a := atoi2(n[:2]); a < 2 || a > 89 {
		return false
	}
	if dd, mm := atoi2(n[2:4]), atoi2(n[4:6]); dd < 1 || dd > 31 || mm < 1 || mm > 12 {
		return false
	}
	l := int(n[8]-'A') + 1
	d := n[:8] + string(rune('0'+l/10)) + string(rune('0'+l%10)) + n[9:11]
	sum := 0
	for i, w := range [12]int{2, 1, 2, 5, 7, 1, 2, 1, 2, 1, 2, 1} {
		p := int(d[i]-'0') * w
		sum += p/10 + p%10
	}
	return sum%10 == int(n[11]-'0')
}

// lkNICOldValid: Sri Lanka's national identity card number of the old
// form, nine digits and V or X: a birth year's last two digits, the day of
// the year (001–366, 501–866 for a woman), a serial and a check digit.
func lkNICOldValid(n string) bool {
	if len(n) != 10 || !isAllDigits(n[:9]) || strings.IndexByte("VvXx", n[9]) < 0 {
		return false
	}
	day := int(n[2]-'0')*100 + atoi2(n[3:5])
	if day > 500 {
		day -= 500
	}
	return day >= 1 && day <= 366
}

// abnValid: Australia's ABN, 11 digits; one taken from the first, the
// weights 10 1 3 5 7 9 11 13 15 17 19 give a multiple of 89.
func abnValid(d string) bool {
	if len(d) != 11 || !isAllDigits(d) || d[0] == '0' {
		return false
	}
	sum := (int(d[0]-'0') - 1) * 10
	for i, w := range []int{1, 3, 5, 7, 9, 11, 13, 15, 17, 19} {
		sum += int(d[i+1]-'0') * w
	}
	return sum%89 == 0
}

// cuitValid: Argentina's CUIT and CUIL, 11 digits opening with a
// person's or a company's type (20, 23, 24, 27, 30, 33, 34, 50, 51, 55),
// a check digit mod 11 over the weights 5 4 3 2 7 6 5 4 3 2.
func cuitValid(d string) bool {
	if len(d) != 11 || !isAllDigits(d) {
		return false
	}
	switch d[:2] {
	case "20", "23", "24", "27", "30", "33", "34", "50", "51", "55":
	default:
		return false
	}
	c := 11 - weightedSum(d[:10], 5, 4, 3, 2, 7, 6, 5, 4, 3, 2)%11
	switch c {
	case 11:
		c = 0
	case 10:
		c = 9
	}
	return int(d[10]-'0') == c
}

// byIDValid: Belarus's identification number of a person, seven digits
// (the sex and the birth date), the region's letter (A B C E H K M), three
// digits, the citizenship's two letters (PB, BA, BI) and a digit — a strict
// shape, checked as written.
func byIDValid(n string) bool {
	if len(n) != 14 || !isAllDigits(n[:7]) || !isAllDigits(n[8:11]) || !isDigit(n[13]) {
		return false
	}
	if strings.IndexByte("ABCEHKM", n[7]) < 0 {
		return false
	}
	switch n[11:13] {
	case "PB", "BA", "BI":
	default:
		return false
	}
	// The first digit gives the sex and century (1–6), the next six a
	// date, DDMMYY.
	return n[0] >= '1' && n[0] <= '6' && atoi2(n[1:3]) >= 1 && atoi2(n[1:3]) <= 31 && atoi2(n[3:5]) >= 1 && atoi2(n[3:5]) <= 12
}

// companyTaxNumber reports whether v is a company's tax number by the
// public shape its scheme gives a company and never a person, so a
// record's party that is a firm keeps its number (docs/design.md
// "Redaction"):
//   - Argentina's CUIT written with its dashes, opening with a company's
//     type (30, 33, 34) and its check digit right: 30-11028896-0;
//   - Chile's RUT of 50.000.000 or more (companies are numbered from
//     there, people below), dotted or not, its check digit mod 11 right;
//   - Mexico's RFC of a persona moral, 12 characters: three letters, the
//     date of incorporation YYMMDD, a three-character homoclave (a
//     person's has four letters, 13 characters).
func companyTaxNumber(v string) bool {
	switch {
	case len(v) == 13 && v[2] == '-' && v[11] == '-':
		d := v[:2] + v[3:11] + v[12:]
		return (d[:2] == "30" || d[:2] == "33" || d[:2] == "34") && cuitValid(d)
	case len(v) == 12 && rfcMoral(v):
		return true
	}
	return rutOfCompany(v)
}

// rucOfCompany reports whether v, under a key naming Peru's RUC, is a
// company's: 11 digits opening with 20 (a person's opens with 10), its
// check digit mod 11 over the weights 5 4 3 2 7 6 5 4 3 2 right. Only its
// key tells it from an Argentine person's CUIT, which opens with 20 and
// takes the same weights, or a Turkish identity number, which shares the
// length.
func rucOfCompany(key, v string) bool {
	if len(v) != 11 || !isAllDigits(v) || v[:2] != "20" || !slices.Contains(splitWords(key, nil), "ruc") {
		return false
	}
	c := 11 - weightedSum(v[:10], 5, 4, 3, 2, 7, 6, 5, 4, 3, 2)%11
	return c%10 == int(v[10]-'0') && !tcKimlikValid(v)
}

// tcKimlikValid: Türkiye's identity number, 11 digits not opening with 0,
// the tenth digit from the odd and even places' sums, the eleventh the
// sum of the first ten mod 10.
func tcKimlikValid(d string) bool {
	if len(d) != 11 || !isAllDigits(d) || d[0] == '0' {
		return false
	}
	b := digitValues(d)
	odd := int(b[0] + b[2] + b[4] + b[6] + b[8])
	even := int(b[1] + b[3] + b[5] + b[7])
	if ((odd*7-even)%10+10)%10 != int(b[9]) {
		return false
	}
	sum := 0
	for _, x := range b[:10] {
		sum += int(x)
	}
	return sum%10 == int(b[10])
}

// rfcMoral reports whether v is the shape of a Mexican company's RFC.
func rfcMoral(v string) bool {
	for i := 0; i < 3; i++ {
		if !isUpper(v[i]) && v[i] != '&' {
			return false
		}
	}
	if !isAllDigits(v[3:9]) {
		return false
	}
	if m, d := atoi2(v[5:7]), atoi2(v[7:9]); m < 1 || m > 12 || d < 1 || d > 31 {
		return false
	}
	for i := 9; i < 12; i++ {
		if !isUpper(v[i]) && !isDigit(v[i]) {
			return false
		}
	}
	return true
}

// rutOfCompany reports whether v is a Chilean RUT of 50.000.000 or more
// with its check digit (0–9 or K) right: 76.301.128-3, 76301128-3.
func rutOfCompany(v string) bool {
	body, dv, ok := strings.Cut(v, "-")
	if !ok || len(dv) != 1 {
		return false
	}
	if len(body) == 10 && body[2] == '.' && body[6] == '.' {
		body = body[:2] + body[3:6] + body[7:]
	}
	if len(body) != 8 || !isAllDigits(body) || body < "50000000" {
		return false
	}
	sum, w := 0, 2
	for i := len(body) - 1; i >= 0; i-- {
		sum += int(body[i]-'0') * w
		if w++; w > 7 {
			w = 2
		}
	}
	want := byte('0' + (11-sum%11)%11)
	switch 11 - sum%11 {
	case 10:
		want = 'K'
	case 11:
		want = '0'
	}
	return dv[0] == want || want == 'K' && dv[0] == 'k'
}
