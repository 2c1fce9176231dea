package redact

import (
	"regexp"
	"strings"
	"sync"
)

// A street address written in prose — "Via Garibaldi 12, 20121 Milano",
// "12 rue de Rivoli, 75001 Paris", "Hauptstraße 5, 10115 Berlin", "221B
// Baker Street" — is found by its street word in the languages' orders:
// the word before the street's name and number (Via, Rue, Calle, Rua,
// ul.), after the number and name (Street, Road, Avenue), or fused to the
// name (-straße, -gasse, -katu, -gatan). A postcode and a city after it go
// with it. Street words are written capitalised; the match wants a house
// number, so "the main road" or "via the API" stay. streetAddress is the
// expression; streetAddressAt compiles it.
const streetAddress = (
// Via Garibaldi 12[, 20121 Milano]; Calle de Alcalá 45; ul. Długa 7
`(?:\b(?:Via|Viale|Piazza|Piazzale|Corso|Largo|Vicolo|Calle|Avenida|Avda\.|Paseo|Plaza|Rua|Travessa|Praça|Ulica|ul\.|Aleja|al\.)` +
	`(?:[ \t]+(?:de|del|della|delle|dei|di|da|do|dos|das|la|las|los)\b)*(?:[ \t]+\p{Lu}[\p{L}'’.-]*){1,4},?[ \t]+\d{1,4}[A-Za-z]?` +
	// 12 rue de Rivoli; 45 Avenue des Champs-Élysées
	`|\b\d{1,4}(?:[ \t]?(?:bis|ter))?,?[ \t]+(?:rue|avenue|boulevard|place|chemin|allée|impasse|quai|Rue|Avenue|Boulevard|Place|Chemin|Allée|Impasse|Quai)` +
	`(?:[ \t]+(?:de|du|des|la|le|l'|d')\b)*(?:[ \t]*\p{Lu}[\p{L}'’.-]*){1,4}` +
	// 221B Baker Street; 1600 Pennsylvania Avenue NW
	`|\b\d{1,5}[A-Za-z]?[ \t]+(?:\p{Lu}[\p{L}'’.-]*[ \t]+){1,3}(?:Street|St\.|Road|Rd\.|Avenue|Ave\.?|Lane|Ln\.|Drive|Dr\.|Boulevard|Blvd\.?|Court|Ct\.|Terrace|Crescent|Close)(?:[ \t]+(?:NW|NE|SW|SE|N|S|E|W)\b)?` +
	// Hauptstraße 5; Mannerheimintie 12 B 7; Drottninggatan 3
	`|\b\p{Lu}[\p{L}-]*(?:straße|strasse|gasse|weg|allee|platz|ring|katu|tie|gatan|vägen|gade|vej|laan|straat|gracht|gata|vegur|veien|vei|braut|stræti)[ \t]+\d{1,4}[A-Za-z]?(?:[ \t]+[A-Z](?:[ \t]+\d{1,4})?\b)?` +
	// οδός Ερμού 45; Av. Providencia 1208; רחוב הרצל 21; طريق الملك فهد 2410 — a street
	// word before the name in scripts \b does not see, names of any script
	`|(?:Av\.|οδός|Οδός|οδ\.|Λεωφόρος|λεωφόρος|ул\.|бул\.|вул\.|просп\.|רחוב|שדרות|طريق|شارع)(?:[ \t]+[\p{Lu}\p{Lo}][\p{L}\p{M}'’.-]*){1,4},?[ \t]+\d{1,4}[A-Za-z]?` +
	// Bağdat Caddesi No:212 D:5; Narva mnt 7; Váci utca 19. 3/2 — a street
	// word after the name, a Hungarian floor and door after the number
	`|\p{Lu}[\p{L}'’.-]*(?:[ \t]+\p{Lu}[\p{L}'’.-]*){0,2}[ \t]+(?:Caddesi|Cad\.|Sokak|Sokağı|Sok\.|Bulvarı|mnt\.?|maantee|tänav|pst\.?|puiestee|utca)[ \t]+(?:No[:.]?[ \t]?)?\d{1,4}[A-Za-z]?(?:[ \t]+D[:.][ \t]?\d{1,4})?(?:\.[ \t]+\d{1,2}/\d{1,3}\b)?` +
	// ٢٥ شارع التحرير; 12 طريق الملك — a number before the street word,
	// Arabic's order, in Arabic-Indic or ASCII digits
	`|(?:\b\d{1,4}|[٠-٩]{1,4})[ \t]+(?:شارع|طريق)(?:[ \t]+\p{Lo}[\p{L}\p{M}'’.-]*){1,4}` +
	// House 14, Street 7, F-7/2; H. No. 221, Road 3 — South Asia's house
	// and street numbers, and a sector
	`|\b(?:House|H\.[ \t]?No\.|Flat|Plot)[ \t]+(?:No\.?[ \t]*)?#?\d{1,5}[A-Za-z]?,[ \t]+(?:Street|St\.|Road|Rd\.|Lane|Gali|Block)[ \t]+(?:No\.?[ \t]*)?\d{1,4}[A-Za-z]?(?:,[ \t]+(?:Sector[ \t]+)?[A-Z]{1,2}-\d{1,2}(?:/\d{1,2})?)?` +
	// Calle 150 A # 101 - 28 Int 4 Apto 302; Carrera 7 No. 32-16 — Colombia's
	// grid: the way's word and number, '#' or No., the crossing's number,
	// a dash, the door's, then the interior and flat
	`|\b(?:Calle|Carrera|Cra\.|Cl\.|Avenida)[ \t]+\d{1,3}[ \t]?[A-Z]?(?:[ \t]+(?:Bis|Sur))?[ \t]*(?:#|No\.?)[ \t]*\d{1,3}[ \t]?[A-Z]?[ \t]*-[ \t]*\d{1,3}(?:,?[ \t]+(?:Int|Interior|Apto|Apartamento|Torre|Casa|Oficina)\.?[ \t]+\d{1,4})*` +
	// Blk 123 Ang Mo Kio Avenue 6 #08-1234 — a Singapore block
	`|Blk[ \t]+\d{1,4}[A-Z]?(?:[ \t]+\p{Lu}[\p{L}'’.-]*){1,4}(?:[ \t]+\d{1,3})?(?:[ \t]+#\d{2}-\d{2,5})?)` +
	// , 20121 Milano; , 75001 Paris; , SW1A 1AA London — the postcode and city
	`(?:,?[ \t]+(?:\d{3,5}|[A-Z]{1,2}\d[A-Z\d]?[ ]\d[A-Z]{2})[ \t]+\p{Lu}[\p{L}-]+(?:[ \t]+\p{Lu}[\p{L}-]+)?)?`)

