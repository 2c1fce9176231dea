package sqs_test

import (
	"context"
	"crypto/md5"
	"encoding/binary"
	"encoding/hex"
	"errors"
	"fmt"
	"maps"
	"net/http/httptest"
	"os"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	awssqs "github.com/aws/aws-sdk-go-v2/service/sqs"
	"github.com/aws/aws-sdk-go-v2/service/sqs/types"
	"github.com/aws/smithy-go"

	"github.com/triagehq/triage/dev/local/localtest"
	"github.com/triagehq/triage/dev/local/moto"
	"github.com/triagehq/triage/dev/local/sqs"
)

// The SQS conformance suite: every case runs against the emulator and
// against moto's own SQS, the reference where moto is right. Where moto is
// wrong — it differs from SQS as AWS documents it — the case names the
// difference in motoDiffers, asserts that moto still differs (so the list
// stays true) and logs it.
//
// The emulator runs on a manual clock, which each case moves with
// tg.advance; moto runs on the wall clock, which advance waits out (the
// waits are a second or two). Cases that would wait more than a minute on
// moto (retention) run there only with TRIAGE_SQS_SLOW=1.

func TestMain(m *testing.M) {
	code := m.Run()
	stopMoto()
	os.Exit(code)
}

// motoDiffers lists the cases where moto 5.2.1 is not SQS, and how.
var motoDiffers = map[string]string{
	"ChangeMessageVisibility/not-in-flight": "moto changes the visibility of a message that is not in flight; " +
		"SQS answers MessageNotInflight",
	"ChangeMessageVisibility/deleted": "moto answers ReceiptHandleIsInvalid for the handle of a deleted message; " +
		"SQS answers InvalidParameterValue (\"Message does not exist or is not available for visibility timeout change\")",
	"PurgeQueue/twice":               "moto purges again at once; SQS refuses a second PurgeQueue within 60 s (PurgeQueueInProgress)",
	"ReceiptHandleIsInvalid/status":  "moto answers ReceiptHandleIsInvalid with HTTP 400; the SQS model says 404",
	"SendMessage/invalid-characters": "moto accepts characters SQS refuses (InvalidMessageContents)",
	"SendMessage/attribute-validation": "moto accepts message attributes SQS refuses: a Number that is not a number, " +
		"an empty String, a name starting with AWS.",
	"SendMessage/system-attributes-md5": "moto returns no MD5OfMessageSystemAttributes for an AWSTraceHeader",
	"SendMessageBatch/entry-failure": "moto's Failed entries carry SenderFault as the string \"true\", which the SDK cannot " +
		"decode (\"expected bool\"): the whole call fails",
	"RedrivePolicy/source-arn": "moto does not set the system attribute DeadLetterQueueSourceArn on a message its " +
		"RedrivePolicy moved; SQS sets it to the source queue's ARN",
	"RedrivePolicy/missing-target": "moto answers QueueDoesNotExist for a RedrivePolicy whose target does not exist; " +
		"SQS answers InvalidParameterValue (\"Dead letter target does not exist\")",
	"SetQueueAttributes/validation": "moto accepts values out of range (VisibilityTimeout 43201, DelaySeconds 901, " +
		"ReceiveMessageWaitTimeSeconds 21, MaximumMessageSize 1023, MessageRetentionPeriod 59) and unknown attribute names",
	"Retention/younger-kept": "moto's receive stops at the first expired message, so a queue whose oldest message " +
		"expired answers nothing, though younger ones are still within the retention period",
}

type target struct {
	name    string
	client  *awssqs.Client
	advance func(t *testing.T, d time.Duration)
	// polling blocks until a long poll started by the case is waiting.
	polling func(t *testing.T)
	// wall says advance really waits: time-bound cases on it are slow.
	wall bool
	seq  *atomic.Int64
	// differs is the case's entry in motoDiffers, on moto.
	differs func(name string) (string, bool)
	// own, when set, gives each case a target of its own: the emulator's
	// cases advance a manual clock, and one case's advance must not make
	// another's delayed or invisible messages visible.
	own func(t *testing.T) *target
}

// queue creates a queue for the case, named after it.
func (tg *target) queue(t *testing.T, attrs map[string]string) string {
	t.Helper()
	name := fmt.Sprintf("%s-%d", strings.NewReplacer("/", "-", "_", "-").Replace(t.Name()), tg.seq.Add(1))
	if len(name) > 80 {
		name = name[len(name)-80:]
	}
	out, err := tg.client.CreateQueue(t.Context(), &awssqs.CreateQueueInput{QueueName: aws.String(strings.Trim(name, "-")), Attributes: attrs})
	if err != nil {
		t.Fatalf("CreateQueue: %v", err)
	}
	return aws.ToString(out.QueueUrl)
}

func (tg *target) arn(t *testing.T, url string) string {
	t.Helper()
	out, err := tg.client.GetQueueAttributes(t.Context(), &awssqs.GetQueueAttributesInput{QueueUrl: &url,
		AttributeNames: []types.QueueAttributeName{types.QueueAttributeNameQueueArn}})
	if err != nil {
		t.Fatal(err)
	}
	return out.Attributes["QueueArn"]
}

func (tg *target) send(t *testing.T, url, body string) *awssqs.SendMessageOutput {
	t.Helper()
	out, err := tg.client.SendMessage(t.Context(), &awssqs.SendMessageInput{QueueUrl: &url, MessageBody: &body})
	if err != nil {
		t.Fatalf("SendMessage: %v", err)
	}
	return out
}

func (tg *target) receive(t *testing.T, url string, n, visibility int32) []types.Message {
	t.Helper()
	out, err := tg.client.ReceiveMessage(t.Context(), &awssqs.ReceiveMessageInput{QueueUrl: &url, MaxNumberOfMessages: n,
		VisibilityTimeout: visibility, MessageSystemAttributeNames: []types.MessageSystemAttributeName{types.MessageSystemAttributeNameAll},
		MessageAttributeNames: []string{"All"}})
	if err != nil {
		t.Fatalf("ReceiveMessage: %v", err)
	}
	return out.Messages
}

func (tg *target) counts(t *testing.T, url string) [3]int {
	t.Helper()
	out, err := tg.client.GetQueueAttributes(t.Context(), &awssqs.GetQueueAttributesInput{QueueUrl: &url,
		AttributeNames: []types.QueueAttributeName{types.QueueAttributeNameAll}})
	if err != nil {
		t.Fatal(err)
	}
	var c [3]int
	for i, k := range []string{"ApproximateNumberOfMessages", "ApproximateNumberOfMessagesNotVisible", "ApproximateNumberOfMessagesDelayed"} {
		c[i], _ = strconv.Atoi(out.Attributes[k])
	}
	return c
}

