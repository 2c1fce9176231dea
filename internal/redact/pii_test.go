package redact_test

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/triagehq/triage/internal/redact"
)

// recordCases are names, addresses and numbers judged by the record they
// stand in (docs/design.md "Redaction", personal data): the same key goes
// in a person's record and stays in a thing's.
var recordCases = []planted{
	{
		name:    "a customer's name beside an e-mail address",
		in:      `customer={"id": "cus_9", "email": "i.solberg@example.no", "name": "Ingrid Solberg"}`,
		secrets: []string{"Ingrid Solberg", "i.solberg@example.no"},
		keep:    []string{"cus_9"},
	},
	{
		name:    "a queue's name beside an owner's e-mail address",
		in:      `{"queue": {"name": "fetch-dlq", "owner_email": "ops@example.com"}}`,
		secrets: []string{"ops@example.com"},
		keep:    []string{`"name": "fetch-dlq"`},
	},
	{
		name: "a repository's full name",
		in:   `{"repository": {"name": "triage", "full_name": "acme/triage", "owner": {"login": "acme"}}}`,
		keep: []string{`"full_name": "acme/triage"`, `"login": "acme"`},
	},
	{
		name:    "a name under a person's record key that reads as a person's",
		in:      `{"actor": {"id": "00u1", "displayName": "Lucie Fournier"}, "owner": {"displayName": "webfile"}}`,
		secrets: []string{"Lucie Fournier"},
		keep:    []string{"00u1", `"displayName": "webfile"`},
	},
	{
		name:    "a login stays unless it is a person's name",
		in:      `{"userIdentity": {"type": "IAMUser", "userName": "JaneDoe"}, "user": {"username": "Jane Doe"}}`,
		secrets: []string{"Jane Doe"},
		keep:    []string{`"userName": "JaneDoe"`, "IAMUser"},
	},
	{
		name:    "an address's lines",
		in:      `{"shipping": {"address": {"line1": "Storgata 17B", "line2": "Apt 4", "city": "Oslo"}}}`,
		secrets: []string{"Storgata 17B", "Apt 4"},
		keep:    []string{`"city": "Oslo"`},
	},
	{
		name:    "a name and a list of names in a Ruby hash and a Python list",
		in:      `user={"name"=>"Phuong Nguyen", "phone"=>"+61 2 9876 5432"} owners=[{"names": ["Alberta Charleson"], "emails": ["a@example.com"]}]`,
		secrets: []string{"Phuong Nguyen", "Alberta Charleson", "+61 2 9876 5432"},
	},
	{
		name:    "a phone's number and an invoice's",
		in:      `{"Phone": {"Number": "6175550144"}, "invoice": {"number": "6175550144"}}`,
		secrets: []string{`"Number": "6175550144"`},
		keep:    []string{`"invoice": {"number": "6175550144"}`},
	},
	{
		name:    "an identity document's number and an invoice's",
		in:      `[{"type": "passport", "number": "X4823971"}, {"type": "invoice", "number": "INV-77"}]`,
		secrets: []string{"X4823971"},
		keep:    []string{`"number": "INV-77"`},
	},
	{
		name:    "a number beside an E.164 number",
		in:      `{"valid": true, "number": "14158586273", "international_format": "+14158586273", "line_type": "mobile"}`,
		secrets: []string{"14158586273"},
		keep:    []string{`"line_type": "mobile"`},
	},
	{
		name:    "logfmt: a name beside an e-mail key, and one alone",
		in:      "attempted role=user email=bea.rossi@example.it name=\"Beatrice Rossi\"\nqueue drained name=fetch-dlq count=0",
		secrets: []string{"Beatrice Rossi"},
		keep:    []string{"name=fetch-dlq", "role=user"},
	},
	{
		name:    "YAML: a customer's name and a queue's",
		in:      "args:\n  customer:\n    name: Hedda Lindqvist\n    email: h@example.se\n  queue:\n    name: fetch-priority\nusers:\n- name: deployer\n",
		secrets: []string{"Hedda Lindqvist"},
		keep:    []string{"name: fetch-priority", "name: deployer"},
	},
	{
		name:    "XML: a debtor's name and the initiating party's",
		in:      "<Dbtr><Nm>Aoife Byrne</Nm></Dbtr><InitgPty><Nm>Acme Energy Ltd</Nm></InitgPty>",
		secrets: []string{"Aoife Byrne"},
		keep:    []string{"<Nm>Acme Energy Ltd</Nm>"},
	},
	{
		name:    "a PostgreSQL key by its columns",
		in:      "DETAIL:  Key (full_name, date_of_birth)=(Ana Souza, 1990-01-31) already exists.\nDETAIL:  Key (item_id)=(itm_42) already exists.",
		secrets: []string{"Ana Souza", "1990-01-31"},
		keep:    []string{"Key (item_id)=(itm_42) already exists."},
	},
	{
		name:    "a MySQL duplicate entry by its index",
		in:      "(1062, \"Duplicate entry 'Wanjiru Kamau-1985-03-02' for key 'uniq_full_name_birthdate'\") (1062, \"Duplicate entry 'ord-42' for key 'PRIMARY'\")",
		secrets: []string{"Wanjiru Kamau"},
		keep:    []string{"'ord-42' for key 'PRIMARY'"},
	},
	{
		name:    "SQLAlchemy positional parameters by their columns",
		in:      "[SQL: INSERT INTO members (email, display_name, street, plan) VALUES (?, ?, ?, ?)]\n[parameters: ('t@example.co.za', 'Thandi Nkosi', '12 Long Street', 'basic')]",
		secrets: []string{"Thandi Nkosi", "12 Long Street"},
		keep:    []string{"'basic'"},
	},
	{
		name:    "an address written in words, its local part too",
		in:      "reach me at marta dot lindqvist at example dot se; we meet at noon dot then",
		secrets: []string{"lindqvist", "example dot se"},
		keep:    []string{"we meet at noon dot then"},
	},
	{
		name:    "an E.164 number as a segment of a URL path",
		in:      "GET https://lookups.twilio.com/v2/PhoneNumbers/+447700900461?Fields=line_type_intelligence",
		secrets: []string{"+447700900461"},
		keep:    []string{"https://lookups.twilio.com/v2/PhoneNumbers/", "Fields=line_type_intelligence"},
	},
	{
		name:    "a field's validation errors and a list of phone records",
		in:      `{"errors": {"email": ["has already been taken"], "phone": ["+1 415 555 0142", "is invalid"]}, "phone_numbers": [{"data": "1112224444", "type": "home"}]}`,
		secrets: []string{"+1 415 555 0142", "1112224444"},
		keep:    []string{`"email": ["has already been taken"]`, `"is invalid"`, `"type": "home"`},
	},
	{
		name:    "the parts of a name's record (FHIR HumanName)",
		in:      `{"resourceType": "Patient", "name": [{"use": "official", "family": "Chalmers", "given": ["Peter", "James"]}], "gender": "male"}`,
		secrets: []string{"Chalmers", "Peter", "James"},
		keep:    []string{`"use": "official"`, `"gender": "male"`},
	},
	{
		name: "null under a personal key",
		in:   `{"billing_details": {"address": {"country": "US", "postal_code": null}}}`,
		keep: []string{`"postal_code": null}}}`},
	},
}

