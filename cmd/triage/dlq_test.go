package main

import (
	"bytes"
	"context"
	"encoding/json"
	"net"
	"strings"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/sqs"

	"github.com/triagehq/triage/cmd/triage/ops"
	"github.com/triagehq/triage/dev/local/localtest"
	"github.com/triagehq/triage/dev/local/stack"
	"github.com/triagehq/triage/internal/deadletter"
	"github.com/triagehq/triage/internal/failure"
	"github.com/triagehq/triage/internal/gates/budget"
	"github.com/triagehq/triage/internal/policy"
	"github.com/triagehq/triage/internal/replay"
	"github.com/triagehq/triage/internal/report"
	"github.com/triagehq/triage/internal/store"
	"github.com/triagehq/triage/internal/work"
)

// runCLI runs triage in-process and returns its exit code and output.
func runCLI(args ...string) (code int, stdout, stderr string) { return runCLIStdin("", args...) }

// runCLIStdin is runCLI with stdin.
func runCLIStdin(stdin string, args ...string) (code int, stdout, stderr string) {
	var out, errb bytes.Buffer
	code = run(args, strings.NewReader(stdin), &out, &errb)
	return code, out.String(), errb.String()
}

func TestOpsCommandsUsage(t *testing.T) {
	t.Parallel()
	tests := []struct {
		args []string
		code int
		want string // in stderr
	}{
		{[]string{"dlq"}, 2, "a verb is required"},
		{[]string{"dlq", "--help"}, 0, "usage: triage dlq VERB"},
		{[]string{"dlq", "purge"}, 2, `unknown verb "purge"`},
		{[]string{"dlq", "list", "--help"}, 0, "usage: triage dlq list"},
		{[]string{"dlq", "list", "--bogus"}, 2, "flag provided but not defined: -bogus"},
		{[]string{"dlq", "list", "--dlq", "s3"}, 2, "--dlq: unknown stage"},
		{[]string{"dlq", "list", "--class", "NOPE"}, 2, `unknown error class "NOPE"`},
		{[]string{"dlq", "list", "--since", "yesterday"}, 2, "--since"},
		{[]string{"dlq", "list", "--retryable", "maybe"}, 2, "--retryable"},
		{[]string{"dlq", "list", "--items-table", "t"}, 2, "no --fetch-queue"},
		{[]string{"dlq", "list", "--endpoint", "ftp://x"}, 2, "not an http(s) URL"},
		{[]string{"dlq", "show"}, 2, "exactly one ID"},
		{[]string{"dlq", "show", "--help"}, 0, "usage: triage dlq show"},
		{[]string{"dlq", "replay", "--help"}, 0, "usage: triage dlq replay"},
		{[]string{"dlq", "replay", "--class", "RATE_LIMITED"}, 2, "note is required"},
		{[]string{"dlq", "replay", "--note", "x"}, 2, "refusing to replay every dead letter"},
		// An empty --dlq (a script's unset variable) is every DLQ, no filter.
		{[]string{"dlq", "replay", "--note", "x", "--dlq", ""}, 2, "refusing to replay every dead letter"},
		{[]string{"dlq", "replay", "--note", "x", "--dlq", " all"}, 2, "refusing to replay every dead letter"},
		{[]string{"dlq", "replay", "--note", "x", "--class", " "}, 2, "refusing to replay every dead letter"},
		{[]string{"dlq", "replay", "--note", "x", "--class", ","}, 2, "refusing to replay every dead letter"},
		{[]string{"dlq", "replay", "--note", "x", "--item", ","}, 2, "refusing to replay every dead letter"},
		{[]string{"dlq", "resolve", "--note", "x", "--class", " "}, 2, "name dead letters to resolve"},
		{[]string{"dlq", "replay", "--note", "x", "--all", "--mode", "sideways"}, 2, "unknown replay mode"},
		{[]string{"dlq", "annotate", "id"}, 2, "--note is required"},
		{[]string{"dlq", "annotate", "--help"}, 0, "usage: triage dlq annotate"},
		{[]string{"dlq", "resolve", "--help"}, 0, "usage: triage dlq resolve"},
		{[]string{"dlq", "resolve", "x"}, 2, "--note is required"},
		{[]string{"dlq", "resolve", "--note", "gone"}, 2, "or give --all"},
		{[]string{"items", "--help"}, 0, "usage: triage items VERB"},
		{[]string{"items", "get"}, 2, "exactly one ID"},
		{[]string{"items", "get", "--help"}, 0, "usage: triage items get"},
		{[]string{"items", "list", "--state", "lost"}, 2, "--state"},
		{[]string{"items", "list", "--help"}, 0, "usage: triage items list"},
		{[]string{"items", "replay", "--note", "x"}, 2, "name items to replay"},
		{[]string{"items", "replay", "a", "--all-permanent", "--note", "x"}, 2, "not both"},
		{[]string{"items", "replay", "--help"}, 0, "usage: triage items replay"},
		{[]string{"report", "--help"}, 0, "usage: triage report VERB"},
		{[]string{"console", "--help"}, 0, "usage: triage console"},
		{[]string{"console", "extra"}, 2, "unexpected argument"},
		{[]string{"console", "--retry-profile", "nope", "--items-table", "t", "--fetch-queue", "q", "--fetch-dlq", "d", "--llm-queue", "q", "--llm-dlq", "d", "--notify-queue", "q", "--notify-dlq", "d"}, 2, "--retry-profile"},
		{[]string{"console", "--items-table", "t"}, 2, "no --fetch-queue"},
		{[]string{"report", "errors", "--help"}, 0, "usage: triage report errors"},
		{[]string{"report", "budget", "--since", "1d", "--until", "2d"}, 2, "--since must be before --until"},
		{[]string{"report", "recovery", "extra"}, 2, "unexpected argument"},
		{[]string{"report", "errors", "--timeout", "0s", "--errorlog-table", "t"}, 2, "--timeout must be positive"},
	}
	for _, tc := range tests {
		t.Run(strings.Join(tc.args, " "), func(t *testing.T) {
			t.Parallel()
			// --help and flag errors print to flagOutput (stderr); the
			// exit code and run's own message are what is checked here.
			args := tc.args
			if !strings.Contains(strings.Join(args, " "), "--endpoint") {
				args = append(args, "--endpoint=http://127.0.0.1:1")
			}
			if tc.args[len(tc.args)-1] == "--help" || len(tc.args) == 1 {
				args = tc.args
			}
			code, out, errOut := runCLI(args...)
			if code != tc.code {
				t.Fatalf("exit %d, want %d (stdout %q, stderr %q)", code, tc.code, out, errOut)
			}
			if tc.code == 2 && !strings.Contains(errOut, tc.want) {
				t.Fatalf("stderr %q, want it to contain %q", errOut, tc.want)
			}
			if out != "" {
				t.Fatalf("stdout %q on a usage error or --help", out)
			}
		})
	}
}