// check asserts ok for the case name — or, on a server listed in
// motoDiffers for it, that the server still differs.
func (tg *target) check(t *testing.T, name string, ok bool, format string, args ...any) {
	t.Helper()
	if why, listed := tg.differs(name); listed {
		if ok {
			t.Errorf("%s: %s behaves as SQS now; drop it from motoDiffers (%s)", tg.name, name, why)
		} else {
			t.Logf("%s differs from SQS (%s): %s", tg.name, name, why)
		}
		return
	}
	if !ok {
		t.Errorf("%s: %s: "+format, append([]any{tg.name, name}, args...)...)
	}
}

// code is an SDK error's code (the query code, as SQS reports it) and the
// HTTP status.
func code(err error) (string, int) {
	var api smithy.APIError
	if !errors.As(err, &api) {
		return "", 0
	}
	status := 0
	var re interface{ HTTPStatusCode() int }
	if errors.As(err, &re) {
		status = re.HTTPStatusCode()
	}
	return api.ErrorCode(), status
}

// ---- the servers -----------------------------------------------------------

var (
	motoOnce sync.Once
	motoSrv  *moto.Server
	motoErr  error
)

func stopMoto() {
	if motoSrv != nil {
		_ = motoSrv.Stop()
	}
}

func targets(t *testing.T) []*target {
	t.Helper()
	emu := emulatorTarget(t)
	emu.own = emulatorTarget
	localtest.Require(t, "moto_server", moto.InstallHint)
	motoOnce.Do(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		defer cancel()
		motoSrv, motoErr = moto.Start(ctx, moto.Options{StartTimeout: 30 * time.Second, SQS: moto.SQSMoto})
	})
	if motoErr != nil {
		t.Fatalf("start moto_server: %v", motoErr)
	}
	cfg, err := moto.Config(t.Context(), motoSrv.BackendURL)
	if err != nil {
		t.Fatal(err)
	}
	mt := &target{name: "moto", client: awssqs.NewFromConfig(cfg), wall: true, seq: new(atomic.Int64),
		advance: func(t *testing.T, d time.Duration) { time.Sleep(d) },
		polling: func(t *testing.T) { time.Sleep(300 * time.Millisecond) }, // moto's long polls show no sign of waiting
		differs: func(name string) (string, bool) { why, ok := motoDiffers[name]; return why, ok }}
	return []*target{emu, mt}
}

func emulatorTarget(t *testing.T) *target {
	t.Helper()
	clk := newManualClock(time.Date(2026, 5, 1, 12, 0, 0, 0, time.UTC))
	srv := httptest.NewServer(sqs.New(sqs.Options{Clock: clk}))
	t.Cleanup(srv.Close)
	cfg, err := moto.Config(t.Context(), srv.URL)
	if err != nil {
		t.Fatal(err)
	}
	return &target{name: "emulator", client: awssqs.NewFromConfig(cfg), seq: new(atomic.Int64),
		advance: func(t *testing.T, d time.Duration) { clk.Advance(d) },
		polling: func(t *testing.T) {
			t.Helper()
			select {
			case <-clk.registered:
			case <-time.After(10 * time.Second):
				t.Fatal("no long poll started within 10 s")
			}
		},
		differs: func(string) (string, bool) { return "", false }}
}

// manualClock is a clock.Clock and sqs.Waiter that moves only when told to.
type manualClock struct {
	mu         sync.Mutex
	now        time.Time
	waits      []manualWait
	registered chan struct{}
}

type manualWait struct {
	at time.Time
	ch chan time.Time
}

func newManualClock(t time.Time) *manualClock {
	return &manualClock{now: t, registered: make(chan struct{}, 64)}
}

func (c *manualClock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.now
}

func (c *manualClock) After(d time.Duration) <-chan time.Time {
	c.mu.Lock()
	ch := make(chan time.Time, 1)
	if d <= 0 {
		ch <- c.now
	} else {
		c.waits = append(c.waits, manualWait{c.now.Add(d), ch})
	}
	c.mu.Unlock()
	select {
	case c.registered <- struct{}{}:
	default:
	}
	return ch
}

func (c *manualClock) Advance(d time.Duration) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.now = c.now.Add(d)
	c.waits = slices.DeleteFunc(c.waits, func(w manualWait) bool {
		if w.at.After(c.now) {
			return false
		}
		w.ch <- c.now
		return true
	})
}

// ---- the suite --------------------------------------------------------------

// suite is the conformance suite: each case a function of a target.
var suite = map[string]func(t *testing.T, tg *target){
	"CreateQueue":                  testCreateQueue,
	"QueueDoesNotExist":            testQueueDoesNotExist,
	"SendReceive":                  testSendReceive,
	"MessageAttributes":            testMessageAttributes,
	"SystemAttributes":             testSystemAttributes,
	"VisibilityTimeout":            testVisibilityTimeout,
	"ChangeMessageVisibility":      testChangeMessageVisibility,
	"Delete":                       testDelete,
	"BatchRules":                   testBatchRules,
	"BatchEntryFailures":           testBatchEntryFailures,
	"Redrive":                      testRedrive,
	"Delay":                        testDelay,
	"LongPoll":                     testLongPoll,
	"Counts":                       testCounts,
	"Retention":                    testRetention,
	"MessageLimits":                testMessageLimits,
	"PurgeQueue":                   testPurgeQueue,
	"ListQueues":                   testListQueues,
	"QueueAttributes":              testQueueAttributes,
	"DeleteQueue":                  testDeleteQueue,
	"ReceiveParameters":            testReceiveParameters,
	"ChangeMessageVisibilityBatch": testChangeMessageVisibilityBatch,
}

func TestConformance(t *testing.T) {
	t.Parallel()
	for _, tg := range targets(t) {
		t.Run(tg.name, func(t *testing.T) {
			t.Parallel()
			for name, fn := range suite {
				t.Run(name, func(t *testing.T) {
					t.Parallel()
					if tg.own != nil {
						fn(t, tg.own(t))
						return
					}
					fn(t, tg)
				})
			}
		})
	}
}

