package console_test

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/sqs"
	sqstypes "github.com/aws/aws-sdk-go-v2/service/sqs/types"
	"github.com/chromedp/chromedp"

	"github.com/triagehq/triage/dev/fakes"
	"github.com/triagehq/triage/dev/local/devstack"
	"github.com/triagehq/triage/dev/local/lambda/lambdatest"
	"github.com/triagehq/triage/dev/local/localtest"
	"github.com/triagehq/triage/dev/local/moto"
	"github.com/triagehq/triage/dev/soak"
	"github.com/triagehq/triage/internal/intake"
	"github.com/triagehq/triage/internal/work"

	"github.com/triagehq/triage/internal/store"
)

// ChromiumHint says how to get the browser the browser test drives.
const ChromiumHint = "apt-get install -y chromium (make test installs it)"

// requireChromium returns the path of Debian's chromium: a skip when it is
// missing, a failure in CI (CI=true), like moto.
func requireChromium(t *testing.T) string {
	t.Helper()
	for _, name := range []string{"chromium", "chromium-browser"} {
		if p, err := exec.LookPath(name); err == nil {
			return p
		}
	}
	if os.Getenv("CI") == "true" {
		t.Fatalf("chromium is not installed; in CI it is required: %s", ChromiumHint)
	}
	t.Skipf("chromium is not installed: %s", ChromiumHint)
	return ""
}

// Bounds of the browser test.
const (
	browserSettle = 4 * time.Minute
	browserDone   = 4 * time.Minute
	// browserStep bounds one step of the page: a navigation or a click
	// and what it must show.
	browserStep = 2 * time.Minute
)

