package sqs

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"maps"
	"math/rand/v2"
	"net/http"
	"net/url"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/triagehq/triage/internal/clock"
)

// Defaults of Options.
const (
	DefaultRegion    = "us-east-1"
	DefaultAccountID = "123456789012"
	// senderID is every message's SenderId: the local caller's identity.
	senderID = "AIDALOCALSQSEMULATOR"
	// maxRequest bounds a request body: a batch of 10 messages of 1 MiB
	// each in JSON, with room.
	maxRequest = 16 << 20
	// purgeInterval is how long after a PurgeQueue another is refused.
	purgeInterval = 60 * time.Second
)

// Waiter is a clock that long polls can wait on: After fires once the
// clock has moved d past the time of the call. A Clock given to New that
// implements it times the long polls too; otherwise they wait on the wall
// clock.
type Waiter interface {
	After(d time.Duration) <-chan time.Time
}

// Options configure New. The zero value is us-east-1, account
// 123456789012, on the wall clock.
type Options struct {
	// Clock is the time of every timestamp, delay, visibility timeout and
	// retention period; nil is the wall clock.
	Clock clock.Clock
	// Region and AccountID make the queues' ARNs and URLs.
	Region, AccountID string
}

// Server is the emulator: an http.Handler for SQS's JSON protocol, safe
// for concurrent use.
type Server struct {
	clock           clock.Clock
	after           func(time.Duration) (<-chan time.Time, func())
	region, account string

	mu     sync.RWMutex
	queues map[string]*queue

	calls map[string]*atomic.Int64
}

// New returns an empty Server.
func New(opts Options) *Server {
	s := &Server{clock: clock.Or(opts.Clock), region: opts.Region, account: opts.AccountID, queues: map[string]*queue{},
		calls: map[string]*atomic.Int64{}}
	if s.region == "" {
		s.region = DefaultRegion
	}
	if s.account == "" {
		s.account = DefaultAccountID
	}
	if w, ok := opts.Clock.(Waiter); ok {
		s.after = func(d time.Duration) (<-chan time.Time, func()) { return w.After(d), func() {} }
	} else {
		s.after = func(d time.Duration) (<-chan time.Time, func()) {
			t := time.NewTimer(d)
			return t.C, func() { t.Stop() }
		}
	}
	for op := range ops {
		s.calls[op] = new(atomic.Int64)
	}
	return s
}

type operation func(s *Server, ctx context.Context, body []byte, host string) (any, *apiError)

// ops are the operations the emulator implements, by name.
var ops = map[string]operation{
	"CreateQueue": (*Server).createQueue, "GetQueueUrl": (*Server).getQueueURL, "ListQueues": (*Server).listQueues,
	"DeleteQueue": onQueue((*Server).deleteQueue), "PurgeQueue": onQueue((*Server).purgeQueue),
	"GetQueueAttributes": onQueue((*Server).getQueueAttributes), "SetQueueAttributes": onQueue((*Server).setQueueAttributes),
	"SendMessage": onQueue((*Server).sendMessage), "SendMessageBatch": onQueue((*Server).sendMessageBatch),
	"ReceiveMessage": (*Server).receiveMessage, "DeleteMessage": onQueue((*Server).deleteMessage),
	"DeleteMessageBatch": onQueue((*Server).deleteMessageBatch), "ChangeMessageVisibility": onQueue((*Server).changeMessageVisibility),
	"ChangeMessageVisibilityBatch": onQueue((*Server).changeMessageVisibilityBatch),
	"TagQueue":                     onQueue((*Server).tagQueue), "UntagQueue": onQueue((*Server).untagQueue), "ListQueueTags": onQueue((*Server).listQueueTags),
	"ListDeadLetterSourceQueues": (*Server).listDeadLetterSourceQueues,
}

// onQueue is an operation on the one queue its request names: it decodes
// the request into In, looks up the queue In's QueueUrl names, and runs do
// on both.
func onQueue[In interface{ queueURL() string }](do func(s *Server, q *queue, in In) (any, *apiError)) operation {
	return func(s *Server, _ context.Context, body []byte, _ string) (any, *apiError) {
		var in In
		if err := decode(body, &in); err != nil {
			return nil, err
		}
		q, err := s.lookup(in.queueURL())
		if err != nil {
			return nil, err
		}
		return do(s, q, in)
	}
}

// Reset deletes every queue, as moto's /moto-api/reset does its own.
func (s *Server) Reset() {
	s.mu.Lock()
	qs := s.queues
	s.queues = map[string]*queue{}
	s.mu.Unlock()
	for _, q := range qs {
		q.mu.Lock()
		q.deleted = true
		q.purge()
		close(q.wake)
		q.wake = make(chan struct{})
		q.mu.Unlock()
	}
}

