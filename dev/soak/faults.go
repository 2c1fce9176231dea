package soak

import (
	"bytes"
	"encoding/json"
	"fmt"
	"hash/crc32"
	"io"
	"maps"
	"math/rand/v2"
	"net/http"
	"regexp"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/triagehq/triage/internal/clock"
)

// AWSFaults is the fault model between the functions and moto: what share of
// the functions' DynamoDB and SQS requests the Injector answers itself, and
// when the dead-letter queues refuse messages. Rates are probabilities in
// [0, 1]; the zero value injects nothing.
type AWSFaults struct {
	// AttemptRate is the share of requests (each SDK attempt on its own)
	// answered with a throttle or a server error. The SDK's retries
	// (3 attempts) absorb most of them.
	AttemptRate float64
	// OperationRate is the share of operations — all the attempts of one
	// SDK call, told apart by their amz-sdk-invocation-id header — that are
	// refused on every attempt, so the error reaches the handler.
	OperationRate float64
	// DropRate is the share of writes (UpdateItem, PutItem,
	// TransactWriteItems, DeleteItem; SendMessage, SendMessageBatch,
	// ChangeMessageVisibility[Batch]) that are forwarded to moto and applied,
	// after which the connection is closed without a response: the SDK sees a
	// connection error and retries a write that already happened. This is
	// what the stores' idempotency tokens are for.
	DropRate float64
	// DLQOutageAfter and DLQOutageFor make the DLQs fail for a while: the
	// first SendMessage to a DLQ at least DLQOutageAfter after the Injector
	// was armed opens a window of DLQOutageFor during which every
	// SendMessage to a DLQ answers InternalError (500). Zero DLQOutageFor
	// turns the outage off.
	DLQOutageAfter time.Duration
	DLQOutageFor   time.Duration
	// EveryKind makes sure a short run sees each error of a service: while
	// one of the service's error kinds has not been injected, a third of
	// its requests get that kind (at AttemptRate's odds otherwise).
	EveryKind bool
}

// Kinds of AWS faults the Injector counts, the report's row names.
const (
	FaultDynamoThroughput = "dynamodb ProvisionedThroughputExceededException (400)"
	FaultDynamoThrottling = "dynamodb ThrottlingException (400)"
	FaultDynamoInternal   = "dynamodb InternalServerError (500)"
	FaultSQSThrottled     = "sqs RequestThrottled (403)"
	FaultSQSInternal      = "sqs InternalError (500)"
	FaultSQSUnavailable   = "sqs ServiceUnavailable (503)"
	FaultDynamoDropped    = "dynamodb write applied, response dropped"
	FaultSQSDropped       = "sqs write applied, response dropped"
	FaultDLQDropped       = "dlq SendMessage applied, response dropped"
	FaultDLQOutage        = "dlq SendMessage refused (outage window)"
	FaultOperationRefused = "operations refused on every attempt"
	// faultForwardFailed counts drops whose forward to moto failed: the
	// client saw a broken connection for a write that did not happen.
	faultForwardFailed = "write dropped, forward to moto failed"
)

// AWSFaultKinds lists the fault kinds the Injector counts, in report order
// (FaultOperationRefused counts operations, the others requests).
func AWSFaultKinds() []string {
	return []string{FaultDynamoThroughput, FaultDynamoThrottling, FaultDynamoInternal, FaultSQSThrottled,
		FaultSQSInternal, FaultSQSUnavailable, FaultDynamoDropped, FaultSQSDropped, FaultDLQDropped, FaultDLQOutage,
		FaultOperationRefused}
}

// awsError is one injectable error response.
type awsError struct {
	kind    string
	status  int
	typ     string // the JSON body's __type
	query   string // X-Amzn-Query-Error (SQS, AWS query compatibility)
	message string
}

