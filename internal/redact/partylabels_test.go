package redact_test

import "testing"

// partyCases are people named beside their identity numbers and accounts,
// and under labels and keys of other languages and scripts
// (docs/design.md "Redaction", 5). The people, numbers and wordings are
// none of the holdout rounds'.
var partyCases = []planted{
	{
		name:    "a name four lower-case words after an identity number",
		in:      "weryfikacja: PESEL 02270803628 nie pasuje do osoby Katarzyna Nowak-Wiśniewska (wniosek 5512)",
		secrets: []string{"02270803628", "Katarzyna Nowak-Wiśniewska"},
		keep:    []string{"wniosek 5512"},
	},
	{
		name:    "an account's holder in brackets after its IBAN",
		in:      "payout rejected: IBAN ES91 2100 0418 4502 0005 1332 rechazado (Lucía Romero); IBAN DE89 3704 0044 0532 0130 00, Referenz Miete",
		secrets: []string{"ES91 2100 0418 4502 0005 1332", "Lucía Romero", "DE89 3704 0044 0532 0130 00"},
		keep:    []string{"Referenz Miete"},
	},
	{
		name:    "a clause in a script without case after an identity number",
		in:      "שגיאה: ת.ז. 000000018 של משה כהן לא נמצאה (בקשה 91)",
		secrets: []string{"000000018", "משה כהן"},
		keep:    []string{"(בקשה 91)"},
	},
	{
		name:    "a name after a label of another language",
		in:      "ошибка проверки: имя: Ольга Смирнова, όνομα: Νίκος Αλεξίου",
		secrets: []string{"Ольга Смирнова", "Νίκος Αλεξίου"},
	},
	{
		name:    "a party named bare, a title before it",
		in:      "zustellung: klant Pieter Bakker niet thuis; destinataire Claire Dubois absente; Empfänger Frau Anna Vogel; Kunde erreichbar unter Rufnummer",
		secrets: []string{"Pieter Bakker", "Claire Dubois", "Anna Vogel"},
		keep:    []string{"Kunde erreichbar unter Rufnummer"},
	},
	{
		name:    "an address under a key of another script runs over its commas",
		in:      "заказ не доставлен, адрес: ул. Ленина 5, кв. 3, Москва 101000 (заказ 77)\n住所: 大阪府大阪市北区梅田3-1 社員番号: X-9912\nפרטים: כתובת: שדרות רוטשילד 10, חיפה (פנייה 12)",
		secrets: []string{"ул. Ленина 5", "кв. 3", "Москва 101000", "大阪府大阪市北区梅田3-1", "שדרות רוטשילד 10", "חיפה"},
		keep:    []string{"(заказ 77)", "社員番号: X-9912", "(פנייה 12)"},
	},
	{
		name:    "identity numbers under their own scripts' labels",
		in:      "ΣΦΑΛΜΑ: ΑΜΚΑ 01018012344 άκυρο; رقم الهوية 2098765432 مرفوض; {\"СНИЛС\": \"112-233-445 95\"}",
		secrets: []string{"01018012344", "2098765432", "112-233-445 95"},
	},
}

// labelCases are identity numbers under labels of more languages and
// shapes (a leading letter, health services' numbers), and people named
// beside them, beside an address or under their own languages' labels.
var labelCases = []planted{
	{
		name:    "a resident id with a leading letter after its Traditional Chinese label",
		in:      "申請失敗：身分證字號 F131104093 與戶籍資料不符（錯誤 RIS-88）",
		secrets: []string{"F131104093"},
		keep:    []string{"RIS-88"},
	},
	{
		name:    "a health insurance number with a leading letter",
		in:      "eGK-Prüfung: Krankenversichertennummer T555558884 unbekannt; retry=false",
		secrets: []string{"T555558884"},
		keep:    []string{"retry=false"},
	},
	{
		name:    "a health service's number under its key",
		in:      `spine lookup failed nhsNumber=9434765919 ods=Y02345 {"nhs_no": "4010232137"}`,
		secrets: []string{"9434765919", "4010232137"},
		keep:    []string{"ods=Y02345"},
	},
	{
		name:    "a name under a caseless label ends before the next field's label",
		in:      "取込エラー 氏名=佐藤 健太 マイナンバー=4712 0386 2191 区分=A",
		secrets: []string{"佐藤 健太", "4712 0386 2191"},
		keep:    []string{"区分=A"},
	},
	{
		name:    "a name before an identity number, a joining word and its label between",
		in:      "alta rechazada para Andrés Gil Romero con DNI 12345678Z (código 4471); could not match Oliver Hartley with NI number AB 12 34 56 C",
		secrets: []string{"Andrés Gil Romero", "12345678Z", "Oliver Hartley", "AB 12 34 56 C"},
		keep:    []string{"código 4471"},
	},
	{
		name:    "an addressee right before a street address",
		in:      "Zustellung an Jonas Weber, Lindenstraße 12, 10115 Berlin gescheitert (Sendung 00340434161094042557)",
		secrets: []string{"Jonas Weber", "Lindenstraße 12"},
		keep:    []string{"gescheitert", "Sendung 00340434161094042557"},
	},
	{
		name:    "names under other languages' labels and keys",
		in:      "factura rechazada — Nombre: Rocío Ibáñez Soler; estado=RECHAZADO &{Conta:12 Titular:João Pedro Matos Estado:FALHOU}",
		secrets: []string{"Rocío Ibáñez Soler", "João Pedro Matos"},
		keep:    []string{"estado=RECHAZADO", "Estado:FALHOU"},
	},
	{
		name:    "a Turkish first name beside its surname",
		in:      `{"musteri": {"Ad": "Elif", "Soyad": "Yıldırım", "sehir": "İzmir"}}`,
		secrets: []string{"Elif", "Yıldırım"},
		keep:    []string{"İzmir"},
	},
	{
		name:    "a display name in a block of spaced labels beside a birth date",
		in:      "A user account was changed.\n\nAttributes:\n\tLogon Name:\tmvoss\n\tDisplay Name:\t\tMarlene Voss\n\tDate of Birth:\t-\n",
		secrets: []string{"Marlene Voss"},
		keep:    []string{"mvoss"},
	},
	{
		name: "a service's display name in a block of spaced labels",
		in:   "Service:\n\tService Name:\tW3SVC\n\tDisplay Name:\tWorld Wide Web Publishing Service\n\tStart Type:\tAuto\n",
		keep: []string{"World Wide Web Publishing Service"},
	},
}