// Calls returns how many requests each operation has had, by name
// ("SendMessageBatch"), including the ones that failed.
func (s *Server) Calls() map[string]int64 {
	out := map[string]int64{}
	for op, n := range s.calls {
		if v := n.Load(); v > 0 {
			out[op] = v
		}
	}
	return out
}

// ServeHTTP answers one SQS request of the JSON protocol (POST, X-Amz-Target
// "AmazonSQS.<Operation>"). Signatures are not checked.
func (s *Server) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	target := r.Header.Get("X-Amz-Target")
	name, ok := strings.CutPrefix(target, "AmazonSQS.")
	if r.Method != http.MethodPost || !ok {
		writeError(w, newError(errInvalidAction, "the local SQS speaks the JSON protocol only (POST with X-Amz-Target: AmazonSQS.<Operation>); got %s %q",
			r.Method, target))
		return
	}
	op, ok := ops[name]
	if !ok {
		writeError(w, newError(errUnsupportedOperation, "%s is not implemented by the local SQS", name))
		return
	}
	s.calls[name].Add(1)
	body, err := io.ReadAll(http.MaxBytesReader(w, r.Body, maxRequest))
	if err != nil {
		writeError(w, newError(errInvalidParameterValue, "request body: %v", err))
		return
	}
	out, apiErr := op(s, r.Context(), body, r.Host)
	if apiErr != nil {
		writeError(w, apiErr)
		return
	}
	w.Header().Set("Content-Type", "application/x-amz-json-1.0")
	w.Header().Set("X-Amzn-RequestId", requestID())
	if out == nil {
		_, _ = io.WriteString(w, "{}")
		return
	}
	_ = json.NewEncoder(w).Encode(out)
}

func writeError(w http.ResponseWriter, e *apiError) {
	h := w.Header()
	h.Set("Content-Type", "application/x-amz-json-1.0")
	h.Set("X-Amzn-RequestId", requestID())
	h.Set("X-Amzn-Query-Error", e.code+";Sender")
	w.WriteHeader(e.status)
	_ = json.NewEncoder(w).Encode(map[string]string{"__type": "com.amazonaws.sqs#" + e.shape, "message": e.message})
}

func requestID() string { return newUUID() }

func newUUID() string {
	a, b := rand.Uint64(), rand.Uint64()
	return fmt.Sprintf("%08x-%04x-4%03x-%04x-%012x", a>>32, a>>16&0xffff, a&0xfff, b>>48&0x3fff|0x8000, b&0xffffffffffff)
}

func decode(body []byte, v any) *apiError {
	if len(body) == 0 {
		body = []byte("{}")
	}
	if err := json.Unmarshal(body, v); err != nil {
		return newError(errInvalidParameterValue, "the request is not valid JSON for the operation: %v", err)
	}
	return nil
}

// ---- queues ------------------------------------------------------------

var queueNameRE = regexp.MustCompile(`^[A-Za-z0-9_-]{1,80}$`)

func (s *Server) arnOf(name string) string {
	return "arn:aws:sqs:" + s.region + ":" + s.account + ":" + name
}

func (s *Server) urlOf(host, name string) string {
	if host == "" {
		host = "sqs." + s.region + ".amazonaws.com"
	}
	return "http://" + host + "/" + s.account + "/" + name
}

// lookup finds the queue a QueueUrl names by its last path segment (any
// host: moto's CloudFormation and the SDK spell them differently).
func (s *Server) lookup(queueURL string) (*queue, *apiError) {
	if queueURL == "" {
		return nil, newError(errMissingParameter, "The request must contain the parameter QueueUrl.")
	}
	name := queueURL
	if u, err := url.Parse(queueURL); err == nil && u.Path != "" {
		parts := strings.Split(strings.Trim(u.Path, "/"), "/")
		if len(parts) != 2 {
			return nil, newError(errInvalidAddress, "The address %s is not valid for this endpoint.", queueURL)
		}
		if parts[0] != s.account {
			return nil, newError(errQueueDoesNotExist, "The specified queue does not exist.")
		}
		name = parts[1]
	}
	s.mu.RLock()
	q := s.queues[name]
	s.mu.RUnlock()
	if q == nil {
		return nil, newError(errQueueDoesNotExist, "The specified queue does not exist.")
	}
	return q, nil
}

func (s *Server) queueByARN(arn string) *queue {
	name, ok := strings.CutPrefix(arn, "arn:aws:sqs:"+s.region+":"+s.account+":")
	if !ok {
		return nil
	}
	s.mu.RLock()
	defer s.mu.RUnlock()
	return s.queues[name]
}

type createQueueInput struct {
	QueueName  string            `json:"QueueName"`
	Attributes map[string]string `json:"Attributes"`
	Tags       map[string]string `json:"tags"`
}

type queueURLOutput struct {
	QueueURL string `json:"QueueUrl"`
}

