package main

import (
	"bytes"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"strings"
	"testing"
	"time"

	"github.com/triagehq/triage/internal/redact"
)

func TestRunRedact(t *testing.T) {
	t.Parallel()
	tests := map[string]struct {
		in      string
		want    string
		secrets []string
	}{
		"text, endings kept": {
			in:      "item story-000123 failed: 401 key sk-proj-Zx9Qw8Er7Ty6Ui5Op4As3Df2G\r\nnotify jane@example.com\nstatus=429 RATE_LIMITED",
			want:    "item story-000123 failed: 401 key [REDACTED:openai-key]\r\nnotify [REDACTED:email]\nstatus=429 RATE_LIMITED",
			secrets: []string{"Zx9Qw8Er7Ty6Ui5Op4As3Df2G", "jane@example.com"},
		},
		"one JSON document, indented": {
			in:      "{\n  \"item_id\": \"story-000123\",\n  \"api_key\": \"k-123\",\n  \"prompt\": \"hello\"\n}\n",
			want:    "{\n  \"item_id\": \"story-000123\",\n  \"api_key\": \"[REDACTED:secret]\",\n  \"prompt\": \"[text 5 bytes sha256:2cf24dba5fb0]\"\n}\n",
			secrets: []string{"k-123"},
		},
		"JSON lines": {
			in: `{"item_id":"story-1","token":"t-1"}` + "\n" +
				`{"item_id":"story-2","messages":[{"role":"user","content":"hi"}]}` + "\n" +
				"plain text with password=hunter2\n",
			want: `{"item_id":"story-1","token":"[REDACTED:secret]"}` + "\n" +
				`{"item_id":"story-2","messages":"` + redact.Text(`[{"content":"hi","role":"user"}]`) + `"}` + "\n" +
				"plain text with password=[REDACTED:password]\n",
			secrets: []string{"t-1", "hunter2", `"content":"hi"`},
		},
		"a stream of pretty-printed documents": {
			in: "{\n  \"item_id\": \"story-1\",\n  \"prompt\": \"summarize: the launch code is 0000\"\n}\n" +
				"{\n  \"item_id\": \"story-2\",\n  \"prompt\": \"hello\"\n}\n",
			want: "{\n  \"item_id\": \"story-1\",\n  \"prompt\": \"" + redact.Text("summarize: the launch code is 0000") + "\"\n}\n" +
				"{\n  \"item_id\": \"story-2\",\n  \"prompt\": \"" + redact.Text("hello") + "\"\n}\n",
			secrets: []string{"launch code", `"hello"`},
		},
		"documents back to back, text around them": {
			in:      "START RequestId: 4d6a1f0e\n{\"prompt\":\"a\"}{\"prompt\":\"b\"} [1, 2]\nEND password=hunter2\n",
			want:    "START RequestId: 4d6a1f0e\n{\"prompt\":\"" + redact.Text("a") + "\"}{\"prompt\":\"" + redact.Text("b") + "\"} [1, 2]\nEND password=[REDACTED:password]\n",
			secrets: []string{"hunter2"},
		},
		"a multi-line private key": {
			in:      "key dump:\n-----BEGIN RSA PRIVATE KEY-----\nMIIEowIBAAKCAQEA0Z3VS5JJcds3xfn/ygWyF8PbnGy0AHB7MhgwMbRvI0MBZhpF\nQ2wMRTcOHTOzfTnPRY8G5DlnAOAMeQaA0T4MwvbeIrgYB4HFcTOg/ti8tWWyp7NB\n-----END RSA PRIVATE KEY-----\ndone\n",
			want:    "key dump:\n[REDACTED:private-key]\ndone\n",
			secrets: []string{"MIIEowIBAAKCAQEA", "Q2wMRTcOHTOzfTnP"},
		},
		"an aws secret on the line after its key id": {
			in:      "AKIAI44QH8DHBEXAMPLE\nje7MtGbClwBF/2Zp9Utk/h3yCo8nvbEXAMPLEKEY\n",
			want:    "[REDACTED:aws-access-key]\n[REDACTED:aws-secret]\n",
			secrets: []string{"je7MtGbClwBF"},
		},
		"an aws secret with no label": {
			in:      "old pair: je7MtGbClwBF/2Zp9Utk/h3yCo8nvbEXAMPLEKEY\n",
			want:    "old pair: [REDACTED:aws-secret]\n",
			secrets: []string{"je7MtGbClwBF"},
		},
		"a token scheme keeps its closing quote": {
			in:   "curl -H 'Authorization: Token 9f8e7d6c5b4a39281706f5e4d3c2b1a0' https://api.example.com\n",
			want: "curl -H 'Authorization: Token [REDACTED:bearer]' https://api.example.com\n",
		},
		"not JSON after all": {
			in:   "[default]\naws_secret_access_key = je7MtGbClwBF/2Zp9Utk/h3yCo8nvbEXAMPLEKEY\n{not json\n",
			want: "[default]\naws_secret_access_key = [REDACTED:aws-secret]\n{not json\n",
		},
		"empty": {in: "", want: ""},
		"no trailing newline": {
			in:   "Authorization: Bearer abcdef0123456789",
			want: "Authorization: Bearer [REDACTED:bearer]",
		},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			var out bytes.Buffer
			if err := runRedact(strings.NewReader(tc.in), &out, nil); err != nil {
				t.Fatalf("runRedact: %v", err)
			}
			got := out.String()
			for _, s := range tc.secrets {
				if strings.Contains(got, s) {
					t.Errorf("%q survived in %q", s, got)
				}
			}
			if got != tc.want {
				t.Errorf("got  %q\nwant %q", got, tc.want)
			}
		})
	}
}

