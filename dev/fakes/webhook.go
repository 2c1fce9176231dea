package fakes

import (
	"cmp"
	"crypto/hmac"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"strconv"
	"strings"
	"sync"
	"time"
)

// Headers our notify client sends and the webhook receiver reads.
const (
	// IdempotencyHeader carries "<item_id>:notify"; the receiver keys its
	// fault plan and duplicate counting on it.
	IdempotencyHeader = "Idempotency-Key"
	// TimestampHeader carries the signing time in Unix seconds.
	TimestampHeader = "X-Triage-Timestamp"
	// SignatureHeader carries "v1=<hex HMAC-SHA256(secret, timestamp + "." +
	// body)>"; several comma-separated v1 values are accepted (key rotation).
	SignatureHeader = "X-Triage-Signature"
	// EventHeader names what a POST is: "item.delivered" for a result, a
	// notice's event type ("item.failed", "item.retry_scheduled").
	EventHeader = "X-Triage-Event"
)

// Defaults of WebhookOptions.
const (
	// DefaultSignatureTolerance is WebhookOptions.Tolerance when it is zero.
	DefaultSignatureTolerance = 5 * time.Minute
	// DefaultWebhookRetryAfter is WebhookOptions.RetryAfter when it is zero.
	DefaultWebhookRetryAfter = time.Second
	// DefaultDiscordRetryAfter is WebhookOptions.DiscordRetryAfter when it is
	// zero.
	DefaultDiscordRetryAfter = 1500 * time.Millisecond
	// DefaultKeepDeliveries is WebhookOptions.KeepDeliveries when it is zero.
	DefaultKeepDeliveries = 10000
)

// maxWebhookBody bounds a delivery's body; larger ones answer 413.
const maxWebhookBody = 1 << 20

// WebhookOptions configures NewWebhook. The zero value accepts unsigned
// deliveries.
type WebhookOptions struct {
	Shared
	// Secret, when set, makes the receiver verify SignatureHeader over
	// TimestampHeader and the body; a missing or bad signature answers 401
	// "invalid_token". Empty accepts every delivery unverified.
	Secret string
	// Tolerance bounds how far the signed timestamp may be from the
	// receiver's clock (replay protection); 0 means
	// DefaultSignatureTolerance, negative turns the check off.
	Tolerance time.Duration
	// RetryAfter is the Retry-After of rate_limit_slack; 0 means
	// DefaultWebhookRetryAfter.
	RetryAfter time.Duration
	// DiscordRetryAfter is the body's retry_after of rate_limit_discord; 0
	// means DefaultDiscordRetryAfter.
	DiscordRetryAfter time.Duration
	// KeepDeliveries bounds the deliveries Deliveries lists, oldest dropped
	// first; 0 means DefaultKeepDeliveries. Counts are never dropped.
	KeepDeliveries int
}

// Delivery is one successful POST the receiver answered 200.
type Delivery struct {
	// Key is the Idempotency-Key header; empty when the sender sent none.
	Key string `json:"key"`
	// Name is the {name} of /hooks/{name}.
	Name string `json:"name"`
	// Event is the EventHeader; empty when the sender sent none.
	Event string `json:"event,omitempty"`
	// Body is the request body.
	Body []byte `json:"-"`
	// At is when the receiver got it, by its clock.
	At time.Time `json:"at"`
	// SignatureValid is true when a secret is configured and the signature
	// matched; false when no secret is configured (nothing to check).
	SignatureValid bool `json:"signature_valid"`
	// Duplicate is set when an earlier delivery carried the same non-empty
	// Key.
	Duplicate bool `json:"duplicate"`
}

// MarshalJSON encodes the delivery with its body as text.
func (d Delivery) MarshalJSON() ([]byte, error) {
	type plain Delivery
	return json.Marshal(struct {
		plain
		Body string `json:"body"`
	}{plain(d), string(d.Body)})
}

// DeliveryStats summarises a webhook receiver's deliveries.
type DeliveryStats struct {
	// Total counts successful POSTs, duplicates included.
	Total int `json:"total"`
	// Distinct counts distinct non-empty idempotency keys among them.
	Distinct int `json:"distinct"`
	// Duplicates counts successful POSTs whose key an earlier one carried.
	Duplicates int `json:"duplicates"`
	// Unkeyed counts successful POSTs without an idempotency key.
	Unkeyed int `json:"unkeyed"`
	// PerKey counts successful POSTs per idempotency key.
	PerKey map[string]int `json:"per_key"`
}

