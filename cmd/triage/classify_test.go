package main

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/triagehq/triage/internal/clock"
)

func TestClassifyLines(t *testing.T) {
	t.Parallel()
	c := classifier{clock: clock.NewStub(time.Date(2026, 11, 21, 10, 0, 0, 0, time.UTC)), rand: func() float64 { return 0.5 }}
	tests := map[string]struct {
		in   string
		want classifyOutput
	}{
		"quota is budget, never rate limit": {
			`{"provider":"openai","status":429,"body":"{\"error\":{\"code\":\"insufficient_quota\"}}"}`,
			classifyOutput{Class: "BUDGET_EXCEEDED", Retryable: true, Decision: "wait", DelayMinMS: 3600000, DelayMaxMS: 3600000, Role: "model"},
		},
		"rate limit honours Retry-After": {
			`{"provider":"openai","status":429,"headers":{"Retry-After":"20"},"attempt":2}`,
			classifyOutput{Class: "RATE_LIMITED", Retryable: true, Counts: true, RequestedDelayMS: 20000, Decision: "retry", DelayMinMS: 20000, DelayMaxMS: 20000, MaxAttempts: 5, Role: "model", Default: true},
		},
		"bad output dead-letters at the 3rd": {
			`{"error":"invalid character 'S' looking for beginning of value","attempt":3}`,
			classifyOutput{Class: "RESPONSE_INVALID", Retryable: true, Counts: true, ModelSpecific: true, Decision: "dead_letter", MaxAttempts: 3, Role: "unknown"},
		},
		"a model's answer given as a JSON object, not a string": {
			`{"provider":"ollama","stage":"llm","dialect":"openai","response":{"object":"chat.completion","choices":[{"index":0,"message":{"role":"assistant","content":"Hello"},"finish_reason":"length"}]}}`,
			classifyOutput{Class: "RESPONSE_INVALID", Retryable: true, Counts: true, ModelSpecific: true, Decision: "retry", DelayMinMS: 0, DelayMaxMS: 1000, MaxAttempts: 3, Role: "model"},
		},
		"the same answer as a string": {
			`{"provider":"ollama","stage":"llm","dialect":"openai","response":"{\"object\":\"chat.completion\",\"choices\":[{\"index\":0,\"message\":{\"role\":\"assistant\",\"content\":\"Hello\"},\"finish_reason\":\"length\"}]}"}`,
			classifyOutput{Class: "RESPONSE_INVALID", Retryable: true, Counts: true, ModelSpecific: true, Decision: "retry", DelayMinMS: 0, DelayMaxMS: 1000, MaxAttempts: 3, Role: "model"},
		},
		"an error body given as a JSON object": {
			`{"provider":"openai","status":429,"body":{"error":{"code":"insufficient_quota"}}}`,
			classifyOutput{Class: "BUDGET_EXCEEDED", Retryable: true, Decision: "wait", DelayMinMS: 3600000, DelayMaxMS: 3600000, Role: "model"},
		},
		"malformed input": {
			`{"where":"input","stage":"fetch"}`,
			classifyOutput{Class: "SCHEMA_INVALID", Decision: "dead_letter", MaxAttempts: 1, Role: "unknown"},
		},
		"aws throttle": {
			`{"provider":"aws","code":"ProvisionedThroughputExceededException","stage":"fetch"}`,
			classifyOutput{Class: "RATE_LIMITED", Retryable: true, Counts: true, Decision: "retry", DelayMinMS: 0, DelayMaxMS: 1000, MaxAttempts: 5, Role: "aws"},
		},
		"action marker failed": {
			`{"output":"{}\nACTION_OUTCOME: failed | nope","attempt":1}`,
			classifyOutput{Class: "ACTION_FAILED", Retryable: true, Counts: true, Decision: "retry", DelayMinMS: 120000, DelayMaxMS: 120000, MaxAttempts: 3, Role: "unknown"},
		},
		"aws throttle code with its HTTP 400": {
			`{"provider":"aws","status":400,"code":"ProvisionedThroughputExceededException","stage":"fetch"}`,
			classifyOutput{Class: "RATE_LIMITED", Retryable: true, Counts: true, Decision: "retry", DelayMinMS: 0, DelayMaxMS: 1000, MaxAttempts: 5, Role: "aws"},
		},
		"aws expired token with its HTTP 400": {
			`{"provider":"aws","status":400,"code":"ExpiredToken","stage":"fetch"}`,
			classifyOutput{Class: "AUTH_DENIED", Decision: "dead_letter", MaxAttempts: 1, Role: "aws"},
		},
		"the SDK's text alone": {
			`{"error":"operation error DynamoDB: UpdateItem, exceeded maximum number of attempts, 3, https response error StatusCode: 400, RequestID: R1, api error ProvisionedThroughputExceededException: The level of configured provisioned throughput for the table was exceeded.","stage":"fetch"}`,
			classifyOutput{Class: "RATE_LIMITED", Retryable: true, Counts: true, Decision: "retry", DelayMinMS: 0, DelayMaxMS: 1000, MaxAttempts: 5, Role: "aws"},
		},
		"a body-read timeout after HTTP 200": {
			`{"provider":"openai","status":200,"error":"context deadline exceeded (Client.Timeout or context cancellation while reading body)"}`,
			classifyOutput{Class: "NETWORK_TIMEOUT", Retryable: true, Counts: true, Decision: "retry", DelayMinMS: 0, DelayMaxMS: 1000, MaxAttempts: 5, Role: "model"},
		},
		"a quota message in a Go client's error beats the 429": {
			`{"provider":"openai","status":429,"error":"POST \"https://api.openai.com/v1/chat/completions\": 429 Too Many Requests {\"message\":\"You exceeded your current quota, please check your plan and billing details.\",\"type\":\"insufficient_quota\"}"}`,
			classifyOutput{Class: "BUDGET_EXCEEDED", Retryable: true, Decision: "wait", DelayMinMS: 3600000, DelayMaxMS: 3600000, Role: "model"},
		},
		"bedrock generic code refined by its message": {
			`{"provider":"bedrock","status":400,"code":"ValidationException","error":"Input is too long for requested model."}`,
			classifyOutput{Class: "TOKEN_LIMIT", Decision: "dead_letter", MaxAttempts: 1, Role: "model"},
		},
		"any provider: an unknown one at the llm stage is a model endpoint": {
			`{"provider":"acme-llm","stage":"llm","status":422,"body":"{\"detail\":\"unprocessable\"}"}`,
			classifyOutput{Class: "CLIENT_ERROR", ModelSpecific: true, Decision: "dead_letter", MaxAttempts: 1, Role: "model", Default: true},
		},
		"any provider: an unknown one at fetch is a source": {
			`{"provider":"acme-cdn","stage":"fetch","status":422}`,
			classifyOutput{Class: "SCHEMA_INVALID", Decision: "dead_letter", MaxAttempts: 1, Role: "source", Default: true},
		},
		"an OpenAI-compatible vendor's words refine its 4xx": {
			`{"provider":"groq","status":400,"body":"{\"error\":{\"message\":\"Please reduce the length of your prompt: too many tokens\",\"type\":\"invalid_request_error\"}}"}`,
			classifyOutput{Class: "TOKEN_LIMIT", Decision: "dead_letter", MaxAttempts: 1, Role: "model"},
		},
		"a 2xx with a body at the llm stage is the model's answer": {
			`{"stage":"llm","provider":"mistral","status":200,"body":"{\"choices\":[{\"message\":{\"content\":\"{\"},\"finish_reason\":\"length\"}]}"}`,
			classifyOutput{Class: "RESPONSE_INVALID", Retryable: true, Counts: true, ModelSpecific: true, Decision: "retry", DelayMinMS: 0, DelayMaxMS: 1000, MaxAttempts: 3, Role: "model"},
		},
		"a gemini answer whose prompt was blocked, by its shape": {
			`{"stage":"llm","status":200,"body":"{\"promptFeedback\":{\"blockReason\":\"SAFETY\"}}"}`,
			classifyOutput{Class: "CONTENT_POLICY", Decision: "dead_letter", MaxAttempts: 1, Role: "model"},
		},
		"an answer's shape makes an unknown provider a model endpoint": {
			`{"provider":"acme","body":"{\"candidates\":[{\"content\":{\"parts\":[{\"text\":\"{\"}]},\"finishReason\":\"MAX_TOKENS\"}]}"}`,
			classifyOutput{Class: "RESPONSE_INVALID", Retryable: true, Counts: true, ModelSpecific: true, Decision: "retry", DelayMinMS: 0, DelayMaxMS: 1000, MaxAttempts: 3, Role: "model"},
		},
		"a webhook's 200 is no answer": {
			`{"stage":"notify","status":200,"body":"{\"ok\":false}"}`,
			classifyOutput{Class: "UNKNOWN", Retryable: true, Counts: true, Decision: "retry", DelayMinMS: 0, DelayMaxMS: 1000, MaxAttempts: 5, Role: "webhook", Default: true},
		},
		"a delay in prose": {
			`{"provider":"azure","status":429,"body":"{\"error\":{\"code\":\"429\",\"message\":\"Please retry after 7 seconds.\"}}"}`,
			classifyOutput{Class: "RATE_LIMITED", Retryable: true, Counts: true, RequestedDelayMS: 7000, Decision: "retry", DelayMinMS: 7000, DelayMaxMS: 7000, MaxAttempts: 5, Role: "model", Default: true},
		},
		"not JSON":        {`{"status":`, classifyOutput{Error: "invalid input"}},
		"trailing data":   {`{"status":503} x`, classifyOutput{Error: "trailing data"}},
		"bad provider":    {`{"status":503,"provider":"gemini:pro"}`, classifyOutput{Error: "a name is"}},
		"unknown field":   {`{"stauts":500}`, classifyOutput{Error: "invalid input"}},
		"bad status":      {`{"status":42}`, classifyOutput{Error: "not an HTTP status"}},
		"nothing to say":  {`{"stage":"llm"}`, classifyOutput{Error: "nothing to classify"}},
		"unknown profile": {`{"status":500,"profile":"yolo"}`, classifyOutput{Error: "unknown retry profile"}},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			got := c.line([]byte(tc.in))
			if tc.want.Error != "" {
				if !strings.Contains(got.Error, tc.want.Error) {
					t.Fatalf("error = %q, want it to mention %q", got.Error, tc.want.Error)
				}
				return
			}
			if got.Error != "" || got.Reason == "" {
				t.Fatalf("unexpected error %q / empty reason", got.Error)
			}
			got.Reason = ""
			if got != tc.want {
				t.Fatalf("got  %+v\nwant %+v", got, tc.want)
			}
		})
	}
}