func TestParseWhen(t *testing.T) {
	t.Parallel()
	now := time.Date(2026, 11, 21, 12, 0, 0, 0, time.UTC)
	tests := map[string]struct {
		want time.Time
		err  bool
	}{
		"":                     {},
		"7d":                   {want: now.Add(-7 * 24 * time.Hour)},
		"2w":                   {want: now.Add(-14 * 24 * time.Hour)},
		"36h":                  {want: now.Add(-36 * time.Hour)},
		"90m":                  {want: now.Add(-90 * time.Minute)},
		"2026-11-20T08:00:00Z": {want: time.Date(2026, 11, 20, 8, 0, 0, 0, time.UTC)},
		"2026-11-20":           {want: time.Date(2026, 11, 20, 0, 0, 0, 0, time.UTC)},
		"-3d":                  {err: true},
		"d":                    {err: true},
		"7days":                {err: true},
		"soon":                 {err: true},
		// An age past what a time.Duration holds (292 years) would wrap
		// round to a time in the future.
		"200000d": {err: true},
		"20000w":  {err: true},
	}
	for in, tc := range tests {
		got, err := parseWhen(in, now)
		if (err != nil) != tc.err || !got.Equal(tc.want) {
			t.Errorf("parseWhen(%q) = %v, %v; want %v, error %v", in, got, err, tc.want, tc.err)
		}
	}
}