// DynamoDB speaks JSON 1.0: the error code is the body's __type after '#'.
// SQS speaks JSON 1.0 in AWS query-compatible mode: the SDK takes the code
// from X-Amzn-Query-Error ("code;Sender|Receiver") when the header is there.
// RequestThrottled is modelled with status 403; InternalError and
// ServiceUnavailable are not in the model, so the SDK sees a generic API
// error whose 5xx status it retries.
var (
	dynamoErrors = []awsError{
		{FaultDynamoThroughput, http.StatusBadRequest, "com.amazonaws.dynamodb.v20120810#ProvisionedThroughputExceededException", "",
			"The level of configured provisioned throughput for the table was exceeded. Consider increasing your provisioning level with the UpdateTable API."},
		{FaultDynamoThrottling, http.StatusBadRequest, "com.amazon.coral.availability#ThrottlingException", "",
			"Rate of requests exceeds the allowed throughput."},
		{FaultDynamoInternal, http.StatusInternalServerError, "com.amazonaws.dynamodb.v20120810#InternalServerError", "",
			"Internal server error"},
	}
	sqsErrors = []awsError{
		{FaultSQSThrottled, http.StatusForbidden, "com.amazonaws.sqs#RequestThrottled", "RequestThrottled;Sender",
			"Request is throttled."},
		{FaultSQSInternal, http.StatusInternalServerError, "com.amazonaws.sqs#InternalError", "InternalError;Receiver",
			"We encountered an internal error. Please try again."},
		{FaultSQSUnavailable, http.StatusServiceUnavailable, "com.amazonaws.sqs#ServiceUnavailable", "ServiceUnavailable;Receiver",
			"Service Unavailable"},
	}
	dlqOutageError = awsError{FaultDLQOutage, http.StatusInternalServerError, "com.amazonaws.sqs#InternalError",
		"InternalError;Receiver", "We encountered an internal error. Please try again."}
)

// everyKindRate is the share of a service's requests answered with an error
// kind not yet injected, under AWSFaults.EveryKind.
const everyKindRate = 1.0 / 3

// writes are the operations a dropped response can hit: applied by moto,
// then the client sees a broken connection and retries.
var writes = map[string]bool{
	"DynamoDB_20120810.UpdateItem": true, "DynamoDB_20120810.PutItem": true,
	"DynamoDB_20120810.TransactWriteItems": true, "DynamoDB_20120810.DeleteItem": true,
	"AmazonSQS.SendMessage": true, "AmazonSQS.SendMessageBatch": true,
	"AmazonSQS.ChangeMessageVisibility": true, "AmazonSQS.ChangeMessageVisibilityBatch": true,
}

// Injector answers a seeded share of the requests it sees with AWS errors,
// drops the responses of some writes after moto applied them, and refuses
// DLQ sends during an outage window. Install Intercept on a moto.Front that
// only the functions use (devstack.Options.FunctionEndpoint), chained in
// front of the front the harness uses, so DynamoDB stays serialized.
//
// The decisions come from one seeded random source, so a seed gives the
// same rates and, up to the interleaving of concurrent requests, the same
// sequence. Injector is safe for concurrent use.
type Injector struct {
	faults AWSFaults
	next   string // the clean front, where dropped writes are forwarded
	client *http.Client
	clock  clock.Clock

	mu         sync.Mutex
	rng        *rand.Rand
	armed      bool
	armedAt    time.Time
	outageFrom time.Time // zero until the window opened
	dlqs       map[string]bool
	ops        map[string]bool // invocation id → refused on every attempt
	counts     map[string]int
	seen       map[string]int // requests by service
	log        io.Writer
}

// SetLog makes the Injector write one line per injected fault to w: the
// time since Arm, the operation, the fault, the SDK attempt and the item
// the request names. nil turns it off.
func (in *Injector) SetLog(w io.Writer) {
	in.mu.Lock()
	defer in.mu.Unlock()
	in.log = w
}

// itemRE finds the item a request names: a DynamoDB key, an SQS message
// attribute, or an envelope inside a message body (escaped JSON).
var itemRE = regexp.MustCompile(`"item_id":\{"S":"([^"]{1,256})"|"item_id":\{"DataType":"String","StringValue":"([^"]{1,256})"|\\"item_id\\":\\"([^"\\]{1,256})\\"`)

