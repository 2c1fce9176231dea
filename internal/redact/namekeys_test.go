package redact_test

import (
	"strings"
	"testing"

	"github.com/triagehq/triage/internal/redact"
)

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
