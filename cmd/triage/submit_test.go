package main

import (
	"bytes"
	"errors"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/sqs"

	"github.com/triagehq/triage/dev/local/localtest"
	"github.com/triagehq/triage/internal/intake"
	"github.com/triagehq/triage/internal/work"
)

const goodNDJSON = `{"item_id":"n1","source_url":"https://news.example.com/1","webhook_url":"https://hooks.example.com/t"}
{"item_id":"n2","kind":"action","source_url":"https://tasks.example.com/2","webhook_url":"https://hooks.example.com/t","metadata":{"cron":"daily"}}

{"item_id":"n3","source_url":"https://news.example.com/3","webhook_url":"https://hooks.example.com/t","future_field":1}
`

func TestSubmitDryRun(t *testing.T) {
	t.Parallel()
	tests := map[string]struct {
		stdin string
		args  []string
		code  int
		out   []string
	}{
		"ndjson on stdin": {goodNDJSON, nil, 0, []string{"3 valid, 0 invalid (dry run: nothing sent)"}},
		"a bad line is reported with its number": {
			goodNDJSON + `{"item_id":"n4","source_url":"ftp://x/4","webhook_url":"https://hooks.example.com/t"}` + "\nnot json\n",
			nil, exitPartial, []string{"3 valid, 2 invalid", "5 ", "n4", "http:// or https://", "6 ", "not a JSON object"}},
		"nothing valid": {"{}\n", nil, 1, []string{"0 valid, 1 invalid", "item_id is required"}},
		"empty input":   {"", nil, 1, nil},
		// A line over SQS's message limit is one invalid line: the lines
		// around it are read, and a long line within the limit is read
		// whole (its unknown field is ignored, as the fetch stage does).
		"lines of any length": {`{"item_id":"long","source_url":"https://news.example.com/l","webhook_url":"https://hooks.example.com/t","padding":"` +
			strings.Repeat("x", 100<<10) + "\"}\n" + `{"item_id":"huge","pad":"` + strings.Repeat("y", 300<<10) + "\"}\n" + goodNDJSON,
			nil, exitPartial, []string{"4 valid, 1 invalid", "2 ", "307227 bytes, over SQS's 262144-byte message limit"}},
		"csv": {"item_id,kind,source_url,webhook_url,metadata.team\nc1,story,https://news.example.com/c1,https://hooks.example.com/t,news\nc2,video,https://news.example.com/c2,https://hooks.example.com/t,\n",
			[]string{"--format", "csv"}, exitPartial, []string{"1 valid, 1 invalid", "3 ", "c2", `kind "video"`}},
		"one item from flags": {"", []string{"--id", "f1", "--source-url", "https://news.example.com/f1", "--webhook-url", "https://hooks.example.com/t",
			"--metadata", "team=ops", "--kind", "document"}, 0, []string{"1 valid"}},
		"one bad item from flags": {"", []string{"--id", "f1", "--source-url", "https://news.example.com/f1"}, 1, []string{"webhook_url is required"}},
		"csv notice columns": {"item_id,kind,source_url,webhook_url,notices.failed,notices.retry_scheduled\n" +
			"a1,action,https://t.example.com/1,https://hooks.example.com/t,false,true\n" +
			"a2,action,https://t.example.com/2,https://hooks.example.com/t,,\n" +
			"a3,action,https://t.example.com/3,https://hooks.example.com/t,maybe,\n",
			[]string{"--format", "csv"}, exitPartial, []string{"2 valid, 1 invalid", "a3", `notices.failed "maybe" is not true or false`}},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			code, out, errOut := runCLIStdin(tc.stdin, append([]string{"submit", "--dry-run"}, tc.args...)...)
			if code != tc.code {
				t.Fatalf("exit %d, want %d\nstdout %s\nstderr %s", code, tc.code, out, errOut)
			}
			for _, w := range tc.out {
				if !strings.Contains(out, w) {
					t.Errorf("stdout lacks %q:\n%s", w, out)
				}
			}
			// A dry run sends nothing and says so; it never counts "sent"
			// or "rejected" (the words of a real submit).
			if said := sentWords.FindString(out + errOut); said != "" {
				t.Errorf("a dry run says %q:\n%s%s", said, out, errOut)
			}
		})
	}
}

// sentWords are a real submit's counts.
var sentWords = regexp.MustCompile(`\d+ (sent|rejected|failed)`)

// brokenReader yields its text, then fails.
type brokenReader struct {
	text string
	err  error
}

func (r *brokenReader) Read(p []byte) (int, error) {
	if r.text == "" {
		return 0, r.err
	}
	n := copy(p, r.text)
	r.text = r.text[n:]
	return n, nil
}

// TestSubmitInputThatBreaksOff: input that fails mid-way still reports
// every line read before it — the invalid ones listed — and the exit
// status counts what was read, with the rest of the input as one line that
// was not.
func TestSubmitInputThatBreaksOff(t *testing.T) {
	t.Parallel()
	in := &brokenReader{text: goodNDJSON + "not json\n", err: errors.New("connection reset by peer")}
	var out, errb bytes.Buffer
	code := run([]string{"submit", "--dry-run"}, in, &out, &errb)
	if code != exitPartial {
		t.Fatalf("exit %d, want %d\n%s%s", code, exitPartial, out.String(), errb.String())
	}
	for _, w := range []string{"5 ", "not a JSON object", "the rest of the input was not read", "connection reset by peer",
		"3 valid, 1 invalid, 1 not read (dry run: nothing sent)"} {
		if !strings.Contains(out.String(), w) {
			t.Errorf("stdout lacks %q:\n%s", w, out.String())
		}
	}
	if !strings.Contains(errb.String(), "partial: 3 valid") {
		t.Errorf("stderr %q", errb.String())
	}
}