// logf writes an injection line; in.mu must not be held.
func (in *Injector) logf(r *http.Request, target, kind string, body []byte) {
	in.mu.Lock()
	defer in.mu.Unlock()
	if in.log == nil {
		return
	}
	item := ""
	if m := itemRE.FindSubmatch(body); m != nil {
		item = string(m[1]) + string(m[2]) + string(m[3])
	}
	fmt.Fprintf(in.log, "%8.3fs %-45s %-55s %-22s op=%s item=%s\n", in.clock.Now().Sub(in.armedAt).Seconds(), target, kind,
		r.Header.Get("Amz-Sdk-Request"), r.Header.Get("Amz-Sdk-Invocation-Id"), item)
}

// NewInjector returns an Injector that forwards dropped writes to next (the
// harness's endpoint, moto behind its serializing front). It injects
// nothing until Arm.
func NewInjector(f AWSFaults, next string, seed uint64) *Injector {
	return &Injector{
		faults: f, next: strings.TrimSuffix(next, "/"),
		client: &http.Client{Timeout: 30 * time.Second},
		clock:  clock.System{},
		rng:    rand.New(rand.NewPCG(seed, seed^0x5eed_a75)),
		dlqs:   map[string]bool{}, ops: map[string]bool{}, counts: map[string]int{}, seen: map[string]int{},
	}
}

// SetDLQs names the dead-letter queues (by URL; only the last path segment,
// the queue name, is compared).
func (in *Injector) SetDLQs(urls ...string) {
	in.mu.Lock()
	defer in.mu.Unlock()
	for _, u := range urls {
		in.dlqs[queueName(u)] = true
	}
}

// Arm starts injecting; the DLQ outage is timed from here.
func (in *Injector) Arm() {
	in.mu.Lock()
	defer in.mu.Unlock()
	in.armed, in.armedAt = true, in.clock.Now()
}

// Disarm stops injecting (the end of a run: the harness drains and checks).
func (in *Injector) Disarm() {
	in.mu.Lock()
	defer in.mu.Unlock()
	in.armed = false
}

// Counts returns the faults injected so far by kind (see AWSFaultKinds).
func (in *Injector) Counts() map[string]int {
	in.mu.Lock()
	defer in.mu.Unlock()
	return maps.Clone(in.counts)
}

// Requests returns how many requests the Injector saw, by service
// ("dynamodb", "sqs", "other").
func (in *Injector) Requests() map[string]int {
	in.mu.Lock()
	defer in.mu.Unlock()
	return maps.Clone(in.seen)
}

// OutageWindow reports when the DLQ outage opened and for how long; the
// zero time when it has not.
func (in *Injector) OutageWindow() (time.Time, time.Duration) {
	in.mu.Lock()
	defer in.mu.Unlock()
	return in.outageFrom, in.faults.DLQOutageFor
}

// Intercept is a moto.Interceptor.
func (in *Injector) Intercept(w http.ResponseWriter, r *http.Request, target string) bool {
	service := "other"
	switch {
	case strings.HasPrefix(target, "DynamoDB_"):
		service = "dynamodb"
	case strings.HasPrefix(target, "AmazonSQS."):
		service = "sqs"
	}
	in.mu.Lock()
	in.seen[service]++
	armed := in.armed
	in.mu.Unlock()
	if !armed || service == "other" {
		return false
	}
	if target == "AmazonSQS.SendMessage" && in.faults.DLQOutageFor > 0 {
		body, err := io.ReadAll(r.Body)
		r.Body = io.NopCloser(bytes.NewReader(body))
		if err == nil && in.refuseDLQ(body) {
			in.logf(r, target, FaultDLQOutage, body)
			writeAWSError(w, dlqOutageError)
			return true
		}
	}
	errs := dynamoErrors
	if service == "sqs" {
		errs = sqsErrors
	}
	in.mu.Lock()
	var answer *awsError
	op := r.Header.Get("Amz-Sdk-Invocation-Id")
	refused, known := in.ops[op]
	if op != "" && !known {
		refused = in.rng.Float64() < in.faults.OperationRate
		in.ops[op] = refused
		if refused {
			in.counts[FaultOperationRefused]++
		}
	}
	var missing []awsError
	if in.faults.EveryKind {
		for _, e := range errs {
			if in.counts[e.kind] == 0 {
				missing = append(missing, e)
			}
		}
	}
	switch {
	case len(missing) > 0 && in.rng.Float64() < everyKindRate:
		e := missing[in.rng.IntN(len(missing))]
		answer = &e
		in.counts[e.kind]++
	case refused, in.rng.Float64() < in.faults.AttemptRate:
		e := errs[in.rng.IntN(len(errs))]
		answer = &e
		in.counts[e.kind]++
	}
	drop := answer == nil && writes[target] && in.rng.Float64() < in.faults.DropRate
	in.mu.Unlock()
	switch {
	case answer != nil:
		body, _ := io.ReadAll(r.Body)
		in.logf(r, target, answer.kind, body)
		writeAWSError(w, *answer)
		return true
	case drop:
		in.forwardAndDrop(r, target, service)
		return true // not reached: forwardAndDrop aborts the response
	}
	return false
}