func TestClassifyStreamKeepsGoingAfterABadLine(t *testing.T) {
	t.Parallel()
	in := "{\"status\":503}\nnot json\n\n{\"status\":404,\"provider\":\"webhook\"}\n"
	var out bytes.Buffer
	if err := runClassify(strings.NewReader(in), &out, nil); err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSpace(out.String()), "\n")
	if len(lines) != 3 {
		t.Fatalf("%d output lines for 3 input lines: %q", len(lines), out.String())
	}
	var outs [3]classifyOutput
	for i, l := range lines {
		if err := json.Unmarshal([]byte(l), &outs[i]); err != nil {
			t.Fatal(err)
		}
	}
	if outs[0].Class != "UPSTREAM_UNAVAILABLE" || outs[1].Error == "" || outs[2].Class != "NOT_FOUND" {
		t.Fatalf("outputs = %+v", outs)
	}
	// The bad line says only what went wrong: no zero-valued decision
	// fields that read like an answer.
	var keys map[string]any
	if err := json.Unmarshal([]byte(lines[1]), &keys); err != nil {
		t.Fatal(err)
	}
	if _, ok := keys["error"]; !ok || keys["line"] != float64(2) || len(keys) != 2 {
		t.Fatalf("the bad line's fields: %s", lines[1])
	}
}