func testCreateQueue(t *testing.T, tg *target) {
	name := "create-" + strconv.FormatInt(tg.seq.Add(1), 10) + "-" + strconv.FormatInt(time.Now().UnixNano()%1e6, 10)
	attrs := map[string]string{"VisibilityTimeout": "45"}
	first, err := tg.client.CreateQueue(t.Context(), &awssqs.CreateQueueInput{QueueName: &name, Attributes: attrs})
	if err != nil {
		t.Fatal(err)
	}
	again, err := tg.client.CreateQueue(t.Context(), &awssqs.CreateQueueInput{QueueName: &name, Attributes: attrs})
	if err != nil || aws.ToString(again.QueueUrl) != aws.ToString(first.QueueUrl) {
		t.Errorf("%s: CreateQueue again with the same attributes = %v, %v; want the same URL", tg.name, again, err)
	}
	_, err = tg.client.CreateQueue(t.Context(), &awssqs.CreateQueueInput{QueueName: &name, Attributes: map[string]string{"VisibilityTimeout": "46"}})
	var exists *types.QueueNameExists
	if c, _ := code(err); !errors.As(err, &exists) || c != "QueueAlreadyExists" {
		t.Errorf("%s: CreateQueue with another VisibilityTimeout: %v (code %q), want QueueNameExists / QueueAlreadyExists", tg.name, err, c)
	}
	got, err := tg.client.GetQueueUrl(t.Context(), &awssqs.GetQueueUrlInput{QueueName: &name})
	if err != nil || !strings.HasSuffix(aws.ToString(got.QueueUrl), "/"+name) {
		t.Errorf("%s: GetQueueUrl = %v, %v", tg.name, got, err)
	}
	_, err = tg.client.CreateQueue(t.Context(), &awssqs.CreateQueueInput{QueueName: aws.String("bad name!")})
	if c, _ := code(err); c != "InvalidParameterValue" {
		t.Errorf("%s: CreateQueue(\"bad name!\"): %v, want InvalidParameterValue", tg.name, err)
	}
}

func testQueueDoesNotExist(t *testing.T, tg *target) {
	_, err := tg.client.GetQueueUrl(t.Context(), &awssqs.GetQueueUrlInput{QueueName: aws.String("no-such-queue-anywhere")})
	var missing *types.QueueDoesNotExist
	c, status := code(err)
	if !errors.As(err, &missing) || c != "AWS.SimpleQueueService.NonExistentQueue" || status != 400 {
		t.Errorf("%s: GetQueueUrl of a missing queue: %v (code %q, status %d), want QueueDoesNotExist, AWS.SimpleQueueService.NonExistentQueue, 400",
			tg.name, err, c, status)
	}
	url := tg.queue(t, nil)
	_, err = tg.client.SendMessage(t.Context(), &awssqs.SendMessageInput{QueueUrl: aws.String(url[:strings.LastIndex(url, "/")] + "/nope"),
		MessageBody: aws.String("x")})
	if !errors.As(err, &missing) {
		t.Errorf("%s: SendMessage to a missing queue: %v, want QueueDoesNotExist", tg.name, err)
	}
}

func testSendReceive(t *testing.T, tg *target) {
	url := tg.queue(t, nil)
	body := "hello, queue ✓"
	sent := tg.send(t, url, body)
	if want := md5Hex(body); aws.ToString(sent.MD5OfMessageBody) != want {
		t.Errorf("%s: MD5OfMessageBody %s, want %s", tg.name, aws.ToString(sent.MD5OfMessageBody), want)
	}
	got := tg.receive(t, url, 10, 30)
	if len(got) != 1 || aws.ToString(got[0].Body) != body || aws.ToString(got[0].MessageId) != aws.ToString(sent.MessageId) ||
		aws.ToString(got[0].MD5OfBody) != md5Hex(body) || aws.ToString(got[0].ReceiptHandle) == "" {
		t.Fatalf("%s: received %+v, want the message sent (%s)", tg.name, got, aws.ToString(sent.MessageId))
	}
	if again := tg.receive(t, url, 10, 30); len(again) != 0 {
		t.Errorf("%s: an in-flight message was received again: %+v", tg.name, again)
	}
}

// attrsMD5 is the MD5 of message attributes as the SQS documentation
// describes it, written independently of the emulator's.
func attrsMD5(attrs map[string]types.MessageAttributeValue) string {
	var buf []byte
	put := func(b []byte) { buf = binary.BigEndian.AppendUint32(buf, uint32(len(b))); buf = append(buf, b...) }
	for _, n := range slices.Sorted(maps.Keys(attrs)) {
		a := attrs[n]
		put([]byte(n))
		put([]byte(aws.ToString(a.DataType)))
		if strings.HasPrefix(aws.ToString(a.DataType), "Binary") {
			buf = append(buf, 2)
			put(a.BinaryValue)
		} else {
			buf = append(buf, 1)
			put([]byte(aws.ToString(a.StringValue)))
		}
	}
	sum := md5.Sum(buf)
	return hex.EncodeToString(sum[:])
}

func md5Hex(s string) string {
	sum := md5.Sum([]byte(s))
	return hex.EncodeToString(sum[:])
}

func testMessageAttributes(t *testing.T, tg *target) {
	url := tg.queue(t, nil)
	attrs := map[string]types.MessageAttributeValue{
		"kind":        {DataType: aws.String("String"), StringValue: aws.String("story")},
		"attempt":     {DataType: aws.String("Number"), StringValue: aws.String("3")},
		"blob":        {DataType: aws.String("Binary"), BinaryValue: []byte{0, 1, 2, 255}},
		"trace.id":    {DataType: aws.String("String.custom"), StringValue: aws.String("abc")},
		"trace.other": {DataType: aws.String("String"), StringValue: aws.String("def")},
	}
	sent, err := tg.client.SendMessage(t.Context(), &awssqs.SendMessageInput{QueueUrl: &url, MessageBody: aws.String("with attributes"),
		MessageAttributes: attrs})
	if err != nil {
		t.Fatal(err)
	}
	if got, want := aws.ToString(sent.MD5OfMessageAttributes), attrsMD5(attrs); got != want {
		t.Errorf("%s: MD5OfMessageAttributes on send %s, want %s", tg.name, got, want)
	}
	out, err := tg.client.ReceiveMessage(t.Context(), &awssqs.ReceiveMessageInput{QueueUrl: &url, VisibilityTimeout: 0,
		MessageAttributeNames: []string{"kind", "trace.*"}})
	if err != nil || len(out.Messages) != 1 {
		t.Fatalf("%s: receive: %v %v", tg.name, out, err)
	}
	m := out.Messages[0]
	want := map[string]types.MessageAttributeValue{"kind": attrs["kind"], "trace.id": attrs["trace.id"], "trace.other": attrs["trace.other"]}
	if len(m.MessageAttributes) != 3 || aws.ToString(m.MessageAttributes["kind"].StringValue) != "story" {
		t.Errorf("%s: attributes received for [kind trace.*]: %v", tg.name, m.MessageAttributes)
	}
	if got := aws.ToString(m.MD5OfMessageAttributes); got != attrsMD5(want) {
		t.Errorf("%s: MD5OfMessageAttributes on receive %s, want %s (the attributes returned)", tg.name, got, attrsMD5(want))
	}
	_, err = tg.client.SendMessage(t.Context(), &awssqs.SendMessageInput{QueueUrl: &url, MessageBody: aws.String("x"),
		MessageAttributes: map[string]types.MessageAttributeValue{"typo": {DataType: aws.String("Strin"), StringValue: aws.String("x")}}})
	if c, _ := code(err); c != "InvalidParameterValue" {
		t.Errorf("%s: attribute type Strin: %v, want InvalidParameterValue", tg.name, err)
	}
	refused := 0
	bad := map[string]types.MessageAttributeValue{
		"AWS.reserved": {DataType: aws.String("String"), StringValue: aws.String("x")},
		"nan":          {DataType: aws.String("Number"), StringValue: aws.String("twelve")},
		"empty":        {DataType: aws.String("String"), StringValue: aws.String("")},
	}
	for name, v := range bad {
		_, err := tg.client.SendMessage(t.Context(), &awssqs.SendMessageInput{QueueUrl: &url, MessageBody: aws.String("x"),
			MessageAttributes: map[string]types.MessageAttributeValue{name: v}})
		if c, _ := code(err); c == "InvalidParameterValue" {
			refused++
		}
	}
	tg.check(t, "SendMessage/attribute-validation", refused == len(bad), "refused %d of %d invalid attributes", refused, len(bad))
	if tg.name == "moto" { // drain what moto took
		_, _ = tg.client.PurgeQueue(t.Context(), &awssqs.PurgeQueueInput{QueueUrl: &url})
	}
	trace := map[string]types.MessageSystemAttributeValue{"AWSTraceHeader": {DataType: aws.String("String"),
		StringValue: aws.String("Root=1-5759e988-bd862e3fe1be46a994272793")}}
	sent, err = tg.client.SendMessage(t.Context(), &awssqs.SendMessageInput{QueueUrl: &url, MessageBody: aws.String("traced"),
		MessageSystemAttributes: trace})
	if err != nil {
		t.Fatal(err)
	}
	sysGot, sysWant := aws.ToString(sent.MD5OfMessageSystemAttributes), attrsMD5(map[string]types.MessageAttributeValue{
		"AWSTraceHeader": {DataType: aws.String("String"), StringValue: trace["AWSTraceHeader"].StringValue}})
	tg.check(t, "SendMessage/system-attributes-md5", sysGot == sysWant, "MD5OfMessageSystemAttributes %s, want %s", sysGot, sysWant)
}