func TestRunRedactJSONOnly(t *testing.T) {
	t.Parallel()
	var out bytes.Buffer
	in := "{\"token\":\"t-1\"}\n[\n  {\"prompt\": \"x\"}\n]\n"
	if err := runRedact(strings.NewReader(in), &out, []string{"--json"}); err != nil {
		t.Fatalf("--json on JSON: %v", err)
	}
	if want := "{\"token\":\"[REDACTED:secret]\"}\n[\n  {\"prompt\": \"" + redact.Text("x") + "\"}\n]\n"; out.String() != want {
		t.Errorf("got  %q\nwant %q", out.String(), want)
	}
	for _, bad := range []string{"{\"a\":1}\ntrailing text\n", "plain", "{\"a\":1} garbage"} {
		out.Reset()
		err := runRedact(strings.NewReader(bad), &out, []string{"--json"})
		if err == nil || !strings.Contains(err.Error(), "not JSON at byte") {
			t.Errorf("--json on %q: err = %v, want not JSON", bad, err)
		}
		if out.Len() != 0 {
			t.Errorf("--json on %q wrote %q", bad, out.String())
		}
	}
}

// TestRunRedactUnclosedValues: lines that each open a value that never
// closes are read once, not once per line.
func TestRunRedactUnclosedValues(t *testing.T) {
	t.Parallel()
	in := strings.Repeat("[\n", 1<<18) + strings.Repeat("{\n", 1<<18) + "password=hunter2\n"
	var out bytes.Buffer
	done := make(chan error, 1)
	go func() { done <- runRedact(strings.NewReader(in), &out, nil) }()
	select {
	case err := <-done:
		if err != nil {
			t.Fatal(err)
		}
	case <-time.After(20 * time.Second):
		t.Fatal("redact is quadratic in unclosed values")
	}
	if !strings.HasSuffix(out.String(), "password=[REDACTED:password]\n") || out.Len() != len(in)-len("hunter2")+len("[REDACTED:password]") {
		t.Errorf("output %d bytes, ends %q", out.Len(), out.String()[max(0, out.Len()-40):])
	}
}

