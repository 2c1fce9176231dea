package redact_test

import "testing"

// Personal data of the eighteenth and nineteenth sets' shapes, in other
// vendors', languages' and wordings: a secret must go, a fact must stay.
func TestPII18Families(t *testing.T) {
	stringCases(t, []planted{
		// An HL7 v2 segment wherever it stands in a line.
		{"a PID segment quoted mid-line by a parser's error",
			`WARN hapi.Parser: cannot parse PID|1||44120988^^^STMARY^MR||OKAFOR^Chidinma^Ada||19790411|F|||7 Marsh Lane^^Leeds^^LS9 8AB^GB||07700900123^PRN^PH`,
			[]string{"OKAFOR^Chidinma", "19790411", "7 Marsh Lane", "LS9 8AB", "07700900123"}, []string{"hapi.Parser", "44120988^^^STMARY^MR"}},
		{"a PID glued to the segment before it, its carriage return dropped",
			`spool failed [MSH|^~\&|LAB|HOSP|EHR|HOSP|20250101120000||ADT^A04|MSG00077|P|2.5EVN|A04|20250101120000PID|1||X99812^^^HOSP^PI||Lindahl^Sven^Erik||19640229|M|||Kungsgatan 3^^Umeå^^90326^SE||0705551234PV1|1|O|CLINIC]`,
			[]string{"Lindahl^Sven", "19640229", "Kungsgatan 3", "90326", "0705551234"}, []string{"ADT^A04", "MSG00077", "X99812^^^HOSP^PI"}},
		{"a segment after its escaped separator, the name's component escaped",
			`System.FormatException: bad field in MSH|^~\&|A|B|C|D|202401011200||ORU^R01|88|P|2.3\rPID|||RX7701||Moreau\^Camille||19920815|F|||12 rue Oberkampf^^Paris^^75011^FR\rOBR|1||55`,
			[]string{"Moreau", "Camille", "19920815", "12 rue Oberkampf", "75011"}, []string{"ORU^R01", "RX7701", `OBR|1||55`}},
		{"an NK1 after a colon",
			`ack error for NK1|1|PETROV^Ivan^^^^^L|SPO^Spouse|Tverskaya 5^^Moskva^^125009^RU|+74951234567`,
			[]string{"PETROV^Ivan", "Tverskaya 5", "125009", "+74951234567"}, []string{"SPO^Spouse"}},
		{"a word ending in PID before a pipe is no segment",
			`| RAPID| 12 | ok | fast^path | x | y |`,
			nil, []string{`| RAPID| 12 | ok | fast^path | x | y |`}},
		{"a lower-case word ending in pid is no segment",
			`cupid|1||a^b||c||d|e`,
			nil, []string{`cupid|1||a^b||c||d|e`}},
		// A record's fields printed key=value: a surname's and a birth
		// date's keys in other languages.
		{"a Lombok toString's surname in Italian",
			`ValidationException: Paziente(nome=Giulia, cognome=Bernardi, codiceFiscale=null, reparto=3)`,
			[]string{"Bernardi"}, []string{"reparto=3", "ValidationException"}},
		{"a data class's Spanish birth date key in snake case",
			`failed to upsert Socio(id=9912, fecha_nacimiento=1983-11-05, plan=gold)`,
			[]string{"1983-11-05"}, []string{"id=9912", "plan=gold"}},
		{"a camel-case Portuguese birth date key after a colon",
			`beneficiario {"dataNascimento":"04/09/1961"} cadastroDataNascimento: 04/09/1961`,
			[]string{"04/09/1961"}, nil},
		{"a Polish birth date key with a date suffix",
			`Pacjent[data_urodzenia=1975-01-30, oddzial=7]`,
			[]string{"1975-01-30"}, []string{"oddzial=7"}},
		{"a surname key with a lower-case value is no name",
			`lint: field nazwisko=wymagane`,
			nil, []string{"lint: field"}},
		{"a birth word without a date stays",
			`column dataNascimento=NULL rejected`,
			nil, []string{"dataNascimento=NULL rejected"}},
		// A print_r member judged by the array it stands in.
		{"a print_r of a billing contact under its key",
			"Mollie request: Array\n(\n    [amount] => 12.50\n    [billingAddress] => Array\n        (\n            [givenName] => x\n            [name] => Teodora Ivanova\n            [streetAndNumber] => Vitosha 12\n        )\n)",
			[]string{"Teodora Ivanova"}, []string{"[amount] => 12.50"}},
		{"a print_r of a create-customer call's arguments after a log's words",
			"DEBUG paddle_create_customer_payload: Array\n(\n    [name] => Oskar Brandt\n    [locale] => de\n)",
			[]string{"Oskar Brandt"}, []string{"[locale] => de"}},
		{"a print_r of a product keeps its name",
			"cart item: Array\n(\n    [product] => Array\n        (\n            [name] => Walnut Desk Lamp\n            [sku] => WDL-2\n        )\n)",
			nil, []string{"[name] => Walnut Desk Lamp", "[sku] => WDL-2"}},
	})
}