// TestBrowserReplayADeadLetteredClass is the console as an operator uses
// it: the local stack (moto, the real bootstraps, the fakes, as
// `triage-local up` runs it) with a seeded fault mix — three articles that
// are not published at the first fetch, two plain items, and the soak's
// planted-secret items, whose faults echo API keys, bearer tokens and URL
// tokens into error texts — and `triage console` against it. In headless
// Chromium it opens the printed URL, finds the dead-lettered class on the
// overview, replays it with a note, confirms the count, and watches the
// items reach done on the same page. Then every page of the run is searched
// for the planted secrets: none may be there.
func TestBrowserReplayADeadLetteredClass(t *testing.T) {
	chrome := requireChromium(t)
	localtest.Require(t, "moto_server", moto.InstallHint)
	if testing.Short() {
		t.Skip("starts the local stack")
	}
	triage := lambdatest.Build(t, "./cmd/triage")
	ctx, cancel := context.WithTimeout(t.Context(), 12*time.Minute)
	defer cancel()

	planted := soak.PlantSecrets(rand.New(rand.NewPCG(18, 0x5ec7)), plantedIDs())
	stackName := localtest.UniqueName(t)
	// A stage's item writes are durable when its batch ends: each "batch
	// done" line is when an item may have been dead-lettered.
	batches := make(chan struct{}, 1)
	st, err := devstack.Start(ctx, devstack.Options{StackName: stackName, Pollers: true, Build: devstack.BuildAlways,
		OnLog: func(_, line string) {
			if strings.Contains(line, `"msg":"batch done"`) {
				select {
				case batches <- struct{}{}:
				default:
				}
			}
		},
		Params:   map[string]string{"DailyBudgetUSD": "100000"},
		Env:      map[string]map[string]string{"*": {"BREAKER_OPEN_FOR": "2s"}},
		Articles: fakes.ArticleOptions{Shared: fakes.Shared{MaxHang: 5 * time.Second}, RetryAfter: time.Second, Text: planted.ArticleText},
		LLM:      fakes.LLMOptions{Shared: fakes.Shared{MaxHang: 5 * time.Second}, RetryAfter: time.Second},
		Webhook:  fakes.WebhookOptions{Shared: fakes.Shared{MaxHang: 5 * time.Second}, RetryAfter: time.Second},
		WrapFake: planted.Wrap, Logs: io.Discard,
	})
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	articles, llm, hooks := planted.Scripts()
	unpublished := []string{"unpublished-1", "unpublished-2", "unpublished-3"}
	for _, id := range unpublished {
		articles[id] = []fakes.Fault{fakes.FaultNotFound} // 404 once, then the article
	}
	if err := errors.Join(st.Articles.SetScripts(articles, false), st.LLM.SetScripts(llm, false), st.Webhook.SetScripts(hooks, false)); err != nil {
		t.Fatal(err)
	}
	ids := append(append(append([]string{}, unpublished...), "plain-1", "plain-2"), plantedIDs()...)
	specs := make([]intake.Spec, len(ids))
	for i, id := range ids {
		specs[i] = intake.Spec{ItemID: id, SourceURL: planted.SourceURL(st.ArticleServer.URL, id), WebhookURL: planted.WebhookURL(st.HookServer.URL, id)}
	}
	p := &intake.Producer{SQS: st.SQS, QueueURL: st.QueueURL(work.Fetch)}
	for _, res := range p.SubmitBatch(ctx, specs) {
		if res.Err != nil {
			t.Fatalf("submit %s: %v", res.ItemID, res.Err)
		}
	}
	// The unpublished items (and the planted one whose article server
	// echoes its URL in a 404) dead-letter at fetch as NOT_FOUND.
	class := waitDeadLettered(ctx, t, st, batches, unpublished)
	// The count the console confirms is every item dead-lettered at fetch
	// in the class, so it is read once no item can still join it: each has
	// left fetch, fetched or dead-lettered.
	waitPastFetch(ctx, t, st, batches, ids)
	want := 0
	for _, id := range ids {
		if it, err := st.Items.Get(ctx, id); err == nil && it.State == work.Deadletter && it.FailureClass() == class && it.DeadLetter.Stage == work.Fetch {
			want++
		}
	}

	consoleURL, consoleLog := startConsole(ctx, t, triage, st.Endpoint, stackName)
	shots := os.Getenv("CONSOLE_SCREENSHOTS")
	alloc, acancel := chromedp.NewExecAllocator(ctx, append(chromedp.DefaultExecAllocatorOptions[:],
		chromedp.ExecPath(chrome), chromedp.NoSandbox, chromedp.Flag("disable-dev-shm-usage", true), chromedp.WindowSize(1280, 900))...)
	defer acancel()
	bctx, bcancel := chromedp.NewContext(alloc)
	defer bcancel()
	type css = chromedp.CSS
	shot := func(name string) chromedp.Action[chromedp.Void] {
		return chromedp.Func(func(ctx context.Context, t *chromedp.Target) error {
			if shots == "" {
				return nil
			}
			png, err := chromedp.FullScreenshot(100)(ctx, t)
			if err != nil {
				return err
			}
			return os.WriteFile(filepath.Join(shots, "console-"+name+".png"), png, 0o644)
		})
	}
	// The browser starts on bctx itself: a tab first used under a step's
	// shorter context would close with it.
	if err := chromedp.Do(bctx); err != nil {
		t.Fatal(err)
	}
	// Each step is bounded: a page that never shows what a step waits for
	// fails the test with the page, instead of hanging it.
	do := func(what string, steps ...chromedp.Action[chromedp.Void]) {
		t.Helper()
		sctx, scancel := context.WithTimeout(bctx, browserStep)
		defer scancel()
		if err := chromedp.Do(sctx, steps...); err != nil {
			loc, _ := chromedp.Run(bctx, chromedp.Location())
			page, _ := chromedp.Run(bctx, chromedp.OuterHTML(css(`body`)))
			t.Fatalf("%s: %v\nat %s:\n%s", what, err, redactToken(loc), page)
		}
	}
	groupLink := css(fmt.Sprintf(`#dlq-groups a[href="/dlq?stage=fetch&class=%s"]`, class))
	do("open the overview, the class's dead letters, and ask for a replay",
		chromedp.Navigate(consoleURL),
		chromedp.WaitVisible(groupLink),
		shot("overview"),
		chromedp.Click(groupLink),
		chromedp.WaitVisible(css(`#dlq-items`)),
		chromedp.SendKeys(css(`form[action="/actions/replay"] input[name=note]`), "articles are published now"),
		shot("dlq"),
		chromedp.Click(css(`form[action="/actions/replay"] button[type=submit]`)),
		chromedp.WaitVisible(css(`button[data-confirm]`)),
	)
	summary, err := chromedp.Run(bctx, chromedp.Text(css(`[data-summary]`)))
	if err != nil || !strings.Contains(summary, fmt.Sprintf("This replays %d items", want)) {
		t.Fatalf("confirmation %q (%v), want it to say %d items", summary, err, want)
	}
	for _, id := range unpublished {
		if it, _ := st.Items.Get(ctx, id); it.State != work.Deadletter {
			t.Fatalf("%s is %s before the confirmation", id, it.State)
		}
	}
	liveDone := `(() => { const s = [...document.querySelectorAll("[data-live] [data-item]")];
		const want = ` + jsList(unpublished) + `;
		return want.every(id => s.some(e => e.dataset.item === id && e.textContent === "done")); })()`
	do("confirm the replay",
		chromedp.Click(css(`button[data-confirm]`)),
		chromedp.WaitVisible(css(`[data-summary].done`)),
	)
	done, err := chromedp.Run(bctx, chromedp.Text(css(`[data-summary]`)))
	if err != nil || !strings.Contains(done, fmt.Sprintf("Replayed %d items", want)) {
		box, _ := chromedp.Run(bctx, chromedp.OuterHTML(css(`[data-action-box]`)))
		attrs, aerr := st.SQS.GetQueueAttributes(ctx, &sqs.GetQueueAttributesInput{QueueUrl: aws.String(st.DLQURL(work.Fetch)),
			AttributeNames: []sqstypes.QueueAttributeName{sqstypes.QueueAttributeNameAll}})
		t.Fatalf("answer %q (%v), want %d replayed; the answer:\n%s\nthe fetch DLQ now: %v (%v)\nthe console's log:\n%s",
			done, err, want, box, attrs.Attributes, aerr, consoleLog())
	}
	if _, err := chromedp.Run(bctx, chromedp.Poll[bool](liveDone, chromedp.WithPollingTimeout(browserDone), chromedp.WithPollingInterval(time.Second))); err != nil {
		t.Fatalf("the replayed items did not show done on the page in %s: %v", browserDone, err)
	}
	if err := chromedp.Do(bctx, shot("replayed")); err != nil {
		t.Fatal(err)
	}
	for _, id := range unpublished {
		it, err := st.Items.Get(ctx, id)
		if err != nil || it.State != work.Done || it.ReplayCount != 1 || it.Replays[0].Note != "articles are published now" {
			t.Fatalf("%s after the replay: %+v (%v)", id, it, err)
		}
	}

	// Every page of the run, the timeline of every item included: no
	// planted secret.
	pages := []string{"/", "/dlq", "/errors?since=1h&limit=1000", "/policy"}
	for _, id := range ids {
		pages = append(pages, "/items/"+id)
	}
	if err := chromedp.Do(bctx, chromedp.Navigate(base(consoleURL)+"/dlq")); err != nil {
		t.Fatal(err)
	}
	groups, err := chromedp.Run(bctx, chromedp.Evaluate[[]string](`[...document.querySelectorAll("#dlq-groups a")].map(a => a.getAttribute("href"))`))
	if err != nil {
		t.Fatal(err)
	}
	pages = append(pages, groups...)
	found := 0
	for _, p := range pages {
		if err := chromedp.Do(bctx, chromedp.Navigate(base(consoleURL)+p)); err != nil {
			t.Fatal(err)
		}
		html, err := chromedp.Run(bctx, chromedp.OuterHTML(css("html")))
		if err != nil {
			t.Fatal(err)
		}
		for _, s := range planted.Secrets {
			for _, n := range s.Needles {
				if strings.Contains(html, n) {
					found++
					t.Errorf("%s shows %s (%s)", p, s.Name, s.Where)
					break
				}
			}
		}
	}
	t.Logf("searched %d pages for %d planted secrets: %d found", len(pages), len(planted.Secrets), found)
	if shots != "" {
		var item string
		for _, id := range plantedIDs() {
			if it, err := st.Items.Get(ctx, id); err == nil && it.State == work.Deadletter {
				item = id
				break
			}
		}
		if err := chromedp.Do(bctx,
			chromedp.Navigate(base(consoleURL)+"/items/"+cmpOr(item, unpublished[0])), chromedp.WaitVisible(css(`#events`)), shot("item"),
			chromedp.Navigate(base(consoleURL)+"/errors?since=1h"), chromedp.WaitVisible(css(`#error-log`)), shot("errors"),
			chromedp.Navigate(base(consoleURL)+"/policy"), chromedp.WaitVisible(css(`#policy`)), shot("policy"),
		); err != nil {
			t.Fatal(err)
		}
	}
}

