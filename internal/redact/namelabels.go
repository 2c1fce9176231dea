package redact

import (
	"slices"
	"strings"
	"unicode"
	"unicode/utf8"
)

// nameLabels are the words after which a person's name is written in
// prose and documents: `Employee: Olivia Pemberton`, `holder="Samuel K.
// Ortiz"`, `Kontoinhaber: Maximilian Oberhuber`, `buyer 'Lucía Fernández'`.
var nameLabels = append([]string{
	"employee", "holder", "cardholder", "kontoinhaber", "titulaire", "payer", "payee",
	"buyer", "beneficiary", "nome", "patient", "姓名", "氏名", "名前", "성명", "이름", "фио", "ФИО",
	"comprador", "destinatario", "recipient", "adresát", "bénéficiaire",
	// "name" in other languages and scripts, before ':' or a quote
	"नाम", "ชื่อ", "שם", "الاسم", "имя", "име", "ім'я", "όνομα", "Όνομα", "nimi", "naam", "isim",
	"联系人", "收件人", "收货人", "持卡人", "聯絡人", "受取人", "担当者",
	// a party named bare: a recipient, a customer, an applicant
	"ontvanger", "empfänger", "destinataire", "mottaker", "mottagare", "vastaanottaja", "odbiorca",
	"cliente", "klant", "kunde", "kundin", "asiakas", "applicant", "solicitante",
	// a name's and an account holder's labels in other languages
	"nombre", "full name", "titular", "intestatario", "rekeninghouder", "kontohavare", "kontohaver",
	"tilinomistaja",
	// a given name's labels, written before the surname's (Ad: … Soyad: …)
	"ad", "adı", "first name", "given name", "vorname", "prénom", "prenom", "imię", "jméno", "etunimi", "fornavn",
	// a patient and a recipient in other languages and scripts
	"patiënt", "paciente", "patiente", "patientin", "ผู้รับ", "ผู้ส่ง", "ชื่อผู้รับ",
	// "name", "surname" and "full name" in the scripts of the Caucasus and
	// South Asia (Georgian, Armenian in both cases, Tamil, Bengali,
	// Gujarati, Gurmukhi, Telugu, Kannada, Malayalam, Sinhala) and
	// Ukrainian's and Russian's full-name abbreviations
	"სახელი", "გვარი", "Անուն", "անուն", "Ազգանուն", "ազգանուն", "பெயர்", "নাম", "પદવી", "નામ", "ਨਾਮ",
	"పేరు", "ಹೆಸರು", "പേര്", "නම", "ПІБ", "піб", "Ф.И.О.", "П.І.Б.",
	// a recipient and a subscriber in the same scripts
	"მიმღები", "აბონენტი", "Ստացող", "ստացող", "பெறுநர்", "প্রাপক", "प्राप्तकर्ता",
}, scriptNameLabels...)

// scriptNameLabels say "name", "surname" and "full name" in the languages
// and scripts the lists above lack (Persian, Arabic, the South Slavic and
// East Slavic languages in both cases, Chinese, Sinhala, Thai, Hebrew,
// Greek, Vietnamese, Hindi, Amharic, Odia, Thaana, Kyrgyz, Belarusian,
// Welsh, Irish, Tagalog): a label in a script without ASCII
// needs no ':' before its name.
var scriptNameLabels = []string{
	"نام", "نام خانوادگی", "نام و نام خانوادگی", "اسم", "الاسم الكامل", "اسم العائلة", "اللقب", "نام کامل",
	"Име", "Име и презиме", "име и презиме", "Презиме", "презиме", "Име и фамилия", "име и фамилия",
	"Имя", "Фамилия", "фамилия", "Ім'я", "Прізвище", "прізвище", "ime i prezime", "prezime",
	"名字", "姓氏", "全名", "中文姓名", "英文姓名", "සම්පූර්ණ නම", "වාසගම", "นามสกุล", "שם משפחה", "שם מלא",
	"επώνυμο", "Επώνυμο", "ονοματεπώνυμο", "Ονοματεπώνυμο", "họ tên", "họ và tên",
	"पूरा नाम", "ስም",
	// Odia, Thaana, Kyrgyz, Belarusian, Welsh, Irish and Tagalog
	"ନାମ", "ނަން", "Аты", "аты", "Аты жөнү", "аты жөнү", "Фамилиясы", "фамилиясы", "Прозвішча", "прозвішча", "Імя", "імя",
	"enw", "enw llawn", "cyfenw", "ainm", "sloinne", "pangalan", "apelyido",
}

// fullNameLabels label a name written whole, surname, given name and
// patronymic: the name after them runs to three words.
var fullNameLabels = map[string]bool{"фио": true, "ФИО": true, "ПІБ": true, "піб": true, "Ф.И.О.": true, "П.І.Б.": true}

// findLabelledName finds a person's name right after a name label and
// ':', '=' or a quote: two to four capitalised words (initials, accents,
// apostrophes and hyphens allowed), or after 姓名 a run of CJK characters.
func findLabelledName(s string, from int) []int {
	// One pass from `from` to the first label that a name follows: each
	// call costs the distance to its match, so a text of labels is linear.
	for ls := from; ls < len(s); ls++ {
		c := lowerASCII(s[ls])
		// A label may be a key's last word (nombre_titular, account_holder).
		if len(nameLabelsByFirst[c]) == 0 || ls > 0 && isWord(s[ls-1]) && s[ls-1] != '_' {
			continue
		}
		for _, l := range nameLabelsByFirst[c] {
			if !hasPrefixFold(s[ls:], l) {
				continue
			}
			i := ls + len(l)
			if i < len(s) && isWord(s[i]) || l[0] >= 0x80 && !runeBoundary(s, ls, i) {
				continue
			}
			if sepNameLabels[l] && !sepAfter(s, i) {
				break // نام کاربری: a username, not a name
			}
			if loc := nameAfterLabel(s, i, l[0] >= 0x80, bareNameLabels[l], fullNameLabels[l]); loc != nil {
				return loc
			}
			// The longest label that stands here is the label (نام
			// خانوادگی, not نام and a name "خانوادگی").
			break
		}
	}
	return nil
}