// streetWords are the street words, lower case, that stand as words of
// their own; streetSuffixes are those fused to a street's name.
var (
	streetWords = map[string]bool{
		"via": true, "viale": true, "piazza": true, "piazzale": true, "corso": true, "largo": true, "vicolo": true,
		"calle": true, "carrera": true, "avenida": true, "avda": true, "paseo": true, "plaza": true, "rua": true, "travessa": true,
		"praça": true, "ulica": true, "ul": true, "aleja": true, "al": true, "rue": true, "avenue": true,
		"boulevard": true, "bd": true, "place": true, "chemin": true, "allée": true, "impasse": true, "quai": true,
		"street": true, "st": true, "road": true, "rd": true, "ave": true, "lane": true, "ln": true, "drive": true,
		"dr": true, "blvd": true, "court": true, "ct": true, "terrace": true, "crescent": true, "close": true,
		"av": true, "οδός": true, "Οδός": true, "οδ": true, "λεωφόρος": true, "Λεωφόρος": true, "ул": true,
		"бул": true, "вул": true, "просп": true, "רחוב": true, "שדרות": true, "طريق": true, "شارع": true,
		"blk": true, "caddesi": true, "cad": true, "sokak": true, "sokağı": true, "sok": true, "bulvarı": true,
		"mnt": true, "maantee": true, "tänav": true, "pst": true, "puiestee": true, "utca": true,
	}
	// streetAfterName are the street words written after the street's
	// name (Bağdat Caddesi 12, Narva mnt 7): the address starts at the
	// name's first capitalised word.
	streetAfterName = map[string]bool{
		"caddesi": true, "cad": true, "sokak": true, "sokağı": true, "sok": true, "bulvarı": true,
		"mnt": true, "maantee": true, "tänav": true, "pst": true, "puiestee": true, "utca": true,
	}
	streetSuffixes = []string{
		"straße", "strasse", "gasse", "weg", "allee", "platz", "ring", "katu", "tie", "gatan", "vägen",
		"gade", "vej", "laan", "straat", "gracht", "gata", "vegur", "veien", "vei", "braut", "stræti",
	}
)