func plantedIDs() []string {
	ids := make([]string, 11)
	for i := range ids {
		ids[i] = fmt.Sprintf("planted-%02d", i+1)
	}
	return ids
}

func cmpOr(a, b string) string {
	if a != "" {
		return a
	}
	return b
}

func jsList(ids []string) string { return `["` + strings.Join(ids, `","`) + `"]` }

func base(u string) string { return u[:strings.Index(u, "/?token=")] }

// redactToken keeps a console URL's token out of a failure's message.
func redactToken(u string) string { return tokenRE.ReplaceAllString(u, "token=…") }

var tokenRE = regexp.MustCompile(`token=[0-9a-f]+`)

// waitDeadLettered waits until every id is dead-lettered and returns their
// class (one class for all).
func waitDeadLettered(ctx context.Context, t *testing.T, st *devstack.Stack, batches <-chan struct{}, ids []string) work.Class {
	t.Helper()
	var class work.Class
	waitItems(ctx, t, st, batches, ids, "dead-lettered", func(it store.Item) bool {
		class = it.FailureClass()
		return it.State == work.Deadletter
	})
	return class
}

// waitPastFetch returns once every item of ids has left the fetch stage:
// fetched, or dead-lettered.
func waitPastFetch(ctx context.Context, t *testing.T, st *devstack.Stack, batches <-chan struct{}, ids []string) {
	t.Helper()
	waitItems(ctx, t, st, batches, ids, "past fetch", func(it store.Item) bool {
		return it.State == work.Deadletter || it.Status != work.Received
	})
}