// runeBoundary reports whether the label s[ls:i] in a script other than
// Latin stands as a word: no letter of a script with spaces (Cyrillic,
// Greek, Devanagari, Hebrew, Arabic) right before or after it ("име" is
// not the start of "името"). CJK labels need no spaces around them.
func runeBoundary(s string, ls, i int) bool {
	r, _ := utf8.DecodeRuneInString(s[ls:])
	if unicode.In(r, unicode.Han, unicode.Hiragana, unicode.Katakana, unicode.Hangul) {
		return true
	}
	if i < len(s) {
		if a, _ := utf8.DecodeRuneInString(s[i:]); unicode.IsLetter(a) || unicode.Is(unicode.Mn, a) || unicode.Is(unicode.Mc, a) {
			return false
		}
	}
	if ls > 0 {
		if b, _ := utf8.DecodeLastRuneInString(s[:ls]); unicode.IsLetter(b) {
			return false
		}
	}
	return true
}

// sepNameLabels are the labels of scriptNameLabels in scripts that space
// their words: a name follows them only after ':', '=' or a quote, as the
// word also names a thing's name in prose (نام کاربری, a username).
var sepNameLabels = func() map[string]bool {
	m := map[string]bool{}
	for _, l := range scriptNameLabels {
		if r, _ := utf8.DecodeRuneInString(l); !unicode.Is(unicode.Han, r) {
			m[l] = true
		}
	}
	return m
}()

// sepAfter reports whether ':', '=', '：' or a quote follows s[i] after
// blanks.
func sepAfter(s string, i int) bool {
	for i < len(s) && s[i] == ' ' {
		i++
	}
	return i < len(s) && strings.IndexByte(":=\"'", s[i]) >= 0 || strings.HasPrefix(s[i:], "：")
}

// nameLabelsByFirst indexes nameLabels by their first byte, lower case.
var nameLabelsByFirst = func() (t [256][]string) {
	for _, l := range nameLabels {
		t[lowerASCII(l[0])] = append(t[lowerASCII(l[0])], l)
	}
	for i := range t {
		// longest first: a label that opens a longer one yields to it
		slices.SortStableFunc(t[i], func(a, b string) int { return len(b) - len(a) })
	}
	return t
}()

// bareNameLabels are the name labels a name may follow with no ':' or
// quote between ("recipient Kari Nordmann, …"): two capitalised words at
// least still make the name.
var bareNameLabels = map[string]bool{
	"patient": true, "recipient": true, "comprador": true, "destinatario": true, "adresát": true, "bénéficiaire": true,
	"beneficiary": true, "payee": true, "titulaire": true, "kontoinhaber": true,
	"ontvanger": true, "empfänger": true, "destinataire": true, "mottaker": true, "mottagare": true,
	"vastaanottaja": true, "odbiorca": true, "cliente": true, "klant": true, "kunde": true, "kundin": true,
	"asiakas": true, "applicant": true, "solicitante": true,
	"patiënt": true, "paciente": true, "patiente": true, "patientin": true,
}

// nameAfter returns the name after a label ending at s[i], or nil; bare
// lets it follow the label with no separator.
func nameAfter(s string, i int, cjk, bare bool) []int {
	return nameAfterLabel(s, i, cjk, bare, false)
}