func TestRunRedactArgs(t *testing.T) {
	t.Parallel()
	var out bytes.Buffer
	if err := runRedact(strings.NewReader("x"), &out, []string{"-h"}); !errors.Is(err, flag.ErrHelp) {
		t.Errorf("-h: err = %v, want flag.ErrHelp", err)
	}
	if err := runRedact(strings.NewReader("x"), &out, []string{"file.txt"}); err == nil {
		t.Error("an argument must be refused: redact reads stdin")
	}
	if err := runRedact(strings.NewReader("x"), &out, []string{"--nope"}); err == nil {
		t.Error("an unknown flag must be refused")
	}
	if out.Len() != 0 {
		t.Errorf("usage errors wrote to stdout: %q", out.String())
	}
}

// redactZeros is an endless stream of '0' bytes.
type redactZeros struct{}

func (redactZeros) Read(p []byte) (int, error) {
	for i := range p {
		p[i] = '0'
	}
	return len(p), nil
}

func TestRunRedactTooLarge(t *testing.T) {
	t.Parallel()
	var out bytes.Buffer
	err := runRedact(io.LimitReader(redactZeros{}, 16<<20+1), &out, nil)
	if err == nil || !strings.Contains(err.Error(), "16 MiB") {
		t.Errorf("err = %v, want an input-size error", err)
	}
	if out.Len() != 0 {
		t.Errorf("wrote %d bytes for a refused input", out.Len())
	}
}

// The redaction corpus (internal/redact/testdata/corpus) through the
// command's own input path: nothing it names survives.
func TestRunRedactCorpus(t *testing.T) {
	t.Parallel()
	n := 0
	eachLine(t, "../../internal/redact/testdata/corpus/secrets.jsonl", func(_ int, line []byte) {
		var c struct {
			Name    string   `json:"name"`
			In      string   `json:"in"`
			Secrets []string `json:"secrets"`
		}
		if err := json.Unmarshal(line, &c); err != nil {
			t.Fatal(err)
		}
		n++
		var out bytes.Buffer
		if err := runRedact(strings.NewReader(c.In), &out, nil); err != nil {
			t.Fatalf("%s: %v", c.Name, err)
		}
		for _, s := range c.Secrets {
			if strings.Contains(out.String(), s) {
				t.Errorf("%s: %q survived\nout: %s", c.Name, s, out.String())
			}
		}
	})
	if n < 90 {
		t.Fatalf("read %d cases", n)
	}
}

// A large input is redacted in pieces: percent-encoded URLs far past the
// first 64 KiB of decoding are still looked into rather than denied
// wholesale, and a private key across a piece's natural end goes whole.
func TestRunRedactLargeInput(t *testing.T) {
	t.Parallel()
	var in strings.Builder
	urls := 0
	for i := 0; in.Len() < 400<<10; i++ {
		urls++
		fmt.Fprintf(&in, "GET /search?q=caf%%C3%%A9%%20au%%20lait&page=%d 200\n", i)
		if i == 1500 {
			in.WriteString("-----BEGIN RSA PRIVATE KEY-----\n")
			for range 40 {
				in.WriteString("MIIEowIBAAKCAQEA0Z3VS5JJcds3xfn/ygWyF8PbnGy0AHB7MhgwMbRvI0MBZhpF\n")
			}
			in.WriteString("-----END RSA PRIVATE KEY-----\n")
		}
	}
	in.WriteString("GET /reset?email=jane.doe%40example.com 302\n")
	var out bytes.Buffer
	if err := runRedact(strings.NewReader(in.String()), &out, nil); err != nil {
		t.Fatal(err)
	}
	got := out.String()
	if strings.Contains(got, "MIIEowIBAAKCAQEA") || strings.Contains(got, "jane.doe") {
		t.Fatal("a secret survived a large input")
	}
	if c := strings.Count(got, "q=caf%C3%A9%20au%20lait"); c != urls {
		t.Fatalf("%d of the %d clean URLs kept: encoded text was denied wholesale", c, urls)
	}
}