func (s *Server) createQueue(_ context.Context, body []byte, host string) (any, *apiError) {
	var in createQueueInput
	if err := decode(body, &in); err != nil {
		return nil, err
	}
	if strings.HasSuffix(in.QueueName, ".fifo") {
		return nil, newError(errUnsupportedOperation, "FIFO queues are not emulated by the local SQS")
	}
	if !queueNameRE.MatchString(in.QueueName) {
		return nil, newError(errInvalidParameterValue,
			"Can only include alphanumeric characters, hyphens, or underscores. 1 to 80 in length")
	}
	for _, name := range readOnlyAttributes {
		if _, ok := in.Attributes[name]; ok {
			return nil, newError(errInvalidAttributeName, "Unknown Attribute %s.", name)
		}
	}
	now := s.clock.Now()
	s.mu.Lock()
	defer s.mu.Unlock()
	if q := s.queues[in.QueueName]; q != nil {
		q.mu.Lock()
		defer q.mu.Unlock()
		if name, differs := q.cfg.differs(in.Attributes); differs {
			return nil, newError(errQueueNameExists, "A queue already exists with the same name and a different value for attribute %s", name)
		}
		return queueURLOutput{s.urlOf(host, in.QueueName)}, nil
	}
	cfg := defaultConfig()
	if err := cfg.apply(in.Attributes, func(arn string) bool { return s.queueByARNLocked(arn) != nil }); err != nil {
		return nil, err
	}
	q := newQueue(in.QueueName, s.arnOf(in.QueueName), cfg, now)
	maps.Copy(q.tags, in.Tags)
	s.queues[in.QueueName] = q
	return queueURLOutput{s.urlOf(host, in.QueueName)}, nil
}

func (s *Server) queueByARNLocked(arn string) *queue {
	name, ok := strings.CutPrefix(arn, "arn:aws:sqs:"+s.region+":"+s.account+":")
	if !ok {
		return nil
	}
	return s.queues[name]
}

func (s *Server) getQueueURL(_ context.Context, body []byte, host string) (any, *apiError) {
	var in struct {
		QueueName string `json:"QueueName"`
		Owner     string `json:"QueueOwnerAWSAccountId"`
	}
	if err := decode(body, &in); err != nil {
		return nil, err
	}
	if in.QueueName == "" {
		return nil, newError(errMissingParameter, "The request must contain the parameter QueueName.")
	}
	s.mu.RLock()
	q := s.queues[in.QueueName]
	s.mu.RUnlock()
	if q == nil || in.Owner != "" && in.Owner != s.account {
		return nil, newError(errQueueDoesNotExist, "The specified queue does not exist.")
	}
	return queueURLOutput{s.urlOf(host, in.QueueName)}, nil
}

type listQueuesOutput struct {
	QueueURLs []string `json:"QueueUrls,omitempty"`
	NextToken string   `json:"NextToken,omitempty"`
}

func (s *Server) listQueues(_ context.Context, body []byte, host string) (any, *apiError) {
	var in struct {
		Prefix     string `json:"QueueNamePrefix"`
		MaxResults *int   `json:"MaxResults"`
		NextToken  string `json:"NextToken"`
	}
	if err := decode(body, &in); err != nil {
		return nil, err
	}
	limit := maxQueueResults
	if in.MaxResults != nil {
		if *in.MaxResults < 1 || *in.MaxResults > maxQueueResults {
			return nil, newError(errInvalidParameterValue, "Value %d for parameter MaxResults is invalid. Reason: must be between 1 and %d.",
				*in.MaxResults, maxQueueResults)
		}
		limit = *in.MaxResults
	}
	after := ""
	if in.NextToken != "" {
		raw, err := base64.RawURLEncoding.DecodeString(in.NextToken)
		if err != nil {
			return nil, newError(errInvalidParameterValue, "Invalid NextToken value.")
		}
		after = string(raw)
	}
	s.mu.RLock()
	names := make([]string, 0, len(s.queues))
	for name := range s.queues {
		if strings.HasPrefix(name, in.Prefix) && name > after {
			names = append(names, name)
		}
	}
	s.mu.RUnlock()
	slices.Sort(names)
	var out listQueuesOutput
	for i, name := range names {
		if i == limit {
			// A token only when MaxResults asked for pages, as SQS does.
			if in.MaxResults != nil {
				out.NextToken = base64.RawURLEncoding.EncodeToString([]byte(names[i-1]))
			}
			break
		}
		out.QueueURLs = append(out.QueueURLs, s.urlOf(host, name))
	}
	return out, nil
}

// queueInput is the QueueUrl of a request on one queue; the request types
// of the other operations on one queue embed it.
type queueInput struct {
	QueueURL string `json:"QueueUrl"`
}

func (in queueInput) queueURL() string { return in.QueueURL }

func (s *Server) deleteQueue(q *queue, _ queueInput) (any, *apiError) {
	s.mu.Lock()
	if s.queues[q.name] == q {
		delete(s.queues, q.name)
	}
	s.mu.Unlock()
	q.mu.Lock()
	q.deleted = true
	q.purge()
	close(q.wake) // long polls on it end
	q.wake = make(chan struct{})
	q.mu.Unlock()
	return nil, nil
}