// nameAfterLabel is nameAfter; full lets a name in a script without
// spaces' limits (cjk) run to three words, as a full name's label writes it.
func nameAfterLabel(s string, i int, cjk, bare, full bool) []int {
	if i+1 < len(s) && (s[i] == '"' || s[i] == '\'') && (s[i+1] == ':' || s[i+1] == '=') {
		i++ // a quoted key's closing quote: "نام":"…"
	}
	for i < len(s) && s[i] == ' ' {
		i++
	}
	sep := false
	if i < len(s) && (s[i] == ':' || s[i] == '=') {
		sep = true
		i++
	} else if strings.HasPrefix(s[i:], "：") {
		sep = true
		i += len("：")
	}
	for i < len(s) && s[i] == ' ' {
		i++
	}
	if i < len(s) && (s[i] == '"' || s[i] == '\'') {
		sep = true
		i++
	}
	if !sep && !cjk && !bare {
		return nil
	}
	if full && !sep {
		// "ПІБ платника Ковальчук …": the label's own word in lower case
		// (whose name: a payer's, a recipient's) before the name.
		if r, _ := utf8.DecodeRuneInString(s[i:]); unicode.IsLower(r) {
			w := i
			for w < len(s) {
				r, n := utf8.DecodeRuneInString(s[w:])
				if !unicode.IsLetter(r) {
					break
				}
				w += n
			}
			for w < len(s) && (s[w] == ' ' || s[w] == ':') {
				w++
			}
			i = w
		}
	}
	// After '=' a form's value writes its spaces as '+' and its other
	// bytes as %XX escapes (titular=Carmen+Ruiz+Beltr%C3%A1n).
	form := i > 0 && s[i-1] == '='
	start, j, words := i, i, 0
	if cjk {
		// A name in a script without case: its run of letters, and one
		// more after a single space (山田 花子, Иванов Пётр); a run that
		// ends in '=' or ':' is the next field's label.
		// Sixteen characters of a script without spaces between its words;
		// a script that spaces them (Cyrillic, Georgian, Tamil, Bengali)
		// writes a name in more bytes.
		spaces, most, reach := 0, 1, 48
		if full {
			most = 2
		}
		if r, _ := utf8.DecodeRuneInString(s[j:]); r >= 0x80 && !unicode.In(r, unicode.Han, unicode.Hiragana, unicode.Katakana, unicode.Hangul) {
			reach = 96
		}
		for j < len(s) && j-start < reach && (s[j] >= 0x80 || s[j] == ' ' && spaces < most && j > start && j+1 < len(s) && s[j+1] >= 0x80 && s[j-1] >= 0x80) {
			if s[j] == ' ' {
				if w := nextLabelEnd(s, j+1); w > 0 {
					break
				}
				spaces++
			}
			if r, n := utf8.DecodeRuneInString(s[j:]); r != utf8.RuneError && unicode.IsPunct(r) {
				break // 王晓明，手机：…: the name ends at the full-width comma
			} else if n > 1 {
				j += n
				continue
			}
			j++
		}
		for j > start && j < len(s) && s[j]&0xC0 == 0x80 {
			j-- // not inside a character
		}
		for j > start && s[j-1] == ' ' {
			j--
		}
		if j-start < 6 { // two CJK characters at least
			return nil
		}
		return []int{start, j, -1, -1, start, j}
	}
	end := start
	if r, _ := utf8.DecodeRuneInString(s[j:]); caselessLetter(r) {
		// A name in a script without case (Hebrew, Arabic, Devanagari,
		// Thai, CJK): up to four of its words.
		if st, e := caselessWords(s, j); e > st {
			return []int{st, e, -1, -1, st, e}
		}
		return nil
	}
	if bare {
		// "Empfänger Herr Dr. Klaus Eberhardt": the honorific's rule takes
		// the name after the titles.
		for _, h := range honorifics {
			if strings.HasPrefix(s[j:], h+" ") {
				return nil
			}
		}
	}
	for words < 4 && j < len(s) {
		c := s[j]
		if !isUpper(c) && c < 0xC0 {
			if words > 0 && j > 0 && s[j-1] == ' ' {
				w := j
				for w < len(s) && isLetter(s[w]) {
					w++
				}
				if nameParticles[s[j:w]] && w+1 < len(s) && s[w] == ' ' && isUpper(s[w+1]) {
					j = w + 1
					continue
				}
			}
			break
		}
		w := j + 1
		for w < len(s) && (isLetter(s[w]) || s[w] >= 0x80 || s[w] == '\'' || s[w] == '-' || form && s[w] == '%' && w+2 < len(s) && isHex(s[w+1]) && isHex(s[w+2])) {
			if s[w] == '%' {
				w += 2
			}
			w++
		}
		if w < len(s) && s[w] == '.' && w == j+1 { // an initial
			w++
		}
		if w < len(s) && (s[w] == ':' || s[w] == '=') {
			break // the next field's label (Ad: Zeynep Soyad: …)
		}
		words++
		end = w
		if w+1 < len(s) && (s[w] == ' ' || form && s[w] == '+') && s[w+1] != ' ' {
			j = w + 1
			continue
		}
		break
	}
	if words == 1 && sep && surnameLabelAt(s, end) {
		// A given name alone, its surname under the next label.
		words = 2
	}
	if words < 2 || strings.HasPrefix(s[start:], markerPrefix) {
		return nil
	}
	return []int{start, end, -1, -1, start, end}
}

// surnameLabelAt reports whether a surname's label — a key of a person's
// name part (Soyad, Surname, Nachname, Apellido, Last name) and ':' or
// '=' — follows s[i] after spaces or a comma.
func surnameLabelAt(s string, i int) bool {
	for i < len(s) && (s[i] == ' ' || s[i] == ',' || s[i] == ';' || s[i] == '|') {
		i++
	}
	k := i
	for k < len(s) && k-i < 24 && (isLetterOrHigh(s[k]) || s[k] == '_' || s[k] == ' ' && k+1 < len(s) && isLetter(s[k+1])) {
		k++
	}
	if k == i || k >= len(s) || s[k] != ':' && s[k] != '=' {
		return false
	}
	var buf [4]string
	switch strings.Join(splitWords(s[i:k], buf[:0]), "") {
	case "soyad", "soyadı", "soyadi", "surname", "lastname", "familyname", "nachname", "apellido", "apellidos",
		"nom", "nomdefamille", "nazwisko", "příjmení", "prijmeni", "sukunimi", "etternavn", "efternavn", "cognome":
		return true
	}
	return false
}

// nextLabelEnd returns the end of the run of letters at s[i] when a ':' or
// '=' follows it (a field's label: 個人番号=…), or 0.
func nextLabelEnd(s string, i int) int {
	k := i
	for k < len(s) && s[k] >= 0x80 && !strings.HasPrefix(s[k:], "：") {
		k++
	}
	if k > i && k < len(s) && (s[k] == ':' || s[k] == '=' || strings.HasPrefix(s[k:], "：")) {
		return k
	}
	return 0
}