func testSystemAttributes(t *testing.T, tg *target) {
	url := tg.queue(t, nil)
	tg.send(t, url, "one")
	first := tg.receive(t, url, 1, 1)
	if len(first) != 1 {
		t.Fatalf("%s: got %d messages", tg.name, len(first))
	}
	a := first[0].Attributes
	for _, k := range []string{"SenderId", "SentTimestamp", "ApproximateReceiveCount", "ApproximateFirstReceiveTimestamp"} {
		if a[k] == "" {
			t.Errorf("%s: system attribute %s missing (%v)", tg.name, k, a)
		}
	}
	if a["ApproximateReceiveCount"] != "1" {
		t.Errorf("%s: ApproximateReceiveCount %q, want 1", tg.name, a["ApproximateReceiveCount"])
	}
	sent, _ := strconv.ParseInt(a["SentTimestamp"], 10, 64)
	firstRecv, _ := strconv.ParseInt(a["ApproximateFirstReceiveTimestamp"], 10, 64)
	if sent <= 0 || firstRecv < sent {
		t.Errorf("%s: SentTimestamp %d, ApproximateFirstReceiveTimestamp %d", tg.name, sent, firstRecv)
	}
	tg.advance(t, 1500*time.Millisecond)
	second := tg.receive(t, url, 1, 30)
	if len(second) != 1 {
		t.Fatalf("%s: the message did not come back after its visibility timeout", tg.name)
	}
	b := second[0].Attributes
	if b["ApproximateReceiveCount"] != "2" || b["ApproximateFirstReceiveTimestamp"] != a["ApproximateFirstReceiveTimestamp"] ||
		b["SentTimestamp"] != a["SentTimestamp"] {
		t.Errorf("%s: second receive %v, want count 2 and the first receive's timestamps %v", tg.name, b, a)
	}
	if aws.ToString(second[0].ReceiptHandle) == aws.ToString(first[0].ReceiptHandle) {
		t.Errorf("%s: the second receive has the first's receipt handle", tg.name)
	}
}

func testVisibilityTimeout(t *testing.T, tg *target) {
	url := tg.queue(t, map[string]string{"VisibilityTimeout": "1"})
	tg.send(t, url, "v")
	// VisibilityTimeout 0 is the SDK's "not set": the queue's applies.
	if got := tg.receive(t, url, 1, 0); len(got) != 1 {
		t.Fatalf("%s: got %d", tg.name, len(got))
	}
	if got := tg.receive(t, url, 1, 0); len(got) != 0 {
		t.Errorf("%s: visible during the queue's visibility timeout", tg.name)
	}
	tg.advance(t, 1500*time.Millisecond)
	if got := tg.receive(t, url, 1, 0); len(got) != 1 {
		t.Errorf("%s: not visible after the queue's visibility timeout", tg.name)
	}
}

func testChangeMessageVisibility(t *testing.T, tg *target) {
	url := tg.queue(t, nil)
	tg.send(t, url, "cmv")
	got := tg.receive(t, url, 1, 30)
	h := got[0].ReceiptHandle
	if _, err := tg.client.ChangeMessageVisibility(t.Context(), &awssqs.ChangeMessageVisibilityInput{QueueUrl: &url, ReceiptHandle: h,
		VisibilityTimeout: 0}); err != nil {
		t.Fatal(err)
	}
	again := tg.receive(t, url, 1, 30)
	if len(again) != 1 {
		t.Fatalf("%s: visibility 0 did not make the message visible", tg.name)
	}
	_, err := tg.client.ChangeMessageVisibility(t.Context(), &awssqs.ChangeMessageVisibilityInput{QueueUrl: &url,
		ReceiptHandle: again[0].ReceiptHandle, VisibilityTimeout: 43201})
	if c, _ := code(err); c != "InvalidParameterValue" {
		t.Errorf("%s: VisibilityTimeout 43201: %v, want InvalidParameterValue", tg.name, err)
	}
	tg.advance(t, 1500*time.Millisecond)
	_, err = tg.client.ChangeMessageVisibility(t.Context(), &awssqs.ChangeMessageVisibilityInput{QueueUrl: &url,
		ReceiptHandle: again[0].ReceiptHandle, VisibilityTimeout: 43200})
	if c, _ := code(err); c != "InvalidParameterValue" {
		t.Errorf("%s: 12 h from now, for a message received a while ago: %v, want InvalidParameterValue", tg.name, err)
	}

	// Not in flight: back to visible first.
	_, _ = tg.client.ChangeMessageVisibility(t.Context(), &awssqs.ChangeMessageVisibilityInput{QueueUrl: &url,
		ReceiptHandle: again[0].ReceiptHandle, VisibilityTimeout: 0})
	_, err = tg.client.ChangeMessageVisibility(t.Context(), &awssqs.ChangeMessageVisibilityInput{QueueUrl: &url,
		ReceiptHandle: again[0].ReceiptHandle, VisibilityTimeout: 10})
	var notInflight *types.MessageNotInflight
	tg.check(t, "ChangeMessageVisibility/not-in-flight", errors.As(err, &notInflight), "a message not in flight: %v, want MessageNotInflight", err)
	if err == nil { // it took the change: visible again, to go on
		_, _ = tg.client.ChangeMessageVisibility(t.Context(), &awssqs.ChangeMessageVisibilityInput{QueueUrl: &url,
			ReceiptHandle: again[0].ReceiptHandle, VisibilityTimeout: 0})
	}

	last := tg.receive(t, url, 1, 30)
	if len(last) != 1 {
		t.Fatalf("%s: message lost", tg.name)
	}
	if _, err := tg.client.DeleteMessage(t.Context(), &awssqs.DeleteMessageInput{QueueUrl: &url, ReceiptHandle: last[0].ReceiptHandle}); err != nil {
		t.Fatal(err)
	}
	_, err = tg.client.ChangeMessageVisibility(t.Context(), &awssqs.ChangeMessageVisibilityInput{QueueUrl: &url,
		ReceiptHandle: last[0].ReceiptHandle, VisibilityTimeout: 10})
	c, _ := code(err)
	tg.check(t, "ChangeMessageVisibility/deleted", c == "InvalidParameterValue", "a deleted message: %v, want InvalidParameterValue", err)
}