// TestClassifyStreamLongAndBadLines: a line over 1 MiB, a line with
// trailing garbage and a line that is not JSON are one error line each,
// and every other line is still classified.
func TestClassifyStreamLongAndBadLines(t *testing.T) {
	t.Parallel()
	long := `{"status":503,"body":"` + strings.Repeat("x", maxClassifyLine) + `"}`
	in := strings.Join([]string{
		`{"status":429}`,
		long,
		`{"status":503} {"status":404}`,
		`{"status":503}garbage`,
		"\x00\x01",
		`{"status":404,"provider":"webhook"}`,
		`{"status":502}`, // no newline at the end
	}, "\r\n")
	var out bytes.Buffer
	if err := runClassify(strings.NewReader(in), &out, nil); err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSpace(out.String()), "\n")
	if len(lines) != 7 {
		t.Fatalf("%d output lines for 7 input lines:\n%s", len(lines), out.String())
	}
	want := []struct {
		class, err string
		line       int
	}{
		{class: "RATE_LIMITED"},
		{err: "longer than 1048576 bytes", line: 2},
		{err: "trailing data", line: 3},
		{err: "trailing data", line: 4},
		{err: "invalid input", line: 5},
		{class: "NOT_FOUND"},
		{class: "UPSTREAM_UNAVAILABLE"},
	}
	for i, l := range lines {
		var got struct {
			Class, Error string
			Line         int
		}
		if err := json.Unmarshal([]byte(l), &got); err != nil {
			t.Fatalf("line %d: %v: %s", i+1, err, l)
		}
		w := want[i]
		if got.Class != w.class || !strings.Contains(got.Error, w.err) || got.Line != w.line || (w.err == "") != (got.Error == "") {
			t.Errorf("output %d = %s, want class %q error ~%q line %d", i+1, l, w.class, w.err, w.line)
		}
	}
	if len(out.String()) > 4096 {
		t.Errorf("the output echoes the long line: %d bytes", out.Len())
	}
}