func TestSubmitUsage(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"submit", "--id", "a", "file.ndjson"}, "not both"},
		{[]string{"submit", "a", "b"}, "one FILE"},
		{[]string{"submit", "--kind", "story"}, "describe one item"},
		{[]string{"submit", "--notify-failed"}, "describe one item"},
		{[]string{"submit", "--id", "a", "--source-url", "https://a.example/", "--webhook-url", "https://h.example/", "--notify-failed=perhaps"}, "not true or false"},
		{[]string{"submit", "--format", "xml"}, `--format "xml"`},
		{[]string{"submit", "--id", "a", "--source-url", "https://a.example/", "--webhook-url", "https://h.example/", "--metadata", "novalue"}, "KEY=VALUE"},
		{[]string{"submit", "/nonexistent/items.ndjson"}, "no such file"},
		{[]string{"submit", "--id", "a", "--source-url", "https://a.example/", "--webhook-url", "https://h.example/", "--endpoint", "http://127.0.0.1:1"}, "no --fetch-queue"},
	} {
		code, _, errOut := runCLIStdin("", tc.args...)
		if code != 2 || !strings.Contains(errOut, tc.want) {
			t.Errorf("triage %v: exit %d %q, want 2 and %q", tc.args, code, errOut, tc.want)
		}
	}
	code, _, errOut := runCLIStdin("item_id,color\n", "submit", "--format", "csv")
	if code != 2 || !strings.Contains(errOut, `"color"`) {
		t.Errorf("unknown CSV column: %d %q", code, errOut)
	}
}

// triage submit against a moto stack: the valid lines reach the fetch queue
// as the producer contract's messages, the bad one is listed, the exit
// status says partial.
func TestSubmitMoto(t *testing.T) {
	t.Parallel()
	env := localtest.Stack(t, nil)
	dir := t.TempDir()
	file := filepath.Join(dir, "items.ndjson")
	var b strings.Builder
	b.WriteString(goodNDJSON)
	for i := range 9 {
		b.WriteString(`{"item_id":"m` + string(rune('a'+i)) + `","source_url":"https://news.example.com/m","webhook_url":"https://hooks.example.com/t"}` + "\n")
	}
	b.WriteString(`{"item_id":"bad"}` + "\n")
	if err := os.WriteFile(file, []byte(b.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	code, out, errOut := runCLIStdin("", "submit", file, "--endpoint", env.Endpoint, "--region", "us-east-1", "--stack", env.Stack.Name, "--json")
	if code != exitPartial {
		t.Fatalf("exit %d, want %d\n%s\n%s", code, exitPartial, out, errOut)
	}
	sum := decode[submitSummary](t, out)
	if sum.Sent != 12 || sum.Rejected != 1 || len(sum.Items) != 1 || sum.Items[0].Line != 14 || sum.Items[0].ItemID != "bad" {
		t.Fatalf("summary %+v", sum)
	}
	q := sqs.NewFromConfig(env.AWS)
	got := map[string]bool{}
	for range 10 {
		res, err := q.ReceiveMessage(t.Context(), &sqs.ReceiveMessageInput{QueueUrl: aws.String(env.Stack.QueueURL(work.Fetch)), MaxNumberOfMessages: 10})
		if err != nil {
			t.Fatal(err)
		}
		for _, m := range res.Messages {
			spec, _, err := intake.Decode(aws.ToString(m.Body))
			if err != nil {
				t.Fatalf("queued %q: %v", aws.ToString(m.Body), err)
			}
			got[spec.ItemID] = true
		}
		if len(got) == 12 {
			break
		}
	}
	if len(got) != 12 || !got["n2"] || got["bad"] {
		t.Fatalf("fetch queue holds %v", got)
	}

	// Input that breaks off after 12 lines: those sent are counted, the
	// exit status is partial, and the summary says so.
	var outb, errb bytes.Buffer
	code = run([]string{"submit", "-", "--endpoint", env.Endpoint, "--region", "us-east-1", "--stack", env.Stack.Name, "--json"},
		&brokenReader{text: b.String(), err: errors.New("unexpected EOF")}, &outb, &errb)
	sum = decode[submitSummary](t, outb.String())
	if code != exitPartial || sum.Sent != 12 || sum.Rejected != 1 || sum.Failed != 1 || !strings.Contains(errb.String(), "partial: 12 sent, 1 rejected, 1 failed") {
		t.Fatalf("broken input: exit %d, summary %+v\n%s", code, sum, errb.String())
	}

	// The notice flags reach the message as the owner's explicit choices.
	code, out, errOut = runCLIStdin("", "submit", "--id", "task-1", "--kind", "action", "--source-url", "https://tasks.example.com/1",
		"--webhook-url", "https://hooks.example.com/t", "--notify-failed=false", "--notify-retry-scheduled",
		"--endpoint", env.Endpoint, "--region", "us-east-1", "--stack", env.Stack.Name)
	if code != 0 {
		t.Fatalf("exit %d\n%s\n%s", code, out, errOut)
	}
	var body string
	for range 10 {
		res, err := q.ReceiveMessage(t.Context(), &sqs.ReceiveMessageInput{QueueUrl: aws.String(env.Stack.QueueURL(work.Fetch)), MaxNumberOfMessages: 10})
		if err != nil {
			t.Fatal(err)
		}
		for _, m := range res.Messages {
			if strings.Contains(aws.ToString(m.Body), `"task-1"`) {
				body = aws.ToString(m.Body)
			}
		}
		if body != "" {
			break
		}
	}
	if !strings.Contains(body, `"notices":{"failed":false,"retry_scheduled":true}`) {
		t.Fatalf("queued %q", body)
	}
}