// Webhook is a fake webhook receiver:
//
//	POST /hooks/{name}
//
// The fault plan is keyed on the Idempotency-Key header, falling back to the
// hook's name. For one call, first match wins: outage; a missing or bad
// signature when a secret is set (401 "invalid_token"); the plan. A normal
// answer is a 200 "ok", recorded as a Delivery. Receivers are idempotent: a
// repeated key still answers 200, and is counted as a duplicate. The control
// API is described in the package documentation; Webhook adds
// GET /_fake/deliveries.
type Webhook struct {
	*Plan

	opts WebhookOptions
	rec  *recorder
	mux  *http.ServeMux

	mu         sync.Mutex
	deliveries []Delivery
	perKey     map[string]int
	unkeyed    int
	duplicates int
}

// NewWebhook returns a fake webhook receiver; it is an http.Handler.
func NewWebhook(opts WebhookOptions) *Webhook {
	opts.Shared = opts.Shared.withDefaults()
	if opts.Tolerance == 0 {
		opts.Tolerance = DefaultSignatureTolerance
	}
	opts.RetryAfter = positiveOr(opts.RetryAfter, DefaultWebhookRetryAfter)
	opts.DiscordRetryAfter = positiveOr(opts.DiscordRetryAfter, DefaultDiscordRetryAfter)
	opts.KeepDeliveries = positiveOr(opts.KeepDeliveries, DefaultKeepDeliveries)
	h := &Webhook{Plan: NewPlan(WebhookFaults()...), opts: opts, mux: http.NewServeMux()}
	h.rec = newRecorder(h.Plan, opts.Shared)
	h.Reset()
	h.mux.HandleFunc("POST /hooks/{name}", h.hook)
	h.rec.register(h.mux, h.Stats, h.Reset)
	h.mux.HandleFunc("GET /_fake/deliveries", func(w http.ResponseWriter, _ *http.Request) {
		writeJSON(w, http.StatusOK, h.Deliveries())
	})
	return h
}

// ServeHTTP serves the hooks and the control API.
func (h *Webhook) ServeHTTP(w http.ResponseWriter, r *http.Request) { h.mux.ServeHTTP(w, r) }

// Reset forgets calls, stats and deliveries and clears the plan and switches.
func (h *Webhook) Reset() {
	h.Plan.Reset()
	h.rec.reset()
	h.mu.Lock()
	defer h.mu.Unlock()
	h.deliveries = nil
	h.perKey = map[string]int{}
	h.unkeyed = 0
	h.duplicates = 0
}

// Stats returns what the receiver has answered, per key, fault and status,
// with its plan and a summary of its deliveries.
func (h *Webhook) Stats() Stats {
	s := h.rec.stats()
	h.mu.Lock()
	defer h.mu.Unlock()
	ds := &DeliveryStats{
		Distinct:   len(h.perKey),
		Duplicates: h.duplicates,
		Unkeyed:    h.unkeyed,
		PerKey:     make(map[string]int, len(h.perKey)),
	}
	ds.Total = h.unkeyed
	for k, n := range h.perKey {
		ds.PerKey[k] = n
		ds.Total += n
	}
	s.Deliveries = ds
	return s
}

// Deliveries returns the last KeepDeliveries deliveries, oldest first.
func (h *Webhook) Deliveries() []Delivery {
	h.mu.Lock()
	defer h.mu.Unlock()
	kept := h.deliveries[max(0, len(h.deliveries)-h.opts.KeepDeliveries):]
	out := make([]Delivery, len(kept))
	copy(out, kept)
	return out
}

// DeliveryCount returns how many successful POSTs carried key, duplicates
// included, so 1 means exactly one delivery; "" counts the deliveries without
// a key.
func (h *Webhook) DeliveryCount(key string) int {
	h.mu.Lock()
	defer h.mu.Unlock()
	if key == "" {
		return h.unkeyed
	}
	return h.perKey[key]
}

// Duplicates returns how many successful POSTs repeated an earlier key.
func (h *Webhook) Duplicates() int {
	h.mu.Lock()
	defer h.mu.Unlock()
	return h.duplicates
}

func (h *Webhook) record(d Delivery) {
	h.mu.Lock()
	defer h.mu.Unlock()
	if d.Key == "" {
		h.unkeyed++
	} else {
		d.Duplicate = h.perKey[d.Key] > 0
		h.perKey[d.Key]++
		if d.Duplicate {
			h.duplicates++
		}
	}
	h.deliveries = append(h.deliveries, d)
	// Trim in batches so that a long soak copies each delivery at most once.
	if keep := h.opts.KeepDeliveries; len(h.deliveries) >= 2*keep {
		h.deliveries = append(make([]Delivery, 0, 2*keep), h.deliveries[len(h.deliveries)-keep:]...)
	}
}

// Sign returns the SignatureHeader value for body signed at timestamp (Unix
// seconds) with secret: "v1=" + hex(HMAC-SHA256(secret, timestamp + "." +
// body)).
func Sign(secret string, timestamp int64, body []byte) string {
	return "v1=" + hex.EncodeToString(mac(secret, strconv.FormatInt(timestamp, 10), body))
}