// opsCommands are the AWS commands TestOpsCommandsUnreachable runs against
// an endpoint that does not answer, each with the requests its first round
// trip makes at once: one, but for the error report's first class, read
// through its ClassShards partitions together.
var opsCommands = []struct {
	args     []string
	requests int
}{
	{[]string{"dlq", "list", "--stack", "s"}, 1},
	{[]string{"dlq", "replay", "--all", "--note", "x", "--stack", "s"}, 1},
	{[]string{"items", "get", "x", "--items-table", "t"}, 1},
	{[]string{"report", "errors", "--errorlog-table", "t"}, store.ClassShards},
	{[]string{"models", "list", "--models-table", "t"}, 1},
	{[]string{"breakers", "reset", "api.openai.com", "--breakers-table", "t"}, 1},
}

// TestOpsCommandsUnreachable: an endpoint nobody listens on exits 1, naming
// the endpoint; one that resets every connection is tried the policy's CLI attempts
// times for each request of the command's first round trip and never
// again, so an unreachable endpoint costs one round trip's attempts, with
// backoffs of at most half a second (loadAWSConfig's cap).
func TestOpsCommandsUnreachable(t *testing.T) {
	t.Parallel()
	for _, c := range opsCommands {
		args := c.args
		code, out, errOut := runCLI(append(args, "--endpoint", "http://127.0.0.1:1", "--region", "us-east-1")...)
		if code != 1 || out != "" || !strings.Contains(errOut, "cannot reach http://127.0.0.1:1") {
			t.Fatalf("%v: exit %d, stdout %q, stderr %q", args, code, out, errOut)
		}
	}

	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ln.Close() })
	var accepted atomic.Int64
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			accepted.Add(1)
			c.(*net.TCPConn).SetLinger(0) // close with a reset, as a dead peer does
			c.Close()
		}
	}()
	endpoint := "http://" + ln.Addr().String()
	for _, c := range opsCommands {
		args := c.args
		before := accepted.Load()
		code, out, errOut := runCLI(append(args, "--endpoint", endpoint, "--region", "us-east-1")...)
		if code != 1 || out != "" || !strings.Contains(errOut, "cannot reach "+endpoint) {
			t.Fatalf("%v: exit %d, stdout %q, stderr %q", args, code, out, errOut)
		}
		if n, want := accepted.Load()-before, int64(c.requests*policy.CLICalls().MaxAttempts); n != want {
			t.Fatalf("%v: %d connections to an endpoint that resets each, want %d (%d attempts of %d requests)", args, n, want, policy.CLICalls().MaxAttempts, c.requests)
		}
	}

	cfg, err := loadAWSConfig(t.Context(), endpoint, "us-east-1", "", cliRequestTimeout)
	if err != nil {
		t.Fatal(err)
	}
	const maxBackoff = 500 * time.Millisecond
	r := cfg.Retryer()
	if r.MaxAttempts() != policy.CLICalls().MaxAttempts {
		t.Fatalf("the retryer makes %d attempts, want %d", r.MaxAttempts(), policy.CLICalls().MaxAttempts)
	}
	for attempt := 1; attempt <= 8; attempt++ {
		d, err := r.RetryDelay(attempt, &net.OpError{Op: "dial", Err: syscall.ECONNREFUSED})
		if err != nil || d > maxBackoff {
			t.Fatalf("backoff before attempt %d: %v, %v; want at most %v", attempt+1, d, err, maxBackoff)
		}
	}
}

