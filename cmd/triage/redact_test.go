package main

import (
	"bytes"
	"errors"
	"flag"
	"io"
	"strings"
	"testing"

	"github.com/triagehq/triage/shared/redact"
)

func TestRunRedact(t *testing.T) {
	t.Parallel()
	tests := map[string]struct {
		in      string
		want    string
		secrets []string
	}{
		"text line by line, endings kept": {
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