// nameBeforeID returns the span of a person's name written before the
// identity number's or account's marker at s[k], with the number's label
// and the words that join them between ("al trabajador Felisa Sabater
// Fabregat con NIE [REDACTED:national-id]", "Jan Novák, rodné číslo …"):
// up to four words in lower case or all capitals (a label, an acronym, a
// preposition) and punctuation, within 48 bytes, then two to four
// capitalised words; or -1, -1.
func nameBeforeID(s string, from, k int) (int, int) {
	e := k
	for words := 0; e > from && k-e < 48; {
		c := s[e-1]
		if c == ' ' || c == ',' || c == ':' || c == '=' || c == '(' || c == '#' {
			e--
			continue
		}
		if words == 4 {
			break
		}
		w := e
		for w > from && (isLetterOrHigh(s[w-1]) || s[w-1] == '.') {
			w--
		}
		if l := nationalIDLabelEnding(s[from:e]); l > 0 {
			// The number's own label in capitalised words (TC Kimlik No,
			// Rodné Číslo) is no name.
			e -= l
			words++
			continue
		}
		if w == e || !labelWord(s[w:e]) {
			break
		}
		e = w
		words++
	}
	for e < k && s[e] == ' ' {
		e++
	}
	n := e
	for n > from && (s[n-1] == ' ' || s[n-1] == ',') {
		n--
	}
	if st := nameBefore(s, from, n); st >= 0 {
		return st, n
	}
	return -1, -1
}

// nationalIDLabelEnding returns the length of the identity number's label
// (idLabels, any case) that s ends with as a whole word, or 0.
func nationalIDLabelEnding(s string) int {
	for _, l := range idLabels {
		if n := len(s) - len(l); n >= 0 && strings.EqualFold(s[n:], l) && (n == 0 || !isWord(s[n-1])) {
			return len(l)
		}
	}
	return 0
}

// labelWord reports whether w is written as a label's or a joining word is,
// not as a name: all lower case (con, rodné, with), or all capitals and
// dots (NIE, RFC, C.F.).
func labelWord(w string) bool {
	lower, upper := true, true
	for _, r := range w {
		if unicode.IsUpper(r) {
			lower = false
		} else if unicode.IsLower(r) {
			upper = false
		}
	}
	return lower || upper && len(w) >= 2
}

// findMailboxName finds the display name of a mailbox written as RFC 5322
// does, `Aino Virtanen <aino@example.fi>` or `"Aino Virtanen"
// <aino@example.fi>`: two to four capitalised words right before an
// angle-bracketed address (or its marker). The address is the e-mail
// rule's.
func findMailboxName(s string, from int) []int {
	for lt := range byteMarks(s, from, '<') {
		gt := strings.IndexByte(s[lt:min(len(s), lt+256)], '>')
		if gt < 0 || strings.IndexByte(s[lt:lt+gt], '@') < 0 && !strings.HasPrefix(s[lt+1:], markerPrefix+string(KindEmail)) {
			continue
		}
		e := lt
		for e > from && s[e-1] == ' ' {
			e--
		}
		if e > from && s[e-1] == '"' { // a quoted display name
			e--
		}
		if e == lt {
			continue
		}
		if st := nameBefore(s, from, e); st >= 0 {
			return []int{st, e, -1, -1, st, e}
		}
	}
	return nil
}

// nameBefore returns the start of two to four capitalised words (initials,
// accents, O'Brien, Anne-Marie) that end at s[e] and start at a word's
// start, or -1.
func nameBefore(s string, from, e int) int {
	st, words := e, 0
	for words < 4 {
		w := st
		for w > from {
			c := s[w-1]
			inner := (c == '\'' || c == '-' || c == '.') && w-1 > from && isLetterOrHigh(s[w-2]) // O'Brien, Anne-Marie, J.
			if !isLetterOrHigh(c) && !inner {
				break
			}
			w--
		}
		if w == st {
			break
		}
		if !isUpper(s[w]) && s[w] < 0xC0 {
			// A particle between a name's words (Nurul Aisyah binti Kamal,
			// Ludwig van Beethoven) continues it; any other word ends it.
			if words > 0 && nameParticles[s[w:st]] && w-1 > from && s[w-1] == ' ' {
				st = w - 1
				continue
			}
			break
		}
		words++
		st = w
		if words < 4 && w-1 > from && s[w-1] == ' ' && isLetterOrHigh(s[w-2]) {
			st = w - 1
			continue
		}
		break
	}
	if st < e && s[st] == ' ' {
		st++
	}
	if words < 2 || st > 0 && (isAlnum(s[st-1]) || s[st-1] == '_') || strings.HasPrefix(s[st:], markerPrefix) {
		return -1
	}
	return st
}

// recordLabels are the words that, right after a person's name in prose,
// say the record is a person's: an identity number's label, a birth or a
// residence ("Giuseppe Bianchi, C.F. …", "Jan Novák (born 1980)").
var recordLabels = append([]string{
	"c.f.", "ssn", "social security", "passport", "tax id", "date of birth", "dob", "born",
	"nato", "nata", "né ", "née", "geboren", "nacido", "nacida", "residente", "resident", "domicilié", "wohnhaft",
}, idLabels...)