// opsEnv is a moto server with a triage stack, seeded through the
// libraries the functions use.
type opsEnv struct {
	url, stack string
	items      *store.Items
	sqs        *sqs.Client
	st         *stack.Stack
}

func setupOps(t *testing.T) *opsEnv {
	t.Helper()
	ctx, cancel := context.WithTimeout(t.Context(), 60*time.Second)
	defer cancel()
	env := localtest.Stack(t, nil)
	st := env.Stack
	db := dynamodb.NewFromConfig(env.AWS)
	e := &opsEnv{url: env.Endpoint, stack: st.Name, st: st, sqs: sqs.NewFromConfig(env.AWS),
		items: &store.Items{DB: db, Table: st.ItemsTable(), ParkedTable: st.ParkedTable()}}
	now := time.Now().UTC()
	log := &store.ErrorLog{DB: db, Table: st.ErrorLogTable()}
	dead := func(id string, stg work.Stage, c work.Class, withMessage bool) {
		attempts := map[work.Stage]int{stg: 1}
		if err := e.items.Put(ctx, store.Item{ID: id, Kind: store.KindStory, CorrelationID: "corr-" + id, Status: work.Fetched,
			State: work.Deadletter, Stage: stg, Attempts: attempts, FailureCount: 1, EnrichmentStatus: work.EnrichmentPermanentFailure,
			LastError: &store.LastError{Component: stg, ErrorClass: c, Error: "boom", FailedAt: now}, LastFailureAt: now, UpdatedAt: now}); err != nil {
			t.Fatal(err)
		}
		entry := store.LogEntry{ItemID: id, Stage: stg, Class: c, Attempt: 1, MessageID: "m-" + id, OccurredAt: now, Message: "boom"}
		if id == "p1" { // a source's 404: only the default by status decided it
			entry.Message, entry.Default = "source GET https://news.example.com/a/8812?k=v: HTTP 404: gone", true
		}
		if err := log.Append(ctx, entry); err != nil {
			t.Fatal(err)
		}
		if !withMessage {
			return
		}
		body, err := deadletter.Build(deadletter.Input{ItemID: id, CorrelationID: "corr-" + id, Stage: stg, Err: failure.New(c, "boom"),
			Failure: failure.Of(c, "test"), Attempts: attempts, FirstFailureAt: now, LastFailureAt: now}).Marshal()
		if err != nil {
			t.Fatal(err)
		}
		if _, err := e.sqs.SendMessage(ctx, &sqs.SendMessageInput{QueueUrl: aws.String(st.DLQURL(stg)), MessageBody: aws.String(string(body))}); err != nil {
			t.Fatal(err)
		}
	}
	dead("d1", work.LLM, work.AuthDenied, true)
	dead("d2", work.Notify, work.NotFound, true)
	dead("p1", work.Fetch, work.NotFound, false) // its dead letter expired
	b, err := budget.New(db, st.Outputs["BudgetTableName"], 6000, 3000)
	if err != nil {
		t.Fatal(err)
	}
	for range 3 {
		_ = b.Charge(ctx, now)
	}
	return e
}

// emptyOps is a stack with nothing on its queues or in its tables.
func emptyOps(t *testing.T) *opsEnv {
	t.Helper()
	env := localtest.Stack(t, nil)
	return &opsEnv{url: env.Endpoint, stack: env.Stack.Name, st: env.Stack, sqs: sqs.NewFromConfig(env.AWS)}
}

// cli runs triage against the stack and wants exit 0; the commands that
// read the DLQs read them with short polls.
func (e *opsEnv) cli(t *testing.T, args ...string) string {
	t.Helper()
	args = append(args, "--endpoint", e.url, "--region", "us-east-1", "--stack", e.stack)
	if args[0] == "dlq" || (args[0] == "items" && args[1] == "replay") {
		args = append(args, "--wait", "0s")
	}
	code, out, errOut := runCLI(args...)
	if code != 0 {
		t.Fatalf("triage %v: exit %d\nstdout %s\nstderr %s", args, code, out, errOut)
	}
	return out
}