func (s *Server) purgeQueue(q *queue, _ queueInput) (any, *apiError) {
	now := s.clock.Now()
	q.mu.Lock()
	defer q.mu.Unlock()
	if !q.purged.IsZero() && now.Sub(q.purged) < purgeInterval {
		return nil, newError(errPurgeQueueInProgress, "Only one PurgeQueue operation on %s is allowed every 60 seconds.", q.name)
	}
	q.purged = now
	q.purge()
	return nil, nil
}

type getAttributesInput struct {
	queueInput
	Names []string `json:"AttributeNames"`
}

func (s *Server) getQueueAttributes(q *queue, in getAttributesInput) (any, *apiError) {
	all := slices.Contains(in.Names, "All")
	for _, n := range in.Names {
		if n != "All" && !slices.Contains(settableAttributes, n) && !slices.Contains(readOnlyAttributes, n) {
			return nil, newError(errInvalidAttributeName, "Unknown Attribute %s.", n)
		}
	}
	now := s.clock.Now()
	q.mu.Lock()
	q.advance(now)
	values := maps.Clone(q.cfg.raw)
	values[attrApproxMessages] = strconv.Itoa(q.ready.Len())
	values[attrApproxNotVisible] = strconv.Itoa(q.inflight)
	values[attrApproxDelayed] = strconv.Itoa(q.delayed)
	values[attrCreatedTimestamp] = strconv.FormatInt(q.created.Unix(), 10)
	values[attrLastModifiedTimestamp] = strconv.FormatInt(q.modified.Unix(), 10)
	values[attrQueueArn] = q.arn
	q.mu.Unlock()
	out := map[string]string{}
	for k, v := range values {
		if all || slices.Contains(in.Names, k) {
			out[k] = v
		}
	}
	if len(out) == 0 {
		return struct{}{}, nil
	}
	return map[string]any{"Attributes": out}, nil
}

type setAttributesInput struct {
	queueInput
	Attributes map[string]string `json:"Attributes"`
}

func (s *Server) setQueueAttributes(q *queue, in setAttributesInput) (any, *apiError) {
	for _, name := range readOnlyAttributes {
		if _, ok := in.Attributes[name]; ok {
			return nil, newError(errInvalidAttributeName, "Unknown Attribute %s.", name)
		}
	}
	exists := func(arn string) bool { return s.queueByARN(arn) != nil }
	now := s.clock.Now()
	q.mu.Lock()
	defer q.mu.Unlock()
	cfg := q.cfg
	cfg.raw = maps.Clone(q.cfg.raw)
	if err := cfg.apply(in.Attributes, exists); err != nil {
		return nil, err
	}
	q.cfg, q.modified = cfg, now
	return nil, nil
}

type tagQueueInput struct {
	queueInput
	Tags map[string]string `json:"Tags"`
}

func (s *Server) tagQueue(q *queue, in tagQueueInput) (any, *apiError) {
	q.mu.Lock()
	maps.Copy(q.tags, in.Tags)
	q.mu.Unlock()
	return nil, nil
}

type untagQueueInput struct {
	queueInput
	Keys []string `json:"TagKeys"`
}

func (s *Server) untagQueue(q *queue, in untagQueueInput) (any, *apiError) {
	q.mu.Lock()
	for _, k := range in.Keys {
		delete(q.tags, k)
	}
	q.mu.Unlock()
	return nil, nil
}

func (s *Server) listQueueTags(q *queue, _ queueInput) (any, *apiError) {
	q.mu.Lock()
	defer q.mu.Unlock()
	if len(q.tags) == 0 {
		return struct{}{}, nil
	}
	return map[string]any{"Tags": maps.Clone(q.tags)}, nil
}

func (s *Server) listDeadLetterSourceQueues(_ context.Context, body []byte, host string) (any, *apiError) {
	var in queueInput
	if err := decode(body, &in); err != nil {
		return nil, err
	}
	dlq, err := s.lookup(in.QueueURL)
	if err != nil {
		return nil, err
	}
	s.mu.RLock()
	qs := slices.Collect(maps.Values(s.queues))
	s.mu.RUnlock()
	var urls []string
	for _, q := range qs {
		q.mu.Lock()
		if q.cfg.redrive != nil && q.cfg.redrive.TargetARN == dlq.arn {
			urls = append(urls, s.urlOf(host, q.name))
		}
		q.mu.Unlock()
	}
	slices.Sort(urls)
	return map[string]any{"queueUrls": urls}, nil
}

// ---- messages ------------------------------------------------------------

type sendEntry struct {
	ID                      string               `json:"Id"`
	MessageBody             *string              `json:"MessageBody"`
	DelaySeconds            *int                 `json:"DelaySeconds"`
	MessageAttributes       map[string]attrValue `json:"MessageAttributes"`
	MessageSystemAttributes map[string]attrValue `json:"MessageSystemAttributes"`
	MessageDeduplicationID  *string              `json:"MessageDeduplicationId"`
	MessageGroupID          *string              `json:"MessageGroupId"`
}