func mac(secret, timestamp string, body []byte) []byte {
	m := hmac.New(sha256.New, []byte(secret))
	m.Write([]byte(timestamp))
	m.Write([]byte{'.'})
	m.Write(body)
	return m.Sum(nil)
}

// verify checks the request's signature against the secret.
func (h *Webhook) verify(r *http.Request, body []byte) bool {
	ts := strings.TrimSpace(r.Header.Get(TimestampHeader))
	sec, err := strconv.ParseInt(ts, 10, 64)
	if err != nil {
		return false
	}
	if h.opts.Tolerance > 0 {
		skew := h.opts.Clock.Now().Sub(time.Unix(sec, 0))
		if skew > h.opts.Tolerance || skew < -h.opts.Tolerance {
			return false
		}
	}
	want := mac(h.opts.Secret, ts, body)
	for part := range strings.SplitSeq(r.Header.Get(SignatureHeader), ",") {
		sig, ok := strings.CutPrefix(strings.TrimSpace(part), "v1=")
		if !ok {
			continue
		}
		if got, err := hex.DecodeString(sig); err == nil && hmac.Equal(got, want) {
			return true
		}
	}
	return false
}

func (h *Webhook) hook(w http.ResponseWriter, r *http.Request) {
	sw := &statusWriter{ResponseWriter: w}
	name := r.PathValue("name")
	body, readErr := io.ReadAll(http.MaxBytesReader(sw, r.Body, maxWebhookBody))
	idem := r.Header.Get(IdempotencyHeader)
	key := idem
	key = cmp.Or(key, name)
	d := h.Decide(key)
	signed := h.opts.Secret != "" && readErr == nil && h.verify(r, body)
	fault := d.Fault
	switch {
	case d.Outage:
	case h.opts.Secret != "" && !signed:
		fault = FaultUnauthorized
	}
	call := h.rec.begin(Call{Key: key, Call: d.Call, Fault: fault, Outage: d.Outage, RequestBytes: len(body)})
	defer func() { h.rec.finish(call, sw.status) }()

	var mbe *http.MaxBytesError
	switch {
	case d.Outage:
	case errors.As(readErr, &mbe):
		writeText(sw, http.StatusRequestEntityTooLarge, "request_too_large")
		return
	case readErr != nil:
		writeText(sw, http.StatusBadRequest, "invalid_payload")
		return
	case h.opts.Secret != "" && !signed:
		writeText(sw, http.StatusUnauthorized, "invalid_token")
		return
	}
	switch fault {
	case FaultServerError:
		writeText(sw, http.StatusInternalServerError, "internal_error")
	case FaultUnavailable:
		writeText(sw, http.StatusServiceUnavailable, "service_unavailable")
	case FaultRateLimitSlack:
		sw.Header().Set("Retry-After", seconds(h.opts.RetryAfter))
		writeText(sw, http.StatusTooManyRequests, "rate_limited")
	case FaultRateLimitDiscord:
		after := strconv.FormatFloat(h.opts.DiscordRetryAfter.Seconds(), 'f', -1, 64)
		hdr := sw.Header()
		hdr.Set("Retry-After", seconds(h.opts.DiscordRetryAfter))
		hdr.Set("X-RateLimit-Limit", "5")
		hdr.Set("X-RateLimit-Remaining", "0")
		hdr.Set("X-RateLimit-Reset-After", after)
		hdr.Set("X-RateLimit-Scope", "user")
		hdr.Set("Content-Type", "application/json")
		sw.WriteHeader(http.StatusTooManyRequests)
		_, _ = io.WriteString(sw, `{"message": "You are being rate limited.", "retry_after": `+after+`, "global": false}`)
	case FaultChannelNotFound:
		writeText(sw, http.StatusNotFound, "channel_not_found")
	case FaultArchived:
		writeText(sw, http.StatusGone, "channel_is_archived")
	case FaultInvalidPayload:
		writeText(sw, http.StatusBadRequest, "invalid_payload")
	case FaultUnauthorized:
		sw.Header().Set("Content-Type", "application/json")
		sw.WriteHeader(http.StatusUnauthorized)
		_, _ = io.WriteString(sw, `{"message": "401: Unauthorized", "code": 0}`)
	case FaultHang:
		hang(sw, r, h.opts.MaxHang)
	case FaultReset:
		resetConnection(sw, "text/plain; charset=utf-8", 2, nil)
	default:
		h.record(Delivery{Key: idem, Name: name, Event: r.Header.Get(EventHeader), Body: body, At: call.At, SignatureValid: signed})
		writeText(sw, http.StatusOK, "ok")
	}
}