func testDelete(t *testing.T, tg *target) {
	url := tg.queue(t, nil)
	tg.send(t, url, "d")
	got := tg.receive(t, url, 1, 30)
	if len(got) != 1 {
		t.Fatal("no message")
	}
	for range 2 { // deleting twice is no error
		if _, err := tg.client.DeleteMessage(t.Context(), &awssqs.DeleteMessageInput{QueueUrl: &url, ReceiptHandle: got[0].ReceiptHandle}); err != nil {
			t.Errorf("%s: DeleteMessage: %v", tg.name, err)
		}
	}
	tg.send(t, url, "another")
	if again := tg.receive(t, url, 10, 30); len(again) != 1 || aws.ToString(again[0].Body) != "another" {
		t.Errorf("%s: after the delete received %+v, want only the other message", tg.name, again)
	} else if _, err := tg.client.DeleteMessage(t.Context(), &awssqs.DeleteMessageInput{QueueUrl: &url, ReceiptHandle: again[0].ReceiptHandle}); err != nil {
		t.Fatal(err)
	}
	_, err := tg.client.DeleteMessage(t.Context(), &awssqs.DeleteMessageInput{QueueUrl: &url, ReceiptHandle: aws.String("not-a-handle")})
	var invalid *types.ReceiptHandleIsInvalid
	if !errors.As(err, &invalid) {
		t.Errorf("%s: DeleteMessage(garbage): %v, want ReceiptHandleIsInvalid", tg.name, err)
	}
	_, status := code(err)
	tg.check(t, "ReceiptHandleIsInvalid/status", status == 404, "status %d, want 404", status)

	// An earlier receive's handle still deletes the message.
	tg.send(t, url, "stale")
	one := tg.receive(t, url, 1, 1)
	tg.advance(t, 1500*time.Millisecond)
	two := tg.receive(t, url, 1, 30)
	if len(one) != 1 || len(two) != 1 {
		t.Fatalf("%s: receives %d %d", tg.name, len(one), len(two))
	}
	if _, err := tg.client.DeleteMessage(t.Context(), &awssqs.DeleteMessageInput{QueueUrl: &url, ReceiptHandle: one[0].ReceiptHandle}); err != nil {
		t.Errorf("%s: delete with the first receive's handle: %v", tg.name, err)
	}
	if c := tg.counts(t, url); c != [3]int{0, 0, 0} {
		t.Errorf("%s: counts after deleting with an earlier handle %v, want none left", tg.name, c)
	}
}

func entries(n int) []types.SendMessageBatchRequestEntry {
	out := make([]types.SendMessageBatchRequestEntry, n)
	for i := range out {
		out[i] = types.SendMessageBatchRequestEntry{Id: aws.String("e" + strconv.Itoa(i)), MessageBody: aws.String("b" + strconv.Itoa(i))}
	}
	return out
}

func testBatchRules(t *testing.T, tg *target) {
	url := tg.queue(t, nil)
	cases := map[string]struct {
		entries []types.SendMessageBatchRequestEntry
		want    string
	}{
		"eleven":   {entries(11), "AWS.SimpleQueueService.TooManyEntriesInBatchRequest"},
		"empty":    {[]types.SendMessageBatchRequestEntry{}, "AWS.SimpleQueueService.EmptyBatchRequest"},
		"repeated": {append(entries(2), entries(1)...), "AWS.SimpleQueueService.BatchEntryIdsNotDistinct"},
		"bad id":   {[]types.SendMessageBatchRequestEntry{{Id: aws.String("a b"), MessageBody: aws.String("x")}}, "AWS.SimpleQueueService.InvalidBatchEntryId"},
	}
	for name, c := range cases {
		_, err := tg.client.SendMessageBatch(t.Context(), &awssqs.SendMessageBatchInput{QueueUrl: &url, Entries: c.entries})
		if got, _ := code(err); got != c.want {
			t.Errorf("%s: batch %s: %v, want %s", tg.name, name, err, c.want)
		}
	}
	out, err := tg.client.SendMessageBatch(t.Context(), &awssqs.SendMessageBatchInput{QueueUrl: &url, Entries: entries(10)})
	if err != nil || len(out.Successful) != 10 || len(out.Failed) != 0 {
		t.Fatalf("%s: batch of 10: %+v %v", tg.name, out, err)
	}
	for _, s := range out.Successful {
		if aws.ToString(s.MD5OfMessageBody) != md5Hex("b"+strings.TrimPrefix(aws.ToString(s.Id), "e")) {
			t.Errorf("%s: entry %s MD5 %s", tg.name, aws.ToString(s.Id), aws.ToString(s.MD5OfMessageBody))
		}
	}
	if c := tg.counts(t, url); c[0] != 10 {
		t.Errorf("%s: %d visible after a batch of 10", tg.name, c[0])
	}
}