// TestClassifyFlags: --json is the default and accepted; --json and
// --table together are a usage error.
func TestClassifyFlags(t *testing.T) {
	t.Parallel()
	code, out, errOut := runCLIStdin(`{"status":503}`+"\n", "classify", "--json")
	if code != 0 {
		t.Fatalf("classify --json: exit %d: %s", code, errOut)
	}
	var o classifyOutput
	if err := json.Unmarshal([]byte(out), &o); err != nil || o.Class != "UPSTREAM_UNAVAILABLE" {
		t.Errorf("classify --json printed %q (%v)", out, err)
	}
	if code, _, _ := runCLI("classify", "--json", "--table"); code != 2 {
		t.Errorf("--json --table: exit %d, want 2", code)
	}
}

// TestClassifyTableEscapesControlCharacters: a name or an error holding
// terminal escapes is printed with them escaped.
func TestClassifyTableEscapesControlCharacters(t *testing.T) {
	t.Parallel()
	in := `{"name":"story-1\u001b[2J\r\u202eevil","status":503}` + "\n" + `{"name":"x\u0007","stauts":1}` + "\n"
	var out bytes.Buffer
	if err := runClassify(strings.NewReader(in), &out, []string{"--table"}); err != nil {
		t.Fatal(err)
	}
	got := out.String()
	for _, bad := range []string{"\x1b", "\r", "\u202e", "\a"} {
		if strings.Contains(got, bad) {
			t.Errorf("the table holds a raw %q:\n%q", bad, got)
		}
	}
	if !strings.Contains(got, `story-1\x1b[2J\r\u202eevil`) {
		t.Errorf("the name is not shown escaped:\n%s", got)
	}
}

func TestCell(t *testing.T) {
	t.Parallel()
	tests := map[string]string{
		"story-000123":        "story-000123",
		"café ✓":              "café ✓",
		"a\tb\nc":             `a\tb\nc`,
		"\x1b]0;title\x07":    `\x1b]0;title\a`,
		"bidi \u202eoverride": `bidi \u202eoverride`,
		"zero\u200bwidth":     `zero\u200bwidth`,
		"c1 \u009b":           `c1 \u009b`,
		"bad \xff utf8":       `bad \xff utf8`,
		"del \x7f":            `del \x7f`,
	}
	for in, want := range tests {
		if got := cell(in); got != want {
			t.Errorf("cell(%q) = %q, want %q", in, got, want)
		}
	}
}