type sendResult struct {
	ID                           string `json:"Id,omitempty"`
	MessageID                    string `json:"MessageId"`
	MD5OfMessageBody             string `json:"MD5OfMessageBody"`
	MD5OfMessageAttributes       string `json:"MD5OfMessageAttributes,omitempty"`
	MD5OfMessageSystemAttributes string `json:"MD5OfMessageSystemAttributes,omitempty"`
}

// newMessage validates one message for q and builds it.
func (s *Server) newMessage(q *queue, e sendEntry, now time.Time) (*message, *apiError) {
	if e.MessageBody == nil {
		return nil, newError(errMissingParameter, "The request must contain the parameter MessageBody.")
	}
	body := *e.MessageBody
	if body == "" {
		return nil, newError(errInvalidParameterValue, "The request must contain the parameter MessageBody.")
	}
	if invalidText(body) {
		return nil, newError(errInvalidMessageContents, "Invalid characters found. Valid unicode characters are #x9 | #xA | #xD | #x20 to #xD7FF | #xE000 to #xFFFD | #x10000 to #x10FFFF")
	}
	if e.MessageDeduplicationID != nil {
		return nil, newError(errInvalidParameterValue, "Value %s for parameter MessageDeduplicationId is invalid. "+
			"Reason: The request include parameter that is not valid for this queue type.", *e.MessageDeduplicationID)
	}
	attrSize, err := validateAttributes(e.MessageAttributes, false)
	if err != nil {
		return nil, err
	}
	if _, err := validateAttributes(e.MessageSystemAttributes, true); err != nil {
		return nil, err
	}
	q.mu.Lock()
	maxSize, delay := q.cfg.maxSize, q.cfg.delay
	q.mu.Unlock()
	size := len(body) + attrSize
	if size > maxSize {
		return nil, newError(errInvalidParameterValue,
			"One or more parameters are invalid. Reason: Message must be shorter than %d bytes.", maxSize)
	}
	if e.DelaySeconds != nil {
		d := time.Duration(*e.DelaySeconds) * time.Second
		if d < 0 || d > maxDelay {
			return nil, newError(errInvalidParameterValue, "Value %d for parameter DelaySeconds is invalid. "+
				"Reason: DelaySeconds must be >= 0 and <= 900.", *e.DelaySeconds)
		}
		delay = d
	}
	return &message{id: newUUID(), body: body, md5Body: md5Hex(body), attrs: e.MessageAttributes,
		systemAttrs: e.MessageSystemAttributes, size: size, sent: now, due: now.Add(delay), heapIndex: -1,
		senderID: senderID}, nil
}

func (m *message) sendResult(id string) sendResult {
	return sendResult{ID: id, MessageID: m.id, MD5OfMessageBody: m.md5Body, MD5OfMessageAttributes: md5OfAttributes(m.attrs),
		MD5OfMessageSystemAttributes: md5OfAttributes(m.systemAttrs)}
}

// enqueue adds msgs to q; an error when q was deleted meanwhile.
func (q *queue) enqueue(now time.Time, msgs ...*message) *apiError {
	q.mu.Lock()
	defer q.mu.Unlock()
	if q.deleted {
		return newError(errQueueDoesNotExist, "The specified queue does not exist.")
	}
	q.advance(now)
	for _, m := range msgs {
		q.add(m, now)
	}
	return nil
}

type sendMessageInput struct {
	queueInput
	sendEntry
}

func (s *Server) sendMessage(q *queue, in sendMessageInput) (any, *apiError) {
	now := s.clock.Now()
	m, err := s.newMessage(q, in.sendEntry, now)
	if err != nil {
		return nil, err
	}
	if err := q.enqueue(now, m); err != nil {
		return nil, err
	}
	return m.sendResult(""), nil
}

var batchIDRE = regexp.MustCompile(`^[A-Za-z0-9_-]{1,80}$`)

// checkBatch applies the rules of every batch call to its entries' ids.
func checkBatch(ids []string) *apiError {
	switch {
	case len(ids) == 0:
		return newError(errEmptyBatch, "There should be at least one entry in the request.")
	case len(ids) > maxBatchEntries:
		return newError(errTooManyEntries, "Maximum number of entries per request are %d. You have sent %d.", maxBatchEntries, len(ids))
	}
	seen := map[string]bool{}
	for _, id := range ids {
		if !batchIDRE.MatchString(id) {
			return newError(errInvalidBatchEntryID, "A batch entry id can only contain alphanumeric characters, hyphens and underscores. "+
				"It can be at most 80 letters long.")
		}
		if seen[id] {
			return newError(errBatchEntryIdsNotDistinct, "Id %s repeated.", id)
		}
		seen[id] = true
	}
	return nil
}