func TestPersonalDataByRecord(t *testing.T) {
	t.Parallel()
	eachEveryWay(t, recordCases, false)
}

func TestValueJudgesRecords(t *testing.T) {
	t.Parallel()
	in := map[string]any{
		"customer": map[string]any{"name": "Ingrid Solberg", "email": "i@example.no"},
		"queue":    map[string]any{"name": "fetch-dlq"},
		"owners":   []any{map[string]any{"displayName": "Lucie Fournier"}},
		"phones":   []any{map[string]any{"number": "6175550144", "type": "home"}, "+1 415 555 0142", "is invalid"},
	}
	b, err := json.Marshal(redact.Value(in))
	if err != nil {
		t.Fatal(err)
	}
	out := string(b)
	for _, s := range []string{"Ingrid Solberg", "Lucie Fournier", "i@example.no", "6175550144", "+1 415 555 0142"} {
		if strings.Contains(out, s) {
			t.Errorf("Value keeps %q: %s", s, out)
		}
	}
	for _, k := range []string{`"name":"fetch-dlq"`, `"type":"home"`, `"is invalid"`} {
		if !strings.Contains(out, k) {
			t.Errorf("Value loses %s: %s", k, out)
		}
	}
}

func TestMapJudgesRecords(t *testing.T) {
	t.Parallel()
	person := redact.Map(map[string]string{"name": "Jane Doe", "email": "jane@example.com"})
	if person["name"] == "Jane Doe" {
		t.Errorf("Map keeps a name beside an e-mail address: %v", person)
	}
	thing := redact.Map(map[string]string{"name": "fetch-dlq", "count": "3"})
	if thing["name"] != "fetch-dlq" {
		t.Errorf("Map redacts a queue's name: %v", thing)
	}
}

func TestKeyKindPersonalNames(t *testing.T) {
	t.Parallel()
	for key, want := range map[string]redact.Kind{
		"account_holder_name":         redact.KindPersonal,
		"accountHolderName":           redact.KindPersonal,
		"caller_name":                 redact.KindPersonal,
		"customer.name":               redact.KindPersonal,
		"AttentionName":               redact.KindPersonal,
		"CleansedPhoneNumberE164":     redact.KindPhone,
		"CleansedPhoneNumberNational": redact.KindPhone,
		"national_id_number":          redact.KindPersonal,
		"passport_no":                 redact.KindPersonal,
		"phone_numbers":               redact.KindPhone,
		"titulaire":                   redact.KindPersonal,
		"nome":                        redact.KindPersonal,
		"Kontoinhaber":                redact.KindPersonal,
		"employee":                    redact.KindPersonal,
		"adresse":                     redact.KindPersonal,
		"telefone":                    redact.KindPhone,
		"queue.name":                  "",
		"model_name":                  "",
		"client_name":                 "",
		"PhoneType":                   "",
		"user_name":                   "",
		"name":                        "",
	} {
		if got, _ := redact.KeyKind(key); got != want {
			t.Errorf("KeyKind(%q) = %q, want %q", key, got, want)
		}
	}
}

// TestRecordsCutShort redacts every prefix of the record cases, as a
// truncated log line gives them: the record readers look back and ahead
// of a key, and must neither panic nor make a second pass disagree.
func TestRecordsCutShort(t *testing.T) {
	t.Parallel()
	for _, c := range recordCases {
		for n := range len(c.in) {
			in := c.in[:n]
			once := redact.String(in)
			if twice := redact.String(once); twice != once {
				t.Fatalf("%s cut at %d: String is not idempotent\nonce:  %s\ntwice: %s", c.name, n, once, twice)
			}
		}
	}
}
