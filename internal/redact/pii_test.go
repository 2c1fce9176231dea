package redact_test

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/triagehq/triage/internal/redact"
)

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
	for _, c := range plantedCases(t, "records") {
		for n := range len(c.in) {
			in := c.in[:n]
			once := redact.String(in)
			if twice := redact.String(once); twice != once {
				t.Fatalf("%s cut at %d: String is not idempotent\nonce:  %s\ntwice: %s", c.name, n, once, twice)
			}
		}
	}
}