type batchOutput[T any] struct {
	Successful []T            `json:"Successful"`
	Failed     []batchFailure `json:"Failed"`
}

type sendBatchInput struct {
	queueInput
	Entries []sendEntry `json:"Entries"`
}

func (s *Server) sendMessageBatch(q *queue, in sendBatchInput) (any, *apiError) {
	ids := make([]string, len(in.Entries))
	total := 0
	for i, e := range in.Entries {
		ids[i] = e.ID
		total += len(derefString(e.MessageBody))
		for name, a := range e.MessageAttributes {
			total += len(name) + len(a.DataType) + len(derefString(a.StringValue)) + len(a.BinaryValue)
		}
	}
	if err := checkBatch(ids); err != nil {
		return nil, err
	}
	if total > MaxMessageSize {
		return nil, newError(errBatchRequestTooLong, "Batch requests cannot be longer than %d bytes. You have sent %d bytes.", MaxMessageSize, total)
	}
	now := s.clock.Now()
	out := batchOutput[sendResult]{Successful: []sendResult{}, Failed: []batchFailure{}}
	var msgs []*message
	var msgIDs []string
	for _, e := range in.Entries {
		m, err := s.newMessage(q, e, now)
		if err != nil {
			out.Failed = append(out.Failed, failure(e.ID, err))
			continue
		}
		msgs, msgIDs = append(msgs, m), append(msgIDs, e.ID)
	}
	if err := q.enqueue(now, msgs...); err != nil {
		return nil, err
	}
	for i, m := range msgs {
		out.Successful = append(out.Successful, m.sendResult(msgIDs[i]))
	}
	return out, nil
}

type receivedMessage struct {
	MessageID              string               `json:"MessageId"`
	ReceiptHandle          string               `json:"ReceiptHandle"`
	MD5OfBody              string               `json:"MD5OfBody"`
	Body                   string               `json:"Body"`
	Attributes             map[string]string    `json:"Attributes,omitempty"`
	MD5OfMessageAttributes string               `json:"MD5OfMessageAttributes,omitempty"`
	MessageAttributes      map[string]attrValue `json:"MessageAttributes,omitempty"`
}

// System attributes of a received message.
const (
	sysSenderID          = "SenderId"
	sysSentTimestamp     = "SentTimestamp"
	sysReceiveCount      = "ApproximateReceiveCount"
	sysFirstReceive      = "ApproximateFirstReceiveTimestamp"
	sysTraceHeader       = "AWSTraceHeader"
	sysDeadLetterSource  = "DeadLetterQueueSourceArn"
	sysAll               = "All"
	receiveMaxMessages   = 10
	defaultReceiveNumber = 1
)

func (s *Server) receiveMessage(ctx context.Context, body []byte, _ string) (any, *apiError) {
	var in struct {
		queueInput
		AttributeNames    []string `json:"AttributeNames"`
		SystemNames       []string `json:"MessageSystemAttributeNames"`
		MessageAttributes []string `json:"MessageAttributeNames"`
		MaxNumber         *int     `json:"MaxNumberOfMessages"`
		VisibilityTimeout *int     `json:"VisibilityTimeout"`
		WaitTimeSeconds   *int     `json:"WaitTimeSeconds"`
	}
	if err := decode(body, &in); err != nil {
		return nil, err
	}
	q, err := s.lookup(in.QueueURL)
	if err != nil {
		return nil, err
	}
	n := defaultReceiveNumber
	if in.MaxNumber != nil {
		if n = *in.MaxNumber; n < 1 || n > receiveMaxMessages {
			return nil, newError(errInvalidParameterValue, "Value %d for parameter MaxNumberOfMessages is invalid. "+
				"Reason: Must be between 1 and 10, if provided.", n)
		}
	}
	q.mu.Lock()
	visibility, wait := q.cfg.visibility, q.cfg.wait
	q.mu.Unlock()
	if in.VisibilityTimeout != nil {
		if visibility = time.Duration(*in.VisibilityTimeout) * time.Second; visibility < 0 || visibility > maxVisibility {
			return nil, newError(errInvalidParameterValue, "Value %d for parameter VisibilityTimeout is invalid. "+
				"Reason: Must be >= 0 and <= 43200, if provided.", *in.VisibilityTimeout)
		}
	}
	if in.WaitTimeSeconds != nil {
		if wait = time.Duration(*in.WaitTimeSeconds) * time.Second; wait < 0 || wait > maxWait {
			return nil, newError(errInvalidParameterValue, "Value %d for parameter WaitTimeSeconds is invalid. "+
				"Reason: Must be >= 0 and <= 20, if provided.", *in.WaitTimeSeconds)
		}
	}
	got, err := s.receive(ctx, q, n, visibility, wait)
	if err != nil {
		return nil, err
	}
	system := append(slices.Clone(in.AttributeNames), in.SystemNames...)
	out := make([]receivedMessage, 0, len(got))
	for _, r := range got {
		out = append(out, r.render(system, in.MessageAttributes))
	}
	if len(out) == 0 {
		return struct{}{}, nil
	}
	return map[string]any{"Messages": out}, nil
}