func testBatchEntryFailures(t *testing.T, tg *target) {
	url := tg.queue(t, nil)
	in := entries(3)
	in[1].DelaySeconds = 901
	out, err := tg.client.SendMessageBatch(t.Context(), &awssqs.SendMessageBatchInput{QueueUrl: &url, Entries: in})
	tg.check(t, "SendMessageBatch/entry-failure", err == nil, "a batch with one failing entry: %v", err)
	if err != nil {
		return
	}
	if len(out.Successful) != 2 || len(out.Failed) != 1 || aws.ToString(out.Failed[0].Id) != "e1" ||
		aws.ToString(out.Failed[0].Code) != "InvalidParameterValue" || !out.Failed[0].SenderFault {
		t.Errorf("%s: a batch with DelaySeconds 901 in one entry: successful %d, failed %+v", tg.name, len(out.Successful), out.Failed)
	}
	got := tg.receive(t, url, 10, 30)
	if len(got) != 2 {
		t.Fatalf("%s: received %d, want 2", tg.name, len(got))
	}
	del, err := tg.client.DeleteMessageBatch(t.Context(), &awssqs.DeleteMessageBatchInput{QueueUrl: &url, Entries: []types.DeleteMessageBatchRequestEntry{
		{Id: aws.String("ok"), ReceiptHandle: got[0].ReceiptHandle},
		{Id: aws.String("bad"), ReceiptHandle: aws.String("garbage")},
	}})
	if err != nil || len(del.Successful) != 1 || len(del.Failed) != 1 || aws.ToString(del.Failed[0].Code) != "ReceiptHandleIsInvalid" ||
		aws.ToString(del.Failed[0].Id) != "bad" || !del.Failed[0].SenderFault {
		t.Errorf("%s: DeleteMessageBatch with one bad handle: %+v %v", tg.name, del, err)
	}
}

func testChangeMessageVisibilityBatch(t *testing.T, tg *target) {
	url := tg.queue(t, nil)
	tg.send(t, url, "a")
	tg.send(t, url, "b")
	got := tg.receive(t, url, 10, 30)
	if len(got) != 2 {
		t.Fatalf("%s: received %d", tg.name, len(got))
	}
	out, err := tg.client.ChangeMessageVisibilityBatch(t.Context(), &awssqs.ChangeMessageVisibilityBatchInput{QueueUrl: &url,
		Entries: []types.ChangeMessageVisibilityBatchRequestEntry{
			{Id: aws.String("a"), ReceiptHandle: got[0].ReceiptHandle, VisibilityTimeout: 0},
			{Id: aws.String("b"), ReceiptHandle: got[1].ReceiptHandle, VisibilityTimeout: 60},
			{Id: aws.String("c"), ReceiptHandle: aws.String("garbage"), VisibilityTimeout: 0},
		}})
	if err != nil || len(out.Successful) != 2 || len(out.Failed) != 1 || aws.ToString(out.Failed[0].Id) != "c" ||
		aws.ToString(out.Failed[0].Code) != "ReceiptHandleIsInvalid" {
		t.Fatalf("%s: %+v %v", tg.name, out, err)
	}
	if c := tg.counts(t, url); c[0] != 1 || c[1] != 1 {
		t.Errorf("%s: counts %v after making one of two visible, want 1 visible, 1 not", tg.name, c)
	}
}

func testRedrive(t *testing.T, tg *target) {
	dlq := tg.queue(t, nil)
	policy := fmt.Sprintf(`{"deadLetterTargetArn":%q,"maxReceiveCount":2}`, tg.arn(t, dlq))
	url := tg.queue(t, map[string]string{"RedrivePolicy": policy})
	sent := tg.send(t, url, "poison")
	for i := 1; i <= 2; i++ {
		got := tg.receive(t, url, 1, 1)
		if len(got) != 1 || got[0].Attributes["ApproximateReceiveCount"] != strconv.Itoa(i) {
			t.Fatalf("%s: receive %d: %+v", tg.name, i, got)
		}
		tg.advance(t, 1500*time.Millisecond)
	}
	for _, m := range tg.receive(t, url, 1, 30) {
		if aws.ToString(m.MessageId) != aws.ToString(sent.MessageId) && aws.ToString(m.Body) == "poison" &&
			m.Attributes["ApproximateReceiveCount"] == "1" {
			// A second copy of the send: the SDK sent it again after an
			// answer it did not get (moto under load), as it would to SQS.
			// It is not the poison coming back; it goes.
			t.Logf("%s: a retried send left a second copy %s", tg.name, aws.ToString(m.MessageId))
			if _, err := tg.client.DeleteMessage(t.Context(), &awssqs.DeleteMessageInput{QueueUrl: &url, ReceiptHandle: m.ReceiptHandle}); err != nil {
				t.Fatal(err)
			}
			continue
		}
		t.Errorf("%s: delivered a third time with maxReceiveCount 2: %+v", tg.name, m)
	}
	moved := tg.receive(t, dlq, 1, 30)
	if len(moved) != 1 || aws.ToString(moved[0].MessageId) != aws.ToString(sent.MessageId) || aws.ToString(moved[0].Body) != "poison" {
		t.Fatalf("%s: dead-letter queue holds %+v, want the message", tg.name, moved)
	}
	if c := tg.counts(t, url); c != [3]int{} {
		t.Errorf("%s: source counts %v after the move", tg.name, c)
	}
	source := moved[0].Attributes["DeadLetterQueueSourceArn"]
	tg.check(t, "RedrivePolicy/source-arn", source == tg.arn(t, url),
		"a moved message's DeadLetterQueueSourceArn = %q, want the source queue's ARN %q", source, tg.arn(t, url))
	direct := tg.send(t, dlq, "sent to the dead-letter queue itself")
	for _, m := range tg.receive(t, dlq, 10, 30) {
		if aws.ToString(m.MessageId) == aws.ToString(direct.MessageId) {
			if v, ok := m.Attributes["DeadLetterQueueSourceArn"]; ok {
				t.Errorf("%s: a message sent to the queue carries DeadLetterQueueSourceArn %q", tg.name, v)
			}
		}
	}
	_, err := tg.client.SetQueueAttributes(t.Context(), &awssqs.SetQueueAttributesInput{QueueUrl: &url, Attributes: map[string]string{
		"RedrivePolicy": `{"deadLetterTargetArn":"arn:aws:sqs:us-east-1:123456789012:no-such-dlq","maxReceiveCount":2}`}})
	c, _ := code(err)
	tg.check(t, "RedrivePolicy/missing-target", c == "InvalidParameterValue", "a RedrivePolicy to a missing queue: %v, want InvalidParameterValue", err)
	src, err := tg.client.ListDeadLetterSourceQueues(t.Context(), &awssqs.ListDeadLetterSourceQueuesInput{QueueUrl: &dlq})
	if err != nil || len(src.QueueUrls) != 1 || !strings.HasSuffix(src.QueueUrls[0], url[strings.LastIndex(url, "/"):]) {
		t.Errorf("%s: ListDeadLetterSourceQueues = %+v, %v", tg.name, src, err)
	}
}