// findNameBeforeRecord finds a person's name written right before one of
// recordLabels: after it only a comma, a space or an opening parenthesis.
// One pass from from to the first such label, so a text of them is linear.
func findNameBeforeRecord(s string, from int) []int {
	for p := from; p < len(s); p++ {
		c := lowerASCII(s[p])
		if !recordLabelStart[c] || p > 0 && isAlnum(s[p-1]) {
			continue
		}
		for _, l := range recordLabels {
			if l[0] != c || !hasPrefixFold(s[p:], l) {
				continue
			}
			e := p
			for e > from && p-e < 3 && (s[e-1] == ' ' || s[e-1] == ',' || s[e-1] == '(') {
				e--
			}
			if e == p {
				break
			}
			if st := nameBefore(s, from, e); st >= 0 {
				return []int{st, e, -1, -1, st, e}
			}
			break
		}
	}
	return nil
}

// recordLabelStart holds the first bytes of recordLabels, lower case.
var recordLabelStart = func() (t [256]bool) {
	for _, l := range recordLabels {
		t[lowerASCII(l[0])] = true
	}
	return t
}()

// caselessWords returns the span of one to four words of letters in a
// script without case (marks and '-' inside them) starting at s[i].
func caselessWords(s string, i int) (int, int) {
	end, _ := spacedWords(s, i, 4, func(j int) int {
		w := j
		for w < len(s) {
			r, n := utf8.DecodeRuneInString(s[w:])
			if !(caselessLetter(r) || unicode.Is(unicode.Mn, r) || unicode.Is(unicode.Mc, r) || r == '-' && w > j) {
				break
			}
			w += n
		}
		return w
	})
	return i, end
}

// caselessLetter reports whether r is a letter of a script that writes no
// capital at a name's start: one without case, or Georgian, whose
// Mkhedruli letters Unicode files as lower case (Mtavruli, their capitals,
// write only text set all in capitals).
func caselessLetter(r rune) bool {
	return unicode.IsLetter(r) && (!unicode.IsUpper(r) && !unicode.IsLower(r) || unicode.Is(unicode.Georgian, r))
}

// spacedWords walks up to most words from s[i], one space between each:
// word returns the end of the word at s[j], or j when none is there. It
// returns the end of the last word and how many words there were.
func spacedWords(s string, i, most int, word func(j int) int) (end, words int) {
	end = i
	for j := i; words < most && j < len(s); {
		w := word(j)
		if w == j {
			break
		}
		words++
		end = w
		if w+1 < len(s) && s[w] == ' ' {
			j = w + 1
			continue
		}
		break
	}
	return end, words
}

func isLetterOrHigh(c byte) bool { return isLetter(c) || c >= 0x80 }

// lowerString lowers s's ASCII letters only, so that offsets in it are
// offsets in s.
func lowerString(s string) string {
	b := []byte(s)
	for i, c := range b {
		b[i] = lowerASCII(c)
	}
	return string(b)
}

// honorifics stand before a person's name: "bénéficiaire Mme Camille
// Lefèvre-Roux", "Herr Jonas Weber", "Sra. Lucía Pérez".
var honorifics = []string{
	"Mr.", "Mrs.", "Ms.", "Mr", "Mrs", "Ms", "Mme", "Mlle", "Herr", "Frau", "Sr.", "Sra.", "Srta.",
	"Dr.", "Sig.", "Sig.ra", "Dott.", "Pan", "Pani", "Mevrouw", "Meneer", "Dhr.", "Mevr.", "κ.",
	// academic titles written before a name (Austria's, Czechia's, Slovakia's)
	"Mag.", "Prof.", "Dipl.-Ing.", "Ing.", "Mgr.", "Bc.", "DDr.",
}

// addressTitles are the honorifics one addresses a person by, which stand
// before a surname alone ("deliver to Mr. Haddad", "Frau Musterfrau",
// "παραλήπτης κ. Παπαδόπουλος"); the academic ones (Dr., Prof.) also name
// a road (Oak Dr.) or a degree, and want two words.
var addressTitles = map[string]bool{
	"Mr.": true, "Mrs.": true, "Ms.": true, "Mr": true, "Mrs": true, "Ms": true, "Mme": true, "Herr": true,
	"Frau": true, "Sr.": true, "Sra.": true, "Mevrouw": true, "Meneer": true, "Dhr.": true, "Mevr.": true, "κ.": true,
}

// surnameAlone reports whether w, one capitalised word after an address
// title, is a name's: two letters or more and no system's or common
// English word ("Mr. Robot" is a name; "Herr Direktor" and "Frau Doktor" a
// title).
func surnameAlone(w string) bool {
	w = strings.TrimRight(w, ".")
	if utf8.RuneCountInString(w) < 2 {
		return false
	}
	l := strings.ToLower(w)
	vocab, table := proseVocabulary(), nameTable()
	return wordClass(vocab, l) != wordSystem && wordClass(table, l)&nameCommon == 0 || strings.Contains(w, " ")
}

// honorificStart holds the first bytes of honorifics.
var honorificStart = func() (t [256]bool) {
	for _, h := range honorifics {
		t[h[0]] = true
	}
	return t
}()

// findHonorificName finds two to four capitalised words after an
// honorific (a title that only a person has).
func findHonorificName(s string, from int) []int {
	for i := from; i < len(s); i++ {
		c := s[i]
		if !honorificStart[c] || i > 0 && (isAlnum(s[i-1]) || s[i-1] >= 0x80) {
			continue
		}
		for _, h := range honorifics {
			if h[0] != c {
				continue
			}
			if !strings.HasPrefix(s[i:], h) || i+len(h) >= len(s) || s[i+len(h)] != ' ' {
				continue
			}
			least := 2
			if addressTitles[h] {
				least = 1
			}
			if st, e := namesAfter(s, i+len(h)+1, least); e > st && (least == 2 || surnameAlone(s[st:e])) {
				return []int{st, e, -1, -1, st, e}
			}
		}
	}
	return nil
}