func TestLabelsOfMoreLanguages(t *testing.T) {
	t.Parallel()
	stringCases(t, labelCases)
}

func TestPartiesBesideTheirNumbers(t *testing.T) {
	t.Parallel()
	stringCases(t, partyCases)
}

// writtenVariantCases are personal data in national written forms: phones
// by their countries' groupings, an address spelled out in another
// language, an NRIC by its check letter, CJK keys before a full-width
// colon, a record whose type names an identity document.
var writtenVariantCases = []planted{
	{
		name:    "phones in their national groupings",
		in:      "retorno pedido no (21) 98765-4321; Rückruf an 0172 98765432; ticket 4471-2209",
		secrets: []string{"(21) 98765-4321", "0172 98765432"},
		keep:    []string{"ticket 4471-2209"},
	},
	{
		name:    "an address spelled out with another language's dot",
		in:      "kirjoita osoitteeseen: ville punkt nieminen at esimerkki punkt fi; escribe a ana at ejemplo punto es",
		secrets: []string{"ville punkt nieminen at esimerkki punkt fi", "ana at ejemplo punto es"},
	},
	{
		name:    "an NRIC or FIN by its check letter; a wrong letter stays",
		in:      "myinfo: FIN F9876543M and NRIC T0412345F mismatch; part S1234567A ok",
		secrets: []string{"F9876543M", "T0412345F"},
		keep:    []string{"S1234567A"},
	},
	{
		name:    "CJK keys before a full-width colon",
		in:      "实名认证失败，联系人：李雷，手机号：13912345678，住址：上海市浦东新区世纪大道100号，单号：SO-88",
		secrets: []string{"李雷", "13912345678", "上海市浦东新区世纪大道100号"},
		keep:    []string{"单号：SO-88"},
	},
	{
		name:    "a record whose type names an identity document",
		in:      `kyc={"identities": [{"type": "social_security", "value": "078-05-1120X"}, {"type": "utility_bill", "value": "scan-7781"}]}`,
		secrets: []string{"078-05-1120X"},
		keep:    []string{"scan-7781"},
	},
}

func TestWrittenVariants(t *testing.T) {
	t.Parallel()
	stringCases(t, writtenVariantCases)
}

// proseAddressCases are street addresses in prose by their street words in
// more languages' orders and scripts.
var proseAddressCases = []planted{
	{
		name:    "a street word before the name, in scripts \\b does not see",
		in:      "παράδοση απέτυχε: Λεωφόρος Κηφισίας 120, 11526 Αθήνα; entrega en Av. Libertador 4520, Buenos Aires; משלוח: שדרות בן גוריון 5",
		secrets: []string{"Λεωφόρος Κηφισίας 120", "Av. Libertador 4520", "שדרות בן גוריון 5"},
	},
	{
		name:    "a street word after the name, with its building and door numbers",
		in:      "teslimat: Atatürk Bulvarı No:45 D:3 Çankaya; saatja: Pärnu mnt 22, 10141 Tallinn; kuller: Hämeentie 30 A 4, 00530 Helsinki",
		secrets: []string{"Atatürk Bulvarı No:45 D:3", "Pärnu mnt 22", "Hämeentie 30 A 4", "00530 Helsinki"},
	},
	{
		name:    "a Singapore block",
		in:      "address mismatch: Blk 456 Jurong West Street 42 #05-112 Singapore 640456",
		secrets: []string{"Blk 456 Jurong West Street 42 #05-112"},
	},
	{
		name: "street words without a house number stay",
		in:   "Boarding via the API; Av. rate limited; Narva mnt closed for works",
		keep: []string{"Boarding via the API; Av. rate limited; Narva mnt closed for works"},
	},
}

func TestStreetAddressesInProse(t *testing.T) {
	t.Parallel()
	stringCases(t, proseAddressCases)
}