func testDelay(t *testing.T, tg *target) {
	url := tg.queue(t, map[string]string{"DelaySeconds": "1"})
	tg.send(t, url, "queue delay")
	if _, err := tg.client.SendMessage(t.Context(), &awssqs.SendMessageInput{QueueUrl: &url, MessageBody: aws.String("no delay"),
		DelaySeconds: 0}); err != nil {
		t.Fatal(err)
	}
	// DelaySeconds 0 on the message is the queue's delay: the SDK omits a
	// zero, as every client does.
	if c := tg.counts(t, url); c[2] != 2 {
		t.Errorf("%s: %v; want both messages delayed", tg.name, c)
	}
	if got := tg.receive(t, url, 10, 30); len(got) != 0 {
		t.Errorf("%s: delayed messages received at once: %d", tg.name, len(got))
	}
	if _, err := tg.client.SendMessage(t.Context(), &awssqs.SendMessageInput{QueueUrl: &url, MessageBody: aws.String("longer"),
		DelaySeconds: 3}); err != nil {
		t.Fatal(err)
	}
	tg.advance(t, 1500*time.Millisecond)
	if got := tg.receive(t, url, 10, 30); len(got) != 2 {
		t.Errorf("%s: after the queue's delay received %d, want 2", tg.name, len(got))
	}
	if c := tg.counts(t, url); c[2] != 1 {
		t.Errorf("%s: counts %v, want the 3 s message still delayed", tg.name, c)
	}
	_, err := tg.client.SendMessage(t.Context(), &awssqs.SendMessageInput{QueueUrl: &url, MessageBody: aws.String("x"), DelaySeconds: 901})
	if c, _ := code(err); c != "InvalidParameterValue" {
		t.Errorf("%s: DelaySeconds 901: %v", tg.name, err)
	}
}

func testLongPoll(t *testing.T, tg *target) {
	url := tg.queue(t, nil)
	type result struct {
		msgs []types.Message
		err  error
		took time.Duration
	}
	poll := func(wait int32) chan result {
		ch := make(chan result, 1)
		go func() {
			start := time.Now()
			out, err := tg.client.ReceiveMessage(context.Background(), &awssqs.ReceiveMessageInput{QueueUrl: &url, WaitTimeSeconds: wait})
			if err != nil {
				ch <- result{err: err}
				return
			}
			ch <- result{msgs: out.Messages, took: time.Since(start)}
		}()
		return ch
	}
	ch := poll(5)
	tg.polling(t)
	tg.send(t, url, "arrives during the poll")
	r := <-ch
	if r.err != nil || len(r.msgs) != 1 {
		t.Fatalf("%s: long poll: %+v", tg.name, r)
	}
	if tg.wall && r.took >= 5*time.Second {
		t.Errorf("%s: the long poll waited its whole 5 s (%v) though a message arrived", tg.name, r.took)
	}
	ch = poll(1)
	tg.polling(t)
	tg.advance(t, time.Second)
	if r := <-ch; r.err != nil || len(r.msgs) != 0 {
		t.Errorf("%s: an empty long poll: %+v", tg.name, r)
	}
	_, err := tg.client.ReceiveMessage(t.Context(), &awssqs.ReceiveMessageInput{QueueUrl: &url, WaitTimeSeconds: 21})
	if c, _ := code(err); c != "InvalidParameterValue" {
		t.Errorf("%s: WaitTimeSeconds 21: %v", tg.name, err)
	}
}

func testCounts(t *testing.T, tg *target) {
	url := tg.queue(t, nil)
	for i := range 3 {
		tg.send(t, url, "m"+strconv.Itoa(i))
	}
	if _, err := tg.client.SendMessage(t.Context(), &awssqs.SendMessageInput{QueueUrl: &url, MessageBody: aws.String("later"),
		DelaySeconds: 60}); err != nil {
		t.Fatal(err)
	}
	tg.receive(t, url, 1, 30)
	if c := tg.counts(t, url); c != [3]int{2, 1, 1} {
		t.Errorf("%s: visible, in flight, delayed = %v, want [2 1 1]", tg.name, c)
	}
}

func testRetention(t *testing.T, tg *target) {
	if tg.wall && os.Getenv("TRIAGE_SQS_SLOW") == "" {
		t.Skip("waits a minute on moto; TRIAGE_SQS_SLOW=1 runs it")
	}
	url := tg.queue(t, map[string]string{"MessageRetentionPeriod": "60"})
	tg.send(t, url, "expires")
	tg.advance(t, 30*time.Second)
	tg.send(t, url, "stays")
	tg.advance(t, 31*time.Second)
	got := tg.receive(t, url, 10, 30)
	tg.check(t, "Retention/younger-kept", len(got) == 1 && aws.ToString(got[0].Body) == "stays",
		"after 61 s with a 60 s retention received %+v, want only the younger message", got)
	_, err := tg.client.SetQueueAttributes(t.Context(), &awssqs.SetQueueAttributesInput{QueueUrl: &url,
		Attributes: map[string]string{"MessageRetentionPeriod": "59"}})
	c, _ := code(err)
	tg.check(t, "SetQueueAttributes/validation", c == "InvalidAttributeValue", "retention 59 s: %v, want InvalidAttributeValue", err)
}

func testMessageLimits(t *testing.T, tg *target) {
	url := tg.queue(t, nil)
	big := strings.Repeat("x", sqs.MaxMessageSize)
	if _, err := tg.client.SendMessage(t.Context(), &awssqs.SendMessageInput{QueueUrl: &url, MessageBody: &big}); err != nil {
		t.Errorf("%s: a message of the largest size: %v", tg.name, err)
	}
	over := big + "x"
	_, err := tg.client.SendMessage(t.Context(), &awssqs.SendMessageInput{QueueUrl: &url, MessageBody: &over})
	if c, _ := code(err); c != "InvalidParameterValue" {
		t.Errorf("%s: a message 1 byte over the limit: %v", tg.name, err)
	}
	small := tg.queue(t, map[string]string{"MaximumMessageSize": "1024"})
	body := strings.Repeat("y", 1025)
	_, err = tg.client.SendMessage(t.Context(), &awssqs.SendMessageInput{QueueUrl: &small, MessageBody: &body})
	if c, _ := code(err); c != "InvalidParameterValue" {
		t.Errorf("%s: 1025 bytes to a queue of MaximumMessageSize 1024: %v", tg.name, err)
	}
	_, err = tg.client.SendMessage(t.Context(), &awssqs.SendMessageInput{QueueUrl: &url, MessageBody: aws.String("nul \x00 byte")})
	c, _ := code(err)
	tg.check(t, "SendMessage/invalid-characters", c == "InvalidMessageContents", "a body with U+0000: %v, want InvalidMessageContents", err)
}