// findNameAfterID finds a person's name written just before (nameBeforeID)
// or after an identity number or an account (IBAN) already redacted — "CNP [REDACTED:national-id]
// (Ion-Andrei Popescu)", "ЕГН … не съвпада с името Петър Иванов Георгиев",
// "rodné číslo …, Jana Dvořáková", "IBAN … elutasítva (Kovács Péter)":
// within a few bytes of punctuation and up to five lower-case words, two to
// four capitalised words in any script. In a script without case (Hebrew,
// Arabic, Thai, Devanagari) nothing marks where the name starts, so the
// clause after the number — up to six words, to the next punctuation — goes
// whole. A name in another script in brackets right after a name that went
// ("[REDACTED:personal] (عائشہ صدیقی)") is the same person's.
func findNameAfterID(s string, from int) []int {
	for i := from; ; {
		k, mlen := nextOwnedMarker(s, i)
		if k < 0 {
			return nil
		}
		j := k + mlen
		i = j
		if !strings.HasPrefix(s[k:], personalMarker) {
			if loc := rowNameBesideID(s, k, mlen); loc != nil && loc[0] >= from {
				return loc
			}
			// The number's owner may be named before it too.
			if st, e := nameBeforeID(s, from, k); st >= 0 {
				return []int{st, e, -1, -1, st, e}
			}
		}
		if strings.HasPrefix(s[k:], personalMarker) {
			if j+2 < len(s) && s[j] == ' ' && s[j+1] == '(' {
				st, e := caselessWords(s, j+2)
				if e == st {
					st, e = namesAfter(s, j+2, 2)
				}
				if e > st && e < len(s) && s[e] == ')' {
					return []int{st, e, -1, -1, st, e}
				}
			}
			continue
		}
		// Skip punctuation, spaces and up to five lower-case words.
		lower := 0
		for j < len(s) && j-i < 96 {
			r, n := utf8.DecodeRuneInString(s[j:])
			switch {
			case r == ' ' || r == ',' || r == '(' || r == ':' || r == '-' || r == '–':
				j += n
				continue
			case unicode.IsLower(r) && !unicode.Is(unicode.Georgian, r) && lower < 5:
				for j < len(s) {
					r, n := utf8.DecodeRuneInString(s[j:])
					if !unicode.IsLetter(r) {
						break
					}
					j += n
				}
				lower++
				continue
			}
			break
		}
		// An account's holder is written in brackets after it ("(Kovács
		// Péter)"); a capitalised noun after an IBAN is the next field's
		// label (", Mandatsreferenz …").
		iban := strings.HasPrefix(s[k:], markerPrefix+string(KindIBAN))
		if st, e := namesAfter(s, j, 2); e > st && (!iban || j > 0 && s[j-1] == '(') && !(e < len(s) && isDigit(s[e])) {
			// A capitalised noun and a title ("der Versicherten Mag. Lena
			// …"): the name is the one after the title.
			if t := afterTitle(s, st, e+1); t > 0 {
				if ts, te := namesAfter(s, t, 2); te > ts {
					return []int{ts, te, -1, -1, ts, te}
				}
				continue
			}
			return []int{st, e, -1, -1, st, e}
		}
		if lower == 0 {
			if st, e := caselessClause(s, j); e > st {
				return []int{st, e, -1, -1, st, e}
			}
		}
	}
}

var (
	personalMarker = markerPrefix + string(KindPersonal) + "]"
	ownedMarkers   = []string{markerPrefix + string(KindNationalID) + "]", markerPrefix + string(KindIBAN) + "]", personalMarker}
)

// nextOwnedMarker returns the offset and length of the first marker at or
// after i of a number that has an owner (an identity number, an IBAN) or of
// a name, or -1: one scan for the markers' common prefix.
func nextOwnedMarker(s string, i int) (int, int) {
	for k := range marks(s, i, markerPrefix) {
		for _, m := range ownedMarkers {
			if strings.HasPrefix(s[k:], m) {
				return k, len(m)
			}
		}
	}
	return -1, 0
}

// caselessClause returns the span of one to six words of a script without
// case starting at s[i], to the next punctuation, a Latin letter, a digit
// or a label (a word with ':' after it: 氏名:).
func caselessClause(s string, i int) (int, int) {
	if r, _ := utf8.DecodeRuneInString(s[i:]); unicode.In(r, unicode.Han, unicode.Hiragana, unicode.Katakana) {
		return i, i // no spaces between words: the clause would be the sentence; names there have their labels (氏名)
	}
	end, _ := spacedWords(s, i, 6, func(j int) int {
		st, e := caselessWords(s, j)
		if sp := strings.IndexByte(s[st:e], ' '); sp >= 0 {
			e = st + sp // one word
		}
		if e < len(s) && (s[e] == ':' || strings.HasPrefix(s[e:], "：")) {
			return j // a label: the clause ends before it
		}
		return e
	})
	return i, end
}

// namesAfter returns the span of least to four capitalised words (letters of
// any script, hyphens and apostrophes inside, initials) starting at s[i],
// or an empty span.
func namesAfter(s string, i, least int) (int, int) {
	end, words := spacedWords(s, i, 4, func(j int) int {
		r, n := utf8.DecodeRuneInString(s[j:])
		if !unicode.IsUpper(r) {
			return j
		}
		w := j + n
		for w < len(s) {
			r, n := utf8.DecodeRuneInString(s[w:])
			if unicode.IsLetter(r) || (r == '-' || r == '\'' || r == '.') && w+n < len(s) && s[w+n] != ' ' {
				w += n
				continue
			}
			break
		}
		if w < len(s) && s[w] == '.' && w-j == n { // an initial
			w++
		}
		return w
	})
	if words < least || strings.HasPrefix(s[i:], markerPrefix) {
		return i, i
	}
	return i, end
}