func TestClassifyTableOfSampleFailures(t *testing.T) {
	t.Parallel()
	files, err := filepath.Glob("../../events/failures/*.json")
	if err != nil || len(files) == 0 {
		t.Fatalf("no sample failures: %v", err)
	}
	var out bytes.Buffer
	if err := runClassify(nil, &out, append([]string{"--table"}, files...)); err != nil {
		t.Fatal(err)
	}
	table := out.String()
	for _, want := range []string{"FAILURE", "BUDGET_EXCEEDED", "CONTENT_POLICY", "ACTION_FAILED", "SCHEMA_INVALID", "INTERNAL_BUG"} {
		if !strings.Contains(table, want) {
			t.Errorf("table lacks %s:\n%s", want, table)
		}
	}
	for _, line := range strings.Split(strings.TrimSpace(table), "\n")[1:] {
		if f := strings.Fields(line); len(f) < 2 || f[1] == "-" {
			t.Errorf("a sample failure did not classify: %s", line)
		}
	}
	if got := strings.Count(table, "\n"); got != len(files)+1 {
		t.Errorf("%d table lines for %d files", got, len(files))
	}
}

func TestRunExitCodes(t *testing.T) {
	t.Parallel()
	if code, _, _ := runCLI("nope"); code != 2 {
		t.Errorf("unknown command: exit %d, want 2", code)
	}
	if code, _, _ := runCLI("classify", "--bogus"); code != 2 {
		t.Errorf("bad flag: exit %d, want 2", code)
	}
	if code, _, _ := runCLI("classify", "--help"); code != 0 {
		t.Errorf("--help: exit %d, want 0", code)
	}
	if code, _, _ := runCLI("classify", "/does/not/exist.json"); code != 1 {
		t.Errorf("missing file: exit %d, want 1", code)
	}
}

// TestEveryCommandTakesJSON: the README promises --json on every command;
// with --help each of them must accept it rather than exit 2.
func TestEveryCommandTakesJSON(t *testing.T) {
	invocations := map[string][]string{
		"backtest": {"backtest"}, "breakers": {"breakers", "list"}, "classify": {"classify"}, "dlq": {"dlq", "list"},
		"items": {"items", "get"}, "models": {"models", "list"}, "redact": {"redact"}, "report": {"report", "errors"},
		"simulate": {"simulate"}, "submit": {"submit"}, "policy": {"policy", "show"}, "console": {"console"},
		"rules": {"rules", "test"},
	}
	for name := range commands {
		args, ok := invocations[name]
		if !ok {
			t.Errorf("command %q is not covered here: add it", name)
			continue
		}
		if code, _, errOut := runCLI(append(slices.Clone(args), "--json", "--help")...); code != 0 {
			t.Errorf("triage %s --json --help: exit %d: %s", strings.Join(args, " "), code, errOut)
		}
	}
}