func testPurgeQueue(t *testing.T, tg *target) {
	url := tg.queue(t, nil)
	tg.send(t, url, "a")
	tg.send(t, url, "b")
	if _, err := tg.client.PurgeQueue(t.Context(), &awssqs.PurgeQueueInput{QueueUrl: &url}); err != nil {
		t.Fatal(err)
	}
	if c := tg.counts(t, url); c != [3]int{} {
		t.Errorf("%s: counts after purge %v", tg.name, c)
	}
	_, err := tg.client.PurgeQueue(t.Context(), &awssqs.PurgeQueueInput{QueueUrl: &url})
	var busy *types.PurgeQueueInProgress
	tg.check(t, "PurgeQueue/twice", errors.As(err, &busy), "a second purge at once: %v, want PurgeQueueInProgress", err)
}

func testListQueues(t *testing.T, tg *target) {
	prefix := fmt.Sprintf("list-%d-%d", tg.seq.Add(1), time.Now().UnixNano()%1e6)
	var urls []string
	for i := range 3 {
		out, err := tg.client.CreateQueue(t.Context(), &awssqs.CreateQueueInput{QueueName: aws.String(prefix + "-" + strconv.Itoa(i))})
		if err != nil {
			t.Fatal(err)
		}
		urls = append(urls, aws.ToString(out.QueueUrl))
	}
	all, err := tg.client.ListQueues(t.Context(), &awssqs.ListQueuesInput{QueueNamePrefix: &prefix})
	if err != nil || len(all.QueueUrls) != 3 {
		t.Fatalf("%s: ListQueues(prefix) = %+v, %v", tg.name, all, err)
	}
	var paged []string
	in := &awssqs.ListQueuesInput{QueueNamePrefix: &prefix, MaxResults: aws.Int32(2)}
	for range 5 {
		out, err := tg.client.ListQueues(t.Context(), in)
		if err != nil {
			t.Fatal(err)
		}
		paged = append(paged, out.QueueUrls...)
		if out.NextToken == nil {
			break
		}
		in.NextToken = out.NextToken
	}
	slices.Sort(paged)
	if len(paged) != 3 {
		t.Errorf("%s: paged ListQueues gave %v", tg.name, paged)
	}
}

func testQueueAttributes(t *testing.T, tg *target) {
	url := tg.queue(t, map[string]string{"VisibilityTimeout": "45", "MessageRetentionPeriod": "3600"})
	out, err := tg.client.GetQueueAttributes(t.Context(), &awssqs.GetQueueAttributesInput{QueueUrl: &url,
		AttributeNames: []types.QueueAttributeName{types.QueueAttributeNameAll}})
	if err != nil {
		t.Fatal(err)
	}
	a := out.Attributes
	if a["VisibilityTimeout"] != "45" || a["MessageRetentionPeriod"] != "3600" || a["DelaySeconds"] != "0" ||
		a["ReceiveMessageWaitTimeSeconds"] != "0" || !strings.HasPrefix(a["QueueArn"], "arn:aws:sqs:us-east-1:123456789012:") ||
		a["CreatedTimestamp"] == "" || a["MaximumMessageSize"] != strconv.Itoa(sqs.MaxMessageSize) {
		t.Errorf("%s: attributes %v", tg.name, a)
	}
	if _, err := tg.client.SetQueueAttributes(t.Context(), &awssqs.SetQueueAttributesInput{QueueUrl: &url,
		Attributes: map[string]string{"VisibilityTimeout": "90", "DelaySeconds": "5"}}); err != nil {
		t.Fatal(err)
	}
	out, err = tg.client.GetQueueAttributes(t.Context(), &awssqs.GetQueueAttributesInput{QueueUrl: &url,
		AttributeNames: []types.QueueAttributeName{types.QueueAttributeNameVisibilityTimeout, types.QueueAttributeNameDelaySeconds}})
	if err != nil || len(out.Attributes) != 2 || out.Attributes["VisibilityTimeout"] != "90" || out.Attributes["DelaySeconds"] != "5" {
		t.Errorf("%s: after SetQueueAttributes: %v %v", tg.name, out, err)
	}
	var wrong []string
	for name, v := range map[string]string{"VisibilityTimeout": "43201", "DelaySeconds": "901", "ReceiveMessageWaitTimeSeconds": "21",
		"MaximumMessageSize": "1023"} {
		_, err := tg.client.SetQueueAttributes(t.Context(), &awssqs.SetQueueAttributesInput{QueueUrl: &url, Attributes: map[string]string{name: v}})
		if c, _ := code(err); c != "InvalidAttributeValue" {
			wrong = append(wrong, fmt.Sprintf("%s=%s: %v", name, v, err))
		}
	}
	_, err = tg.client.SetQueueAttributes(t.Context(), &awssqs.SetQueueAttributesInput{QueueUrl: &url,
		Attributes: map[string]string{"NoSuchAttribute": "1"}})
	if c, _ := code(err); c != "InvalidAttributeName" {
		wrong = append(wrong, fmt.Sprintf("an unknown attribute: %v", err))
	}
	tg.check(t, "SetQueueAttributes/validation", len(wrong) == 0, "want InvalidAttributeValue / InvalidAttributeName: %v", wrong)
}

func testDeleteQueue(t *testing.T, tg *target) {
	url := tg.queue(t, nil)
	tg.send(t, url, "x")
	if _, err := tg.client.DeleteQueue(t.Context(), &awssqs.DeleteQueueInput{QueueUrl: &url}); err != nil {
		t.Fatal(err)
	}
	_, err := tg.client.SendMessage(t.Context(), &awssqs.SendMessageInput{QueueUrl: &url, MessageBody: aws.String("y")})
	var missing *types.QueueDoesNotExist
	if !errors.As(err, &missing) {
		t.Errorf("%s: SendMessage after DeleteQueue: %v", tg.name, err)
	}
}

func testReceiveParameters(t *testing.T, tg *target) {
	url := tg.queue(t, nil)
	for _, n := range []int32{11, -1} {
		_, err := tg.client.ReceiveMessage(t.Context(), &awssqs.ReceiveMessageInput{QueueUrl: &url, MaxNumberOfMessages: n})
		if c, _ := code(err); c != "InvalidParameterValue" {
			t.Errorf("%s: MaxNumberOfMessages %d: %v", tg.name, n, err)
		}
	}
	for i := range 15 {
		tg.send(t, url, "m"+strconv.Itoa(i))
	}
	got := tg.receive(t, url, 10, 30)
	if len(got) == 0 || len(got) > 10 {
		t.Errorf("%s: a receive of 10 from 15 gave %d", tg.name, len(got))
	}
}