// received is a message as one receive saw it: a copy of what the reply
// needs, taken under the queue's lock.
type received struct {
	handle                    string
	receiveCount              int
	firstReceive, sent        time.Time
	attrs, systemAttrs        map[string]attrValue
	id, body, md5Body, sender string
	deadLetterSource          string
}

func (r received) render(system, names []string) receivedMessage {
	out := receivedMessage{MessageID: r.id, ReceiptHandle: r.handle, MD5OfBody: r.md5Body, Body: r.body}
	want := func(name string) bool { return slices.Contains(system, sysAll) || slices.Contains(system, name) }
	attrs := map[string]string{}
	if want(sysSenderID) {
		attrs[sysSenderID] = r.sender
	}
	if want(sysSentTimestamp) {
		attrs[sysSentTimestamp] = strconv.FormatInt(r.sent.UnixMilli(), 10)
	}
	if want(sysReceiveCount) {
		attrs[sysReceiveCount] = strconv.Itoa(r.receiveCount)
	}
	if want(sysFirstReceive) {
		attrs[sysFirstReceive] = strconv.FormatInt(r.firstReceive.UnixMilli(), 10)
	}
	if r.deadLetterSource != "" && want(sysDeadLetterSource) {
		attrs[sysDeadLetterSource] = r.deadLetterSource
	}
	if tr, ok := r.systemAttrs[sysTraceHeader]; ok && want(sysTraceHeader) {
		attrs[sysTraceHeader] = derefString(tr.StringValue)
	}
	if len(attrs) > 0 {
		out.Attributes = attrs
	}
	out.MessageAttributes = selectAttributes(r.attrs, names)
	out.MD5OfMessageAttributes = md5OfAttributes(out.MessageAttributes)
	return out
}

// receive takes up to n messages from q, waiting up to wait for the first
// (a long poll); messages past their queue's maxReceiveCount go to its
// dead-letter queue on the way.
func (s *Server) receive(ctx context.Context, q *queue, n int, visibility, wait time.Duration) ([]received, *apiError) {
	deadline := s.clock.Now().Add(wait)
	for {
		q.mu.Lock()
		redrive := q.cfg.redrive
		q.mu.Unlock()
		var dlq *queue
		if redrive != nil {
			dlq = s.queueByARN(redrive.TargetARN)
		}
		now := s.clock.Now()
		q.mu.Lock()
		if q.deleted {
			q.mu.Unlock()
			return nil, newError(errQueueDoesNotExist, "The specified queue does not exist.")
		}
		q.advance(now)
		got, moved := q.receive(now, n, visibility, dlq != nil && q.cfg.redrive != nil)
		out := make([]received, len(got))
		for i, m := range got {
			out[i] = received{handle: handle{queue: q.name, id: m.id, serial: m.serial}.encode(), receiveCount: m.receiveCount,
				firstReceive: m.firstReceive, sent: m.sent, attrs: m.attrs, systemAttrs: m.systemAttrs, id: m.id, body: m.body,
				md5Body: m.md5Body, sender: m.senderID, deadLetterSource: m.deadLetterSource}
		}
		var wake chan struct{}
		var next time.Time
		if len(out) == 0 && len(moved) == 0 {
			wake = q.wake
			q.waiters++
			if len(q.timers) > 0 {
				next = q.timers[0].due
			}
		}
		q.mu.Unlock()
		if len(moved) > 0 {
			s.deadLetter(q, dlq, moved, now)
		}
		if len(out) > 0 || !now.Before(deadline) {
			if wake != nil {
				q.unwait()
			}
			return out, nil
		}
		if wake == nil {
			continue // only moves: look again at once
		}
		sleep := deadline.Sub(now)
		if !next.IsZero() && next.Sub(now) < sleep {
			sleep = max(next.Sub(now), time.Millisecond)
		}
		timer, stop := s.after(sleep)
		select {
		case <-wake:
		case <-timer:
		case <-ctx.Done():
			stop()
			q.unwait()
			return nil, newError(errInvalidParameterValue, "request cancelled: %v", context.Cause(ctx))
		}
		stop()
		q.unwait()
	}
}

func (q *queue) unwait() {
	q.mu.Lock()
	q.waiters--
	q.mu.Unlock()
}

