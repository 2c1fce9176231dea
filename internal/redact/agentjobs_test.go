package redact

import (
	"encoding/json"
	"strings"
	"testing"
)

// TestJobArgsInJSON: JSON and Value judge a job's arguments as String does.
func TestJobArgsInJSON(t *testing.T) {
	t.Parallel()
	doc := `{"class":"ReplyJob","args":["tkt_1",{"ticket":"T-9","note":"she asked for a refund of both charges"}],"kwargs":{"lang":"en"},"error_message":"status 429 from the upstream service"}`
	outs := map[string]string{"JSON": string(JSON([]byte(doc)))}
	var v any
	if err := json.Unmarshal([]byte(doc), &v); err != nil {
		t.Fatal(err)
	}
	b, _ := json.Marshal(Value(v))
	outs["Value"] = string(b)
	for name, out := range outs {
		if strings.Contains(out, "refund of both charges") {
			t.Errorf("%s: an argument survived: %s", name, out)
		}
		for _, k := range []string{`"tkt_1"`, `"ticket":"T-9"`, `"lang":"en"`, `"error_message":"status 429 from the upstream service"`} {
			if !strings.Contains(out, k) {
				t.Errorf("%s: lost %s: %s", name, k, out)
			}
		}
	}
	plain := `{"class":"ReindexJob","args": [1042, "eu-west-1"]}`
	if out := string(JSON([]byte(plain))); out != plain {
		t.Errorf("arguments without free text changed: %s", out)
	}
}