// streetReach bounds the text around a street word that streetAddress is
// matched in: an address's number, name, postcode and city fit in it.
const streetReach = 64

// findStreetAddress finds a street address around a street word: each word
// of the text is looked up once, and only around a street word is
// streetAddress matched, in a window of streetReach bytes each side.
func findStreetAddress(s string, from int) []int {
	var buf [24]byte
	for i := from; i < len(s); {
		if !isLetterOrHigh(s[i]) {
			i++
			continue
		}
		a := i
		for i < len(s) && isLetterOrHigh(s[i]) {
			i++
		}
		if a > 0 && (isAlnum(s[a-1]) || s[a-1] >= 0x80) || i-a > len(buf) || i-a < 2 {
			continue
		}
		w := buf[:0]
		for k := a; k < i; k++ {
			w = append(w, lowerASCII(s[k]))
		}
		if !streetWords[string(w)] && !(isUpper(s[a]) && fusedStreet(w) && i+1 < len(s) && s[i] == ' ' && isDigit(s[i+1])) {
			continue
		}
		// An address starts at the street word or at a house number before
		// it; the anchored expression is tried at each.
		lo, hi := max(from, a-streetReach), min(len(s), i+streetReach)
		after := streetAfterName[string(w)]
		for st := lo; st <= a; st++ {
			if st != a && !(isDigit(s[st]) && (st == 0 || !isAlnum(s[st-1]))) &&
				!(after && (isUpper(s[st]) || s[st] >= 0xC0) && st > 0 && s[st-1] == ' ') &&
				!houseStart(s, st) {
				continue
			}
			if m := streetAddressAt().FindStringIndex(s[st:hi]); m != nil && st+m[1] >= i {
				// The addressee written right before the address, a comma
				// between, is a person's name ("for Kari Nordmann, Storgata
				// 17B, 0184 Oslo").
				ns := st
				if st-2 > from && s[st-2] == ',' && s[st-1] == ' ' {
					if n := nameBefore(s, from, st-2); n >= 0 {
						ns = n
					}
				}
				return []int{ns, st + m[1], -1, -1, ns, st + m[1]}
			}
		}
	}
	return nil
}

// houseStart reports whether an address may start at s[st] before its
// street word other than by an ASCII digit: an Arabic-Indic digit (٢٥ شارع
// …) or a house's word (House 14, Street 7; Flat 3, Road 9).
func houseStart(s string, st int) bool {
	if st > 0 && (isAlnum(s[st-1]) || s[st-1] >= 0x80) {
		return false
	}
	switch s[st] {
	case 0xD9: // U+0660–U+0669 are D9 A0 – D9 A9
		return st+1 < len(s) && s[st+1] >= 0xA0 && s[st+1] <= 0xA9
	case 'H', 'F', 'P':
		return strings.HasPrefix(s[st:], "House ") || strings.HasPrefix(s[st:], "H. No") || strings.HasPrefix(s[st:], "H.No") ||
			strings.HasPrefix(s[st:], "Flat ") || strings.HasPrefix(s[st:], "Plot ")
	}
	return false
}