// TestClassifyWithRules: --rules puts the operator's rules first, as a
// function that loaded them would; the output names the rule that decided,
// or says that none matched; a bad or missing file is refused.
func TestClassifyWithRules(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	path := filepath.Join(dir, "rules.yaml")
	writeFile(t, path, `version: 1
rules:
  - name: acme-slowdown
    provider: acme
    code: E_SLOWDOWN
    class: RATE_LIMITED
    delay: 30s
  - name: teapot-at-notify
    stage: notify
    status: 418
    class: UPSTREAM_UNAVAILABLE
  - name: teapot-at-llm
    stage: llm
    status: 418
    class: CONTENT_POLICY
`)
	in := strings.Join([]string{
		`{"name":"acme","provider":"acme","status":400,"code":"E_SLOWDOWN"}`,
		`{"name":"teapot","provider":"openai","status":418,"body":"{\"error\":{\"message\":\"teapot\"}}"}`,
		`{"name":"teapot-notify","provider":"webhook","stage":"notify","status":418}`,
		`{"name":"quota","provider":"openai","status":429,"body":"{\"error\":{\"code\":\"insufficient_quota\"}}"}`,
	}, "\n") + "\n"
	code, out, errOut := runCLIStdin(in, "classify", "--rules", path)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	got := map[string]classifyOutput{}
	for _, l := range strings.Split(strings.TrimSpace(out), "\n") {
		var o classifyOutput
		if err := json.Unmarshal([]byte(l), &o); err != nil {
			t.Fatal(err)
		}
		got[o.Name] = o
	}
	for name, want := range map[string]struct {
		class, rule string
		delayMS     int64
	}{
		"acme":          {"RATE_LIMITED", "acme-slowdown", 30000},
		"teapot":        {"CONTENT_POLICY", "teapot-at-llm", 0}, // no stage given: the llm stage's, as the policy's
		"teapot-notify": {"UPSTREAM_UNAVAILABLE", "teapot-at-notify", 0},
		"quota":         {"BUDGET_EXCEEDED", "", 0},
	} {
		o := got[name]
		if o.Class != want.class || o.Rule != want.rule || o.RequestedDelayMS != want.delayMS {
			t.Errorf("%s: class %s rule %q delay %dms, want %s %q %dms (%+v)", name, o.Class, o.Rule, o.RequestedDelayMS, want.class, want.rule, want.delayMS, o)
		}
		switch {
		case want.rule != "" && !strings.HasPrefix(o.Reason, "rule "+want.rule+";"):
			t.Errorf("%s: reason %q does not name the rule", name, o.Reason)
		case want.rule == "" && !strings.Contains(o.Reason, "(no operator rule matched)"):
			t.Errorf("%s: reason %q does not say that no rule matched", name, o.Reason)
		}
	}
	// Without --rules the tables decide, and nothing speaks of rules.
	if code, out, errOut = runCLIStdin(in, "classify"); code != 0 {
		t.Fatal(errOut)
	}
	if strings.Contains(out, "rule") || !strings.Contains(out, `"class":"CLIENT_ERROR"`) {
		t.Errorf("without --rules:\n%s", out)
	}

	bad := filepath.Join(dir, "bad.yaml")
	writeFile(t, bad, "version: 1\nrules:\n  - name: x\n    status: 999\n    class: RATE_LIMITED\n")
	for file, want := range map[string]string{bad: `bad.yaml:4: rule "x": status "999"`, filepath.Join(dir, "none.yaml"): "no such file"} {
		if code, out, errOut := runCLIStdin(in, "classify", "--rules", file); code != 1 || !strings.Contains(errOut, want) || out != "" {
			t.Errorf("--rules %s: exit %d, stderr %q, stdout %q; want 1, %q and nothing classified", file, code, errOut, out, want)
		}
	}
}

func writeFile(t *testing.T, path, text string) {
	t.Helper()
	if err := os.WriteFile(path, []byte(text), 0o600); err != nil {
		t.Fatal(err)
	}
}

// TestJSONOutputEscapesTerminalControls: --json goes to a terminal as often
// as to a tool; encoding/json leaves DEL, C1 controls and Unicode format
// characters (a bidirectional override) as they are, so printJSON writes
// them as \u escapes — the same JSON, decoded, and nothing that drives or
// reorders the terminal.
func TestJSONOutputEscapesTerminalControls(t *testing.T) {
	t.Parallel()
	in := map[string]string{"error": "HTTP 500: \u202eevil\u202c \u009b2J \x7f zero\u200bwidth \u2028 café ✓"}
	var out bytes.Buffer
	if err := printJSON(&out, in); err != nil {
		t.Fatal(err)
	}
	for _, bad := range []string{"\u202e", "\u202c", "\u009b", "\x7f", "\u200b", "\u2028"} {
		if strings.Contains(out.String(), bad) {
			t.Errorf("the JSON holds a raw %q:\n%q", bad, out.String())
		}
	}
	var back map[string]string
	if err := json.Unmarshal(out.Bytes(), &back); err != nil || back["error"] != in["error"] {
		t.Errorf("the JSON decodes to %q (%v), want %q", back["error"], err, in["error"])
	}
	// classify's stream of JSON lines too.
	out.Reset()
	if err := runClassify(strings.NewReader(`{"name":"story-1\u202eevil\u009b","status":503}`+"\n"), &out, nil); err != nil {
		t.Fatal(err)
	}
	if strings.ContainsAny(out.String(), "\u202e\u009b") || !strings.Contains(out.String(), `story-1\u202eevil\u009b`) {
		t.Errorf("classify's JSON line holds a raw control or lacks the name escaped:\n%q", out.String())
	}
}