// afterTitle returns where the words after the first honorific or title
// within s[st:e] start (at a word's start, a blank after it), or -1.
func afterTitle(s string, st, e int) int {
	e = min(e, len(s))
	for i := st; i < e; i++ {
		if i > st && s[i-1] != ' ' || !honorificStart[s[i]] {
			continue
		}
		for _, h := range honorifics {
			if strings.HasPrefix(s[i:], h+" ") && i+len(h) <= e {
				return i + len(h) + 1
			}
		}
	}
	return -1
}

// rowNameBesideID finds a person's name in the field right before or
// right after the field of the identity number's or account's marker at
// s[k:k+mlen] in a delimited row (a bank statement's CSV line, a
// spreadsheet's row): the field holds two to four capitalised words and
// nothing else, quoted or not, between the row's separators (';', ',',
// '|', a tab).
func rowNameBesideID(s string, k, mlen int) []int {
	isSep := func(c byte) bool { return c == ';' || c == ',' || c == '|' || c == '\t' }
	a, b := k, k+mlen
	if a > 0 && b < len(s) && (s[a-1] == '"' || s[a-1] == '\'') && s[b] == s[a-1] {
		a, b = a-1, b+1
	}
	for _, f := range [2][3]int{{a - 1, -1}, {b, 1}} {
		sep, dir := f[0], f[1]
		if sep < 0 || sep >= len(s) || !isSep(s[sep]) {
			continue
		}
		if fs, fe := rowField(s, sep, dir); fe > fs {
			if st, e := namesAfter(s, fs, 2); st == fs && e == fe {
				return []int{st, e, -1, -1, st, e}
			}
			// A given name and a surname in two fields (…;Ana;Horvat;…):
			// one capitalised word in each, the same separator between.
			if oneName(s, fs, fe) {
				next := fe
				if dir < 0 {
					next = fs - 1
				}
				if next >= 0 && next < len(s) && s[next] == s[sep] {
					if gs, ge := rowField(s, next, dir); ge > gs && oneName(s, gs, ge) {
						lo, hi := min(fs, gs), max(fe, ge)
						return []int{lo, hi, -1, -1, lo, hi}
					}
				}
			}
			// A name in a script without case (ლაშა ხუციშვილი): two
			// words at least, the whole field.
			if st, e := caselessWords(s, fs); e == fe && strings.IndexByte(s[st:e], ' ') > 0 {
				return []int{st, e, -1, -1, st, e}
			}
		}
	}
	return nil
}

// rowField returns the content of the field beside the separator at
// s[sep] (dir -1 before it, 1 after it), its quotes left out, or an empty
// span when it has no closing quote or runs past a line or 96 bytes.
// oneName reports whether s[fs:fe] is one capitalised word with a lower
// case letter after its capital (Ana, Hadžić; not EUR, not 2450).
func oneName(s string, fs, fe int) bool {
	if fe-fs < 2 || !isUpper(s[fs]) && s[fs] < 0xC0 {
		return false
	}
	st, e := namesAfter(s, fs, 1)
	if st != fs || e != fe || strings.IndexByte(s[fs:fe], ' ') >= 0 {
		return false
	}
	for _, r := range s[fs:fe] {
		if unicode.IsLower(r) {
			return true
		}
	}
	return false
}

func rowField(s string, sep, dir int) (int, int) {
	j := sep + dir
	if j < 0 || j >= len(s) {
		return 0, 0
	}
	q := s[j]
	if q != '"' && q != '\'' {
		q = 0
	}
	k := j
	if q != 0 {
		k += dir
	}
	start := k
	for k >= 0 && k < len(s) && (k-start)*dir < 96 {
		c := s[k]
		if q != 0 && c == q || q == 0 && (c == ';' || c == ',' || c == '|' || c == '\t') || c == '\n' || c == '\r' {
			break
		}
		k += dir
	}
	if k < 0 || k >= len(s) {
		if q != 0 {
			return 0, 0
		}
		k = max(-1, min(k, len(s)))
	} else if q != 0 && s[k] != q {
		return 0, 0
	}
	if dir < 0 {
		return k + 1, start + 1
	}
	return start, k
}

func isHex(c byte) bool { return isDigit(c) || c >= 'a' && c <= 'f' || c >= 'A' && c <= 'F' }

// A payment's party is named beside its account: Odoo's "account … of
// partner 'Pieter Claes'", a direct debit's `person="Jan de Vries"
// iban=…`, a mandate's debtor. On a line that names a bank account (an
// IBAN, a mandate, SEPA, a direct debit), a party's word (accountParties)
// followed by ':', '=' or a quote and two capitalised words is a person's
// name — "partner" and "person" alone name companies and types as often.

// accountParties name a payment's party.
var accountParties = []string{"partner", "person", "debtor", "creditor", "account owner", "owner", "member", "customer", "client",
	"recipient", "beneficiary", "payee", "empfaenger", "empfänger", "beguenstigter", "begünstigter"}

// accountLineWords say a line is about a bank account.
var accountLineWords = []string{"iban", "mandate", "sepa", "direct debit", "lastschrift"}