// waitItems returns once every item of ids is there and reached, failing
// the test after browserSettle with those that are not (what names the
// wait). It reads the items after every batch that ended since its last
// read, or after a second without one.
func waitItems(ctx context.Context, t *testing.T, st *devstack.Stack, batches <-chan struct{}, ids []string, what string,
	reached func(store.Item) bool) {
	t.Helper()
	settle := time.NewTimer(browserSettle)
	defer settle.Stop()
	tick := time.NewTicker(time.Second)
	defer tick.Stop()
	for {
		var left []string
		for _, id := range ids {
			if it, err := st.Items.Get(ctx, id); err != nil || !reached(it) {
				left = append(left, id)
			}
		}
		if len(left) == 0 {
			return
		}
		select {
		case <-ctx.Done():
			t.Fatal(ctx.Err())
		case <-settle.C:
			t.Fatalf("%v not %s after %s", left, what, browserSettle)
		case <-batches:
		case <-tick.C:
		}
	}
}

var urlRE = regexp.MustCompile(`http://127\.0\.0\.1:\d+/\?token=[0-9a-f]{64}`)

// startConsole runs `triage console` against the stack, as an operator
// would after sourcing the exports of `triage-local up`, and returns the
// URL it prints and what it has logged so far. The process is stopped (by
// its pid) at the end of the test.
func startConsole(ctx context.Context, t *testing.T, triage, endpoint, stackName string) (string, func() string) {
	t.Helper()
	cmd := exec.CommandContext(ctx, triage, "console", "--endpoint", endpoint, "--stack", stackName, "--wait", "0", "--by", "browser-test")
	cmd.Env = append(os.Environ(), moto.Env(endpoint)...)
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	stderr := &localtest.Buffer{}
	cmd.Stderr = stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		_ = cmd.Process.Signal(os.Interrupt)
		_ = cmd.Wait()
	})
	lines := make(chan string, 1)
	go func() {
		sc := bufio.NewScanner(out)
		for sc.Scan() {
			if u := urlRE.FindString(sc.Text()); u != "" {
				lines <- u
			}
		}
		close(lines)
	}()
	select {
	case u, ok := <-lines:
		if !ok {
			t.Fatalf("triage console printed no URL\n%s", stderr.String())
		}
		// The console answers only with the token.
		resp, err := http.Get(base(u) + "/")
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		if resp.StatusCode != http.StatusUnauthorized {
			t.Fatalf("without the token: %d, want 401", resp.StatusCode)
		}
		return u, stderr.String
	case <-time.After(time.Minute):
		t.Fatalf("triage console printed no URL in a minute\n%s", stderr.String())
	}
	return "", nil
}