// refuseDLQ reports whether a SendMessage body goes to a DLQ while the
// outage window is open, opening it on the first DLQ send due.
func (in *Injector) refuseDLQ(body []byte) bool {
	in.mu.Lock()
	defer in.mu.Unlock()
	if !in.toDLQ(body) {
		return false
	}
	now := in.clock.Now()
	if in.outageFrom.IsZero() {
		if now.Sub(in.armedAt) < in.faults.DLQOutageAfter {
			return false
		}
		in.outageFrom = now
	}
	if now.Sub(in.outageFrom) >= in.faults.DLQOutageFor {
		return false
	}
	in.counts[FaultDLQOutage]++
	return true
}

// forwardAndDrop sends the request to moto (through the clean front) and
// then closes the client's connection without an answer: the write is
// applied, the client sees an error.
func (in *Injector) forwardAndDrop(r *http.Request, target, service string) {
	body, err := io.ReadAll(r.Body)
	kind := FaultDynamoDropped
	if service == "sqs" {
		kind = FaultSQSDropped
		if target == "AmazonSQS.SendMessage" && in.isDLQSend(body) {
			kind = FaultDLQDropped
		}
	}
	if err == nil {
		req, rerr := http.NewRequestWithContext(r.Context(), r.Method, in.next+r.URL.RequestURI(), bytes.NewReader(body))
		if rerr == nil {
			req.Header = r.Header.Clone()
			resp, derr := in.client.Do(req)
			if derr == nil {
				_, _ = io.Copy(io.Discard, resp.Body)
				_ = resp.Body.Close()
			} else {
				kind = faultForwardFailed
			}
		}
	}
	in.mu.Lock()
	in.counts[kind]++
	in.mu.Unlock()
	in.logf(r, target, kind, body)
	// net/http closes the connection without a response and logs nothing.
	panic(http.ErrAbortHandler)
}

func (in *Injector) isDLQSend(body []byte) bool {
	in.mu.Lock()
	defer in.mu.Unlock()
	return in.toDLQ(body)
}

// toDLQ reports whether a SendMessage body names one of the DLQs; in.mu
// must be held.
func (in *Injector) toDLQ(body []byte) bool {
	var req struct {
		QueueURL string `json:"QueueUrl"`
	}
	return json.Unmarshal(body, &req) == nil && in.dlqs[queueName(req.QueueURL)]
}

// requestSeq numbers the injected answers' request ids.
var requestSeq atomic.Int64

// writeAWSError answers e in the JSON protocol shape both clients parse.
func writeAWSError(w http.ResponseWriter, e awsError) {
	body, _ := json.Marshal(map[string]string{"__type": e.typ, "message": e.message})
	h := w.Header()
	h.Set("Content-Type", "application/x-amz-json-1.0")
	h.Set("X-Amzn-RequestId", fmt.Sprintf("soak-injected-%08d", requestSeq.Add(1)))
	if e.query != "" {
		h.Set("X-Amzn-Query-Error", e.query)
	} else {
		// DynamoDB signs every response body with its CRC32; the SDK
		// checks it.
		h.Set("X-Amz-Crc32", fmt.Sprint(crc32.ChecksumIEEE(body)))
	}
	w.WriteHeader(e.status)
	_, _ = w.Write(body)
}

// queueName is the last path segment of a queue URL.
func queueName(u string) string {
	u = strings.TrimSuffix(u, "/")
	if i := strings.LastIndexByte(u, '/'); i >= 0 {
		return u[i+1:]
	}
	return u
}