// deadLetter puts msgs, moved from src by its RedrivePolicy, on dlq: same
// id, body, attributes, sent time and receive count, visible at once, and
// marked with src's ARN (the system attribute DeadLetterQueueSourceArn). A
// dead-letter queue deleted meanwhile loses nothing: the messages go back
// to src, as SQS keeps a message whose redrive target is gone.
func (s *Server) deadLetter(src, dlq *queue, msgs []*message, now time.Time) {
	dlq.mu.Lock()
	if !dlq.deleted {
		dlq.advance(now)
		for _, m := range msgs {
			m.due, m.heapIndex, m.deadLetterSource = now, -1, src.arn
			dlq.add(m, now)
		}
		dlq.mu.Unlock()
		return
	}
	dlq.mu.Unlock()
	_ = src.enqueue(now, msgs...) // src gone too: the messages went with it
}

type receiptEntry struct {
	ID                string `json:"Id"`
	ReceiptHandle     string `json:"ReceiptHandle"`
	VisibilityTimeout *int   `json:"VisibilityTimeout"`
}

// receiptInput is the request of DeleteMessage and ChangeMessageVisibility;
// receiptBatchInput that of their batches.
type (
	receiptInput struct {
		queueInput
		receiptEntry
	}
	receiptBatchInput struct {
		queueInput
		Entries []receiptEntry `json:"Entries"`
	}
)

// withHandle parses raw for q and runs fn under q's lock.
func (s *Server) withHandle(q *queue, raw string, fn func(h handle, now time.Time) *apiError) *apiError {
	if raw == "" {
		return newError(errMissingParameter, "The request must contain the parameter ReceiptHandle.")
	}
	h, ok := parseHandle(raw)
	if !ok || h.queue != q.name {
		return newError(errReceiptHandleIsInvalid, "The input receipt handle \"%s\" is not a valid receipt handle.", raw)
	}
	now := s.clock.Now()
	q.mu.Lock()
	defer q.mu.Unlock()
	if q.deleted {
		return newError(errQueueDoesNotExist, "The specified queue does not exist.")
	}
	q.advance(now)
	return fn(h, now)
}

func (s *Server) deleteMessage(q *queue, in receiptInput) (any, *apiError) {
	return nil, s.withHandle(q, in.ReceiptHandle, func(h handle, _ time.Time) *apiError { return q.deleteMessage(h) })
}

type idResult struct {
	ID string `json:"Id"`
}

func (s *Server) deleteMessageBatch(q *queue, in receiptBatchInput) (any, *apiError) {
	return s.receiptBatch(q, in.Entries, func(e receiptEntry) *apiError {
		return s.withHandle(q, e.ReceiptHandle, func(h handle, _ time.Time) *apiError { return q.deleteMessage(h) })
	})
}

func (s *Server) receiptBatch(q *queue, entries []receiptEntry, each func(receiptEntry) *apiError) (any, *apiError) {
	ids := make([]string, len(entries))
	for i, e := range entries {
		ids[i] = e.ID
	}
	if err := checkBatch(ids); err != nil {
		return nil, err
	}
	out := batchOutput[idResult]{Successful: []idResult{}, Failed: []batchFailure{}}
	for _, e := range entries {
		err := each(e)
		switch {
		case err == nil:
			out.Successful = append(out.Successful, idResult{e.ID})
		case errors.Is(err, errQueueGone):
			return nil, err
		default:
			out.Failed = append(out.Failed, failure(e.ID, err))
		}
	}
	return out, nil
}

// errQueueGone matches a QueueDoesNotExist met inside a batch: the whole
// call fails, as it would have had the queue been gone before it.
var errQueueGone = &apiError{shape: errQueueDoesNotExist.shape}

// Is makes errors.Is(err, errQueueGone) true for any QueueDoesNotExist.
func (e *apiError) Is(target error) bool {
	t, ok := target.(*apiError)
	return ok && t == errQueueGone && e.shape == errQueueDoesNotExist.shape
}

func (s *Server) visibilityOf(e receiptEntry) (time.Duration, *apiError) {
	if e.VisibilityTimeout == nil {
		return 0, newError(errMissingParameter, "The request must contain the parameter VisibilityTimeout.")
	}
	v := time.Duration(*e.VisibilityTimeout) * time.Second
	if v < 0 || v > maxVisibility {
		return 0, newError(errInvalidParameterValue, "Value %d for parameter VisibilityTimeout is invalid. "+
			"Reason: Must be >= 0 and <= 43200.", *e.VisibilityTimeout)
	}
	return v, nil
}

func (s *Server) changeMessageVisibility(q *queue, in receiptInput) (any, *apiError) {
	return nil, s.changeOne(q, in.receiptEntry)
}

func (s *Server) changeOne(q *queue, e receiptEntry) *apiError {
	v, err := s.visibilityOf(e)
	if err != nil {
		return err
	}
	return s.withHandle(q, e.ReceiptHandle, func(h handle, now time.Time) *apiError {
		return q.changeVisibility(h, v, now, e.ReceiptHandle)
	})
}

func (s *Server) changeMessageVisibilityBatch(q *queue, in receiptBatchInput) (any, *apiError) {
	return s.receiptBatch(q, in.Entries, func(e receiptEntry) *apiError { return s.changeOne(q, e) })
}
