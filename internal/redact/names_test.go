package redact

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"testing"
)

// TestNamesWhereNothingNamesThem: a person's full name in a failure's text,
// under no key or label, goes by the names people carry.
func TestNamesWhereNothingNamesThem(t *testing.T) {
	const p = "[REDACTED:personal]"
	wantRedacted(t, []struct{ in, want string }{
		{"could not deliver to Maria Kowalski: mailbox full", "could not deliver to " + p + ": mailbox full"},
		{"user John Smith (id 42) not found", "user " + p + " (id 42) not found"},
		{"Kowalski, Maria rejected the charge", p + " rejected the charge"},
		{"holder ANNA NOWAK PASSPORT", "holder " + p + " PASSPORT"},
		{"paid by Dwi Purnama today", "paid by " + p + " today"},
		{"contact Jean-Pierre Dubois now", "contact " + p + " now"},
		{"cliente: محمد علي الشمري", "cliente: " + p},
		{"refund for Olga Ivanova failed; notify Kenji Tanaka", "refund for " + p + " failed; notify " + p},
		{"after [REDACTED:email] John Smith", "after [REDACTED:email] " + p},
	})
}

// TestNamesLeaveWhatIsNoPerson: a product, a model, a region, a CI job or
// two common words in capitals are no person, and a word inside an
// identifier, a path or an address is never read.
func TestNamesLeaveWhatIsNoPerson(t *testing.T) {
	wantNoPersonal(t, "no person's name is in it",
		"invoke Claude Sonnet 4 on Amazon Bedrock in US East (N. Virginia)",
		"Nova Pro, Nova Lite, Claude Haiku, Mistral Small, Gemini Flash, Llama Guard",
		"Grace Period exceeded; Will Retry; Max Tokens reached; Grace Brown",
		"Jenkins Job failed on Apache Spark; Elastic Search down; Wells Fargo",
		"Internal Server Error Service Unavailable Too Many Requests Bad Gateway",
		"Asia Pacific (Sydney) region; Jordan Cluster; Sao Paulo; Hong Kong",
		"open /home/John Smith/x: no such file; JohnSmith; john smith in lower case",
		"john.smith@example.com wrote; John_Smith; Smith.John",
	)
}

// TestNameTableReadsItsFlags: names.txt.gz's flags reach the table.
func TestNameTableReadsItsFlags(t *testing.T) {
	for _, c := range []struct {
		w    string
		want uint8
	}{
		{"maria", nameGiven},
		{"kowalski", nameFamily},
		{"grace", nameGiven | nameCommon},
		{"request", nameCommon},
		{"oslo", nameTown},
	} {
		if got := nameTable().get(hashWord(c.w)); got&c.want != c.want || got&(nameGiven|nameFamily) != 0 && c.want&(nameGiven|nameFamily) == 0 {
			t.Errorf("%s: flags %03b, want %03b set", c.w, got, c.want)
		}
	}
}

// TestNamesLeaveTheFailureCorpus: over every failure of the classification
// corpus (bodies and error texts the world sent), neither the names layer
// nor the labelled-values layer changes anything — a failure's own words
// are no person's name and its labels are a system's.
func TestNamesLeaveTheFailureCorpus(t *testing.T) {
	files, err := filepath.Glob(filepath.Join("..", "..", "cmd", "triage", "testdata", "corpus", "*.jsonl"))
	if err != nil || len(files) == 0 {
		t.Fatalf("no corpus files: %v", err)
	}
	texts := 0
	for _, f := range files {
		raw, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		for n, line := range bytes.Split(raw, []byte("\n")) {
			var c struct{ Body, Error any }
			if len(bytes.TrimSpace(line)) == 0 || json.Unmarshal(line, &c) != nil {
				continue
			}
			for _, v := range []any{c.Body, c.Error} {
				s, _ := v.(string)
				if s == "" {
					continue
				}
				texts++
				if got := names(s); got != s {
					t.Errorf("%s line %d: names changed a failure:\n in: %.300q\nout: %.300q", filepath.Base(f), n+1, s, got)
				}
				if got := labelled(s); got != s {
					t.Errorf("%s line %d: labelled changed a failure:\n in: %.300q\nout: %.300q", filepath.Base(f), n+1, s, got)
				}
			}
		}
	}
	if texts < 2000 {
		t.Errorf("read %d failure texts, want the corpus's 2,000 and more", texts)
	}
}