// cliStoppedAtNotify runs `triage dlq <verb> --all --json` against the
// stack with the notify DLQ named as a queue that does not exist, and wants
// exit 1: the run stops there, after the DLQs read before it.
func (e *opsEnv) cliStoppedAtNotify(t *testing.T, verb, note string) (out, errOut string) {
	t.Helper()
	gone := strings.TrimSuffix(e.st.DLQURL(work.Notify), "/") + "-gone"
	code, out, errOut := runCLI("dlq", verb, "--all", "--note", note, "--json", "--notify-dlq", gone,
		"--endpoint", e.url, "--region", "us-east-1", "--stack", e.stack, "--wait", "0s")
	if code != 1 {
		t.Fatalf("exit %d, want 1\nstdout %s\nstderr %s", code, out, errOut)
	}
	return out, errOut
}

func decode[T any](t *testing.T, s string) T {
	t.Helper()
	var v T
	if err := json.Unmarshal([]byte(s), &v); err != nil {
		t.Fatalf("decode %q: %v", s, err)
	}
	return v
}

// TestOpsCommandsMoto runs the operator workflow against a moto stack found
// by --stack: list, show, annotate, dry-run, replay, items, reports.
func TestOpsCommandsMoto(t *testing.T) {
	t.Parallel()
	e := setupOps(t)

	dls := decode[[]replay.DeadLetter](t, e.cli(t, "dlq", "list", "--json"))
	if len(dls) != 2 {
		t.Fatalf("dlq list: %+v", dls)
	}
	if out := e.cli(t, "dlq", "list"); !strings.Contains(out, "AUTH_DENIED") || !strings.Contains(out, "replayable") || !strings.Contains(out, "2 dead letters") {
		t.Fatalf("dlq list table:\n%s", out)
	}
	if out := e.cli(t, "dlq", "list", "--by-class"); !strings.Contains(out, "NOT_FOUND") || !strings.Contains(out, "CLASS") {
		t.Fatalf("dlq list --by-class:\n%s", out)
	}
	if out := e.cli(t, "dlq", "list", "--class", "NOT_FOUND", "--json"); len(decode[[]replay.DeadLetter](t, out)) != 1 {
		t.Fatalf("filtered list: %s", out)
	}

	if out := e.cli(t, "dlq", "show", "d1"); !strings.Contains(out, `"dead_letter_id"`) || !strings.Contains(out, "== item d1") ||
		!strings.Contains(out, "deadletter at llm") || !strings.Contains(out, "== error log") {
		t.Fatalf("dlq show:\n%s", out)
	}
	e.cli(t, "dlq", "annotate", "d1", "--note", "key rotated at 10:02", "--by", "ana")
	show := decode[showOutput](t, e.cli(t, "dlq", "show", "d1", "--json"))
	if len(show.DeadLetters) != 1 || len(show.DeadLetters[0].Payload.Replay.Notes) != 1 || show.Item == nil ||
		len(show.Item.Notes) != 1 || show.Item.Notes[0].By != "ana" || len(show.Errors) != 2 ||
		show.Errors[1].Kind != store.LogNote || show.Errors[1].Message != "key rotated at 10:02" {
		t.Fatalf("dlq show --json after annotate: %+v", show)
	}

	dry := decode[replay.Summary](t, e.cli(t, "dlq", "replay", "--class", "AUTH_DENIED", "--note", "key rotated", "--dry-run", "--json"))
	if !dry.DryRun || dry.Replayed != 1 {
		t.Fatalf("dry run: %+v", dry)
	}
	sum := decode[replay.Summary](t, e.cli(t, "dlq", "replay", "--class", "AUTH_DENIED", "--note", "key rotated", "--by", "ana", "--json"))
	if sum.Replayed != 1 || sum.Items[0].ItemID != "d1" || sum.Items[0].Target != work.LLM {
		t.Fatalf("replay: %+v", sum)
	}
	it := decode[ops.ItemView](t, e.cli(t, "items", "get", "d1", "--json"))
	if it.State != work.Queued || it.ReplayCount != 1 || it.Replays[0].By != "ana" || it.Progress != 33 {
		t.Fatalf("items get: %+v", it)
	}
	if out := e.cli(t, "items", "get", "d1"); !strings.Contains(out, "fetched (33%)") || !strings.Contains(out, "fetch=1 llm=0 notify=0") {
		t.Fatalf("items get table (fetch succeeded: one attempt):\n%s", out)
	}

	dead := decode[[]ops.ItemView](t, e.cli(t, "items", "list", "--state", "deadletter", "--json"))
	if len(dead) != 2 {
		t.Fatalf("items list --state deadletter: %+v", dead)
	}
	if out := e.cli(t, "items", "replay", "p1", "--note", "source restored"); !strings.Contains(out, "replayed 1") {
		t.Fatalf("items replay:\n%s", out)
	}

	errs := decode[[]report.ClassRow](t, e.cli(t, "report", "errors", "--since", "1d", "--json"))
	if len(errs) != 2 || errs[0].Class != work.NotFound || errs[0].Errors != 2 {
		t.Fatalf("report errors: %+v", errs)
	}
	top := decode[[]report.FailingItem](t, e.cli(t, "report", "top-failing", "--json"))
	if len(top) != 1 || top[0].ItemID != "d2" {
		t.Fatalf("report top-failing (d1 and p1 were replayed): %+v", top)
	}
	if out := e.cli(t, "report", "budget"); !strings.Contains(out, "0.006") || !strings.Contains(out, "BLOCKED") {
		t.Fatalf("report budget:\n%s", out)
	}
	unknown := decode[[]report.UnknownRow](t, e.cli(t, "report", "unknown", "--since", "1d", "--json"))
	if len(unknown) != 1 || unknown[0].Count != 1 || unknown[0].Stage != work.Fetch || unknown[0].Status != 404 ||
		unknown[0].Shape != "source GET https://news.example.com/a/<id>: HTTP <n>: gone" || !strings.Contains(unknown[0].Sample, "8812") {
		t.Fatalf("report unknown: %+v", unknown)
	}
	if out := e.cli(t, "report", "unknown"); !strings.Contains(out, "FINGERPRINT") || !strings.Contains(out, unknown[0].ID) ||
		!strings.Contains(out, "NOT_FOUND") || !strings.Contains(out, "1 family of 1 failure nothing recognised") {
		t.Fatalf("report unknown table:\n%s", out)
	}
	for _, verb := range []string{"recovery", "repeated"} {
		e.cli(t, "report", verb)
	}
	// Closing what will not be replayed: d2 (an item's dead letter) and a
	// malformed message, by its DLQ message id.
	body, err := deadletter.Build(deadletter.Input{ItemID: "message:m-bad", Stage: work.Fetch, Err: failure.New(work.SchemaInvalid, "bad"),
		Failure: failure.Of(work.SchemaInvalid, "test"), Attempts: map[work.Stage]int{work.Fetch: 1},
		FirstFailureAt: time.Now(), LastFailureAt: time.Now(), Body: `{"item_id":"x y"}`}).Marshal()
	if err != nil {
		t.Fatal(err)
	}
	sent, err := e.sqs.SendMessage(t.Context(), &sqs.SendMessageInput{QueueUrl: aws.String(e.st.DLQURL(work.Fetch)), MessageBody: aws.String(string(body))})
	if err != nil {
		t.Fatal(err)
	}
	badID := aws.ToString(sent.MessageId)
	if out := e.cli(t, "dlq", "show", badID); !strings.Contains(out, `x y`) {
		t.Fatalf("dlq show of a malformed message lacks its body:\n%s", out)
	}
	res := decode[replay.ResolveSummary](t, e.cli(t, "dlq", "resolve", "d2", badID, "--note", "channel deleted; bad producer fixed", "--by", "ana", "--json"))
	if res.Resolved != 2 || res.Errors != 0 {
		t.Fatalf("dlq resolve: %+v", res)
	}
	if left := decode[[]replay.DeadLetter](t, e.cli(t, "dlq", "list", "--json")); len(left) != 0 {
		t.Fatalf("dead letters left after resolve: %+v", left)
	}
	if it := decode[ops.ItemView](t, e.cli(t, "items", "get", "d2", "--json")); it.Resolution == nil || it.Resolution.By != "ana" || it.State != work.Deadletter {
		t.Fatalf("items get d2 after resolve: %+v", it)
	}
	resolved := decode[[]store.Resolution](t, e.cli(t, "report", "resolved", "--json"))
	if len(resolved) != 2 || resolved[0].Note != "channel deleted; bad producer fixed" {
		t.Fatalf("report resolved: %+v", resolved)
	}
	if out := e.cli(t, "report", "resolved"); !strings.Contains(out, "message:m-bad") || !strings.Contains(out, "2 dead letters resolved") {
		t.Fatalf("report resolved table:\n%s", out)
	}

	code, _, errOut := runCLI("items", "get", "ghost", "--endpoint", e.url, "--region", "us-east-1", "--stack", e.stack)
	if code != 1 || !strings.Contains(errOut, `item "ghost" does not exist`) {
		t.Fatalf("items get ghost: %d %q", code, errOut)
	}
}