// streetAddressAt is streetAddress anchored where it is tried.
var streetAddressAt = lazyRegexp(`^(?:` + streetAddress + `)`)

// lazyRegexp compiles expr at its first use. Compiled at start, the
// package's largest expressions would be most of what redaction costs a
// function's cold start, and a function whose items all succeed may never
// redact a failure.
func lazyRegexp(expr string) func() *regexp.Regexp {
	return sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(expr) })
}

// fusedStreet reports whether a lower-case word ends in a street suffix
// after a name of its own (Hauptstraße, Drottninggatan).
func fusedStreet(w []byte) bool {
	for _, suf := range streetSuffixes {
		if len(w) > len(suf)+2 && string(w[len(w)-len(suf):]) == suf {
			return true
		}
	}
	return false
}

// streetTriggers are the commonest street words' lower-case forms: the
// address rule runs only when one occurs, so an address written only with
// a rarer or a short street word (Largo, Paseo, Close, St.) is not looked
// for — those words would wake the rule on most texts.
var streetTriggers = []string{
	"via ", "viale ", "piazza", "corso ", "calle ", "carrera ", "avenida ", "rua ", "travessa ", "ulica ", "ul. ",
	"rue ", "avenue", "boulevard", "chemin ", "impasse ", "street", "road ", "lane ", "drive ", "terrace",
	"crescent", "straße", "strasse", "gasse ", "allee ", "platz ", "katu ", "gatan ", "vägen ", "straat ",
	"gracht ", "gata ", "vegur ", "veien ", "braut ", "stræti ", " utca ",
	"av. ", "οδός", "Οδός", "λεωφόρος", "Λεωφόρος", "ул. ", "бул. ", "вул. ", "просп. ", "רחוב", "שדרות",
	"طريق", "شارع", "blk ", "caddesi", "cad. ", "sokak", "sokağı", "bulvarı", " mnt ", "maantee",
	"tänav", "puiestee", "tie ",
}

// koreanRoadAddress is a Korean road name address (도로명주소) as the
// Road Name Address Act writes it: a province or city, the district
// (…구, …군, …시), the road's name ending in 로 or 길 — a side road numbered
// after its main road's (서초대로74길) — and the building's number (87,
// 17-3); or romanized, the building's number first and the road's words
// hyphenated (88 Bongeunsa-ro 68-gil, 12 Sejong-daero).
var koreanRoadAddress = lazyRegexp(`(?:(?:\p{Hangul}+(?:도|시)|서울|부산|대구|인천|광주|대전|울산|세종|경기|강원|충북|충남|전북|전남|경북|경남|제주)[ \t]+){0,2}\p{Hangul}+(?:구|군|시)[ \t]+\p{Hangul}[\p{Hangul}\d]*(?:로|길)[ \t]+\d{1,4}(?:-\d{1,4})?` +
	`|\b\d{1,4}(?:-\d{1,4})?,?[ \t]+\p{Lu}[a-z]+-(?:ro|gil|daero)(?:[ \t]+\d{1,4}(?:beon)?-gil)?\b`)

// koreanRoadTriggers are the road words of koreanRoadAddress.
var koreanRoadTriggers = []string{"로 ", "길 ", "-ro", "-gil", "-daero"}

// findKoreanRoadAddress finds a koreanRoadAddress.
func findKoreanRoadAddress(s string, from int) []int {
	m := koreanRoadAddress().FindStringIndex(s[from:])
	if m == nil {
		return nil
	}
	a, b := from+m[0], from+m[1]
	return []int{a, b, -1, -1, a, b}
}
