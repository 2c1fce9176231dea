package redact_test

import (
	"strings"
	"testing"

	"github.com/triagehq/triage/internal/redact"
)

// nameKeyCases are people's names, addresses and identity numbers under
// keys that say so in other scripts and other forms (docs/design.md
// "Redaction", 5). The people, numbers and wordings are none of the
// holdout rounds'.
var nameKeyCases = []planted{
	{
		name:    "a name under the word name in Hebrew, beside a phone",
		in:      `{"order": "ORD-55120", "שם": "יעל אברמוביץ", "טלפון": "+972 52 765 4321", "status": "NO_ANSWER"}`,
		secrets: []string{"יעל אברמוביץ", "765 4321"},
		keep:    []string{`"order": "ORD-55120"`, `"status": "NO_ANSWER"`},
	},
	{
		name:    "a name under the word name in Devanagari, a record of nothing else",
		in:      `{"event": "kyc.rejected", "नाम": "सुनीता देवी शर्मा", "attempt": 2}`,
		secrets: []string{"सुनीता देवी शर्मा"},
		keep:    []string{`"event": "kyc.rejected"`, `"attempt": 2`},
	},
	{
		name:    "a name in a script without case under a generic name key in logfmt",
		in:      `level=warn svc=claims name="فاطمة الزهراء بن علي" claim=CL-7781 retry=true`,
		secrets: []string{"فاطمة الزهراء بن علي"},
		keep:    []string{"svc=claims", "claim=CL-7781", "retry=true"},
	},
	{
		name:    "a percent-encoded name in a query string",
		in:      `"GET /v2/members/lookup?name=%D7%99%D7%A2%D7%9C%20%D7%9B%D7%94%D7%9F&branch=hfa-2 HTTP/2" 404`,
		secrets: []string{"%D7%99%D7%A2%D7%9C%20%D7%9B%D7%94%D7%9F"},
		keep:    []string{"branch=hfa-2", "/v2/members/lookup"},
	},
	{
		name: "a thing's name stays: an identifier, a word of one script",
		in:   `level=info name=orders-consumer queue=ingest name="nightly export" {"name": "модель"}`,
		keep: []string{"name=orders-consumer", `name="nightly export"`, `"name": "модель"`},
	},
	{
		name:    "an address by what it is for",
		in:      `{"customer": {"id": "C-19"}, "residentialAddress": "Kungsgatan 14, 111 43 Stockholm", "deliveryAddress": "Lagerweg 3, Utrecht", "warehouse": "AMS-2"}`,
		secrets: []string{"Kungsgatan 14", "Lagerweg 3"},
		keep:    []string{`"warehouse": "AMS-2"`, `"id": "C-19"`},
	},
	{
		name:    "an identity document's value beside its type",
		in:      "reject: id_type=passport id_value=X4471902 reason=EXPIRED\n{\"idType\": \"voter\", \"idValue\": \"ZRT 5521907\"}",
		secrets: []string{"X4471902", "ZRT 5521907"},
		keep:    []string{"id_type=passport", "reason=EXPIRED"},
	},
	{
		name:    "Israel's identity number under its abbreviation, by its check digit",
		in:      `clinic lookup failed: {"tz": "039337423", "clinic": "jrs-1"} and T.Z=123456782; tz=Asia/Jerusalem pid=123456782`,
		secrets: []string{"039337423", "T.Z=123456782"},
		keep:    []string{`"clinic": "jrs-1"`, "tz=Asia/Jerusalem pid=123456782"},
	},
	{
		name:    "a message's party as a JSON member, in international form without '+'",
		in:      `{"event":"sms.undelivered","gateway":"messagebird","recipient":"33612345678","originator":"Clinic","sent_at":"1764230400123","from":"+4915112345678"}`,
		secrets: []string{"33612345678", "4915112345678"},
		keep:    []string{`"sent_at":"1764230400123"`, `"originator":"Clinic"`},
	},
	{
		name:    "a given name alone under its label, the surname under the next",
		in:      "kargo: alıcı Ad: Emre Soyad: Kaplan sipariş=88123; signup: First name: Priya, Surname: Raman, plan=gold; Vorname=Jonas Nachname=Weber",
		secrets: []string{"Emre", "Kaplan", "Priya", "Raman", "Jonas", "Weber"},
		keep:    []string{"sipariş=88123", "plan=gold"},
	},
	{
		name: "a one-word value under a given name's label with no surname's after it stays",
		in:   "form: first name: required, ad: Banner",
		keep: []string{"first name: required", "ad: Banner"},
	},
	{
		name:    "a South Asian house and street number, an Arabic address in its order",
		in:      "courier: consignee unreachable at Flat 12, Road 4, Gulshan; return to H. No. 77, Lane 9; المرسل: ١٤ شارع الجمهورية، عابدين",
		secrets: []string{"Flat 12, Road 4", "H. No. 77, Lane 9", "١٤ شارع الجمهورية"},
		keep:    []string{"courier: consignee unreachable at"},
	},
}

// formProseCases are free text form-encoded in form bodies and queries
// (docs/design.md "Redaction", 6).
var formProseCases = []planted{
	{
		name:    "a messaging webhook's form body: the message's text goes, its ids stay",
		in:      "webhook 500 payload=MessageSid=MM81c2d0&AccountSid=AC19f0&Body=Hola%2C+soy+Marta+Ruiz+y+necesito+cambiar+la+cita+del+jueves&NumSegments=1",
		secrets: []string{"Marta+Ruiz", "cambiar+la+cita"},
		keep:    []string{"MessageSid=MM81c2d0", "NumSegments=1"},
	},
	{
		name:    "a feedback form's first pair, a query's free-text parameter",
		in:      "POST /feedback body=remarks=Driver+left+the+box+at+flat+9+with+my+neighbour+Tomasz&score=2\nGET /help?lang=en&question=why+was+my+card+charged+twice+this+month HTTP/1.1",
		secrets: []string{"neighbour+Tomasz", "charged+twice"},
		keep:    []string{"score=2", "lang=en", "HTTP/1.1"},
	},
	{
		name: "the system's own encoded text stays, and short or unspaced values",
		in:   "redirect?error=access_denied&error_description=The+user+denied+the+consent+request&state=af0ifjsldkj&scope=openid+profile+email",
		keep: []string{"error_description=The+user+denied+the+consent+request", "state=af0ifjsldkj", "scope=openid+profile+email"},
	},
}

func TestFormProse(t *testing.T) {
	stringCases(t, formProseCases)
}

func TestNameKeys(t *testing.T) {
	stringCases(t, nameKeyCases)
}

// A message's party is a phone by the same rule in a JSON document and in
// a decoded value as in text.
func TestPartyPhoneStructured(t *testing.T) {
	doc := `{"to":"447911123456","from":"ACME","ts":"1764230400123","number":"A-1234567890123"}`
	out := string(redact.JSON([]byte(doc)))
	if strings.Contains(out, "447911123456") || !strings.Contains(out, `"ts":"1764230400123"`) || !strings.Contains(out, `"from":"ACME"`) {
		t.Errorf("JSON: %s", out)
	}
	v := redact.Value(map[string]any{"destination": "5511987654321", "sent": "1764230400123"}).(map[string]any)
	if v["destination"] == "5511987654321" || v["sent"] != "1764230400123" {
		t.Errorf("Value: %v", v)
	}
}