func TestMain(m *testing.M) { localtest.Main(m) }

// TestDLQReplayThatStopsPrintsWhatItDid: a replay that stops on a DLQ it
// cannot read has already replayed (and deleted the dead letters of) what
// the DLQs before it held: it prints those outcomes with the error, so the
// operator learns what changed — a second run no longer sees them.
func TestDLQReplayThatStopsPrintsWhatItDid(t *testing.T) {
	t.Parallel()
	e := setupOps(t)
	out, errOut := e.cliStoppedAtNotify(t, "replay", "key rotated")
	sum := decode[replay.Summary](t, out)
	if sum.Replayed != 1 || len(sum.Items) != 1 || sum.Items[0].ItemID != "d1" {
		t.Fatalf("summary %+v: want d1's replay, made before the notify DLQ failed\nstderr %s", sum, errOut)
	}
}

// TestDLQShowPrintsASpecRedacted: a Scheduler run's spec its sender put on
// the fetch DLQ is neither a triage payload nor an envelope; `dlq show`
// prints it — the operator is told to submit it again — through redaction:
// its webhook URL (a Slack webhook's path is its secret), a source URL's
// password and its metadata are the producer's.
func TestDLQShowPrintsASpecRedacted(t *testing.T) {
	t.Parallel()
	e := emptyOps(t)
	const (
		hook = "abcdefghijklmnopqrstuvwx"
		pass = "Hunter2Hunter2"
		tok  = "cbt_9f8e7d6c5b4a39281706"
	)
	spec := `{"item_id":"run-0001","kind":"action","source_url":"https://ops:` + pass + `@tickets.example/q",` +
		`"webhook_url":"https://hooks.slack.com/services/T0AAAAAAA/B0BBBBBBB/` + hook + `","metadata":{"callback_token":"` + tok + `"}}`
	sent, err := e.sqs.SendMessage(t.Context(), &sqs.SendMessageInput{QueueUrl: aws.String(e.st.DLQURL(work.Fetch)), MessageBody: aws.String(spec)})
	if err != nil {
		t.Fatal(err)
	}
	out := e.cli(t, "dlq", "show", aws.ToString(sent.MessageId), "--dlq", "fetch")
	for _, s := range []string{hook, pass, tok} {
		if strings.Contains(out, s) {
			t.Errorf("dlq show prints %q:\n%s", s, out)
		}
	}
	for _, s := range []string{`"item_id":"run-0001"`, "tickets.example", "hooks.slack.com", "callback_token"} {
		if !strings.Contains(out, s) {
			t.Errorf("dlq show lacks the spec's %s:\n%s", s, out)
		}
	}
}