// accountTextWords are the triggers of findAccountParty: a text that names
// a bank account in words, or a party that only a payment has (a debtor, a
// creditor, a partner in an accounting system's log); "customer" and
// "person" name a party in too many texts to wake the rule alone.
var accountTextWords = append(append([]string{}, accountLineWords...), "partner", "debtor", "creditor")

// findAccountParty finds a party's name on a line naming a bank account.
func findAccountParty(s string, from int) []int {
	for i := from; i < len(s); {
		k, kl := -1, 0
		for _, p := range accountParties {
			if j := indexFold(s[i:], p); j >= 0 && (k < 0 || i+j < k) {
				k, kl = i+j, len(p)
			}
		}
		if k < 0 {
			return nil
		}
		i = k + kl
		if k > 0 && isAlnum(s[k-1]) || i < len(s) && isAlnum(s[i]) {
			continue
		}
		ls := strings.LastIndexAny(s[:k], "\n\r") + 1
		line := s[ls:lineEnd(s, k)]
		named := false
		for _, w := range accountLineWords {
			named = named || indexFold(line, w) >= 0
		}
		if !named && !strings.Contains(line, "[REDACTED:iban]") && !hasIBANShape(line) {
			continue
		}
		j := i
		if hasPrefixFold(s[j:], " name") && (j+5 == len(s) || !isAlnum(s[j+5])) {
			j += 5 // "recipient name '…'"
		}
		if j+1 < len(s) && (s[j] == '"' || s[j] == '\'') && (s[j+1] == ':' || s[j+1] == '=') {
			j++ // a key's closing quote: "empfaenger": "…"
		}
		if loc := nameAfter(s, j, false, false); loc != nil {
			return withoutClosingQuote(s, loc)
		}
	}
	return nil
}

// withoutClosingQuote ends a quoted name's span before its closing quote,
// which nameAfter takes as an apostrophe's byte.
func withoutClosingQuote(s string, loc []int) []int {
	for loc[1] > loc[0] && (s[loc[1]-1] == '\'' || s[loc[1]-1] == '"') {
		loc[1]--
		loc[5] = loc[1]
	}
	return loc
}

// hasIBANShape reports whether line holds a word shaped as an IBAN: two
// capital letters, two digits and 10 to 30 more capitals and digits.
func hasIBANShape(line string) bool {
	for i := 0; i+14 <= len(line); i++ {
		if (i > 0 && isAlnum(line[i-1])) || !isUpper(line[i]) || !isUpper(line[i+1]) || !isDigit(line[i+2]) || !isDigit(line[i+3]) {
			continue
		}
		j := i + 4
		for j < len(line) && (isDigit(line[j]) || isUpper(line[j])) {
			j++
		}
		if n := j - i; n >= 14 && n <= 34 && (j == len(line) || !isAlnum(line[j])) {
			return true
		}
	}
	return false
}

// A traceback's frame lists its local variables (Python's and Sentry's
// "Local variables:", a "locals" or "vars" map): there `name` is a local
// of the code that handled a person — a customer being created, a payee —
// and two capitalised words under it are that person's name.

// localsTriggers say a text lists a frame's local variables.
var localsTriggers = []string{"local variables", "locals", "\"vars\"", "'vars'"}

// findLocalsName finds a name under the key `name` in a text that lists a
// frame's local variables: `name = 'Ada Obi'`, `"name": "'Ada Obi'"`.
func findLocalsName(s string, from int) []int {
	for i := from; i < len(s); {
		k := indexFold(s[i:], "name")
		if k < 0 {
			return nil
		}
		k += i
		i = k + 4
		if k > 0 && isAlnum(s[k-1]) || i < len(s) && isAlnum(s[i]) {
			continue
		}
		j := i
		if j < len(s) && (s[j] == '"' || s[j] == '\'') {
			j++ // the key's closing quote
		}
		for j < len(s) && s[j] == ' ' {
			j++
		}
		if j >= len(s) || s[j] != '=' && s[j] != ':' {
			continue
		}
		j++
		for j < len(s) && s[j] == ' ' {
			j++
		}
		q := j
		for q < len(s) && q-j < 2 && (s[q] == '"' || s[q] == '\'') {
			q++ // a repr inside a JSON string: "'Ada Obi'"
		}
		if q == j {
			continue
		}
		if loc := nameAfter(s, q, false, true); loc != nil {
			return withoutClosingQuote(s, loc)
		}
	}
	return nil
}

// A SEPA purpose line (MT940's and CAMT's field 86, DATEV's `SVWZ+`) holds
// the remittance text the payer wrote: free text, personal as often as
// not. From `SVWZ+` to the next tag (EREF+, ABWA+, …), a quote or the line's
// end it is redacted, the tag with it.

// findRemittanceText finds a SEPA purpose line's remittance text.
func findRemittanceText(s string, from int) []int {
	k := indexFold(s[from:], "svwz+")
	if k < 0 {
		return nil
	}
	vs := from + k
	ve := vs + len("svwz+")
	for ve < len(s) && s[ve] != '\'' && s[ve] != '"' && s[ve] != '\n' && s[ve] != '\r' && s[ve] != '?' {
		if s[ve] == '+' && ve-4 >= vs+5 && isUpper(s[ve-1]) && isUpper(s[ve-2]) && isUpper(s[ve-3]) && isUpper(s[ve-4]) {
			ve -= 4 // the next tag: EREF+, ABWA+
			break
		}
		ve++
	}
	for ve > vs && s[ve-1] == ' ' {
		ve--
	}
	return []int{vs, ve, -1, -1, vs, ve}
}