// TestDLQResolveThatStopsPrintsWhatItDid: a resolve that stops on a DLQ it
// cannot read has already resolved (and deleted) what the DLQs before it
// held: it prints those with the error and exits 1, as a replay does.
func TestDLQResolveThatStopsPrintsWhatItDid(t *testing.T) {
	t.Parallel()
	e := setupOps(t)
	out, errOut := e.cliStoppedAtNotify(t, "resolve", "given up")
	if out == "" {
		t.Fatalf("no summary of what was resolved before the notify DLQ failed\nstderr %s", errOut)
	}
	sum := decode[replay.ResolveSummary](t, out)
	if sum.Resolved != 1 || len(sum.Items) != 1 || sum.Items[0].ItemID != "d1" {
		t.Fatalf("summary %+v: want d1's resolution, made before the notify DLQ failed\nstderr %s", sum, errOut)
	}
}

// TestDLQShowEscapesTheItemID: a malformed message's dead letter names the
// item id its body held, read leniently — a JSON escape can make it any
// character; `dlq show` prints it through cell, as the tables do, so an
// escape sequence in it does not drive the operator's terminal.
func TestDLQShowEscapesTheItemID(t *testing.T) {
	t.Parallel()
	e := emptyOps(t)
	id := "x\x1b]52;c;Y3VybCBldmlsfHNo\x07\r"
	body, err := deadletter.Build(deadletter.Input{ItemID: id, Stage: work.LLM, Err: failure.New(work.SchemaInvalid, "no such item"),
		Failure: failure.Of(work.SchemaInvalid, "test"), Attempts: map[work.Stage]int{work.LLM: 1},
		FirstFailureAt: time.Now(), LastFailureAt: time.Now(), Body: `{"item_id":"x\u001b]52;c;Y3VybCBldmlsfHNo\u0007\r","stage":"llm"}`}).Marshal()
	if err != nil {
		t.Fatal(err)
	}
	sent, err := e.sqs.SendMessage(t.Context(), &sqs.SendMessageInput{QueueUrl: aws.String(e.st.DLQURL(work.LLM)), MessageBody: aws.String(string(body))})
	if err != nil {
		t.Fatal(err)
	}
	out := e.cli(t, "dlq", "show", aws.ToString(sent.MessageId))
	if strings.ContainsAny(out, "\x1b\x07\r") {
		t.Fatalf("dlq show prints raw control characters:\n%q", out)
	}
	if !strings.Contains(out, `x\x1b]52;c;`) {
		t.Fatalf("dlq show lacks the item id, escaped:\n%q", out)
	}
}

// TestItemsReplayOfATypoExits1: `items replay typo-id` exits 1 naming the
// id, as `dlq resolve typo-id` does: an id that matches nothing is an
// error for both.
func TestItemsReplayOfATypoExits1(t *testing.T) {
	t.Parallel()
	e := emptyOps(t)
	for _, verb := range [][]string{{"items", "replay"}, {"dlq", "resolve"}} {
		args := append(verb, "typo-id", "--note", "fixed", "--endpoint", e.url, "--region", "us-east-1", "--stack", e.stack, "--wait", "0s")
		code, out, errOut := runCLI(args...)
		if code != 1 || !strings.Contains(errOut, "typo-id") {
			t.Fatalf("triage %v: exit %d, want 1 naming the id\nstdout %s\nstderr %s", verb, code, out, errOut)
		}
	}
}
