package main

import (
	"bytes"
	"cmp"
	"context"
	"crypto/hmac"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strconv"
	"sync"
	"time"

	"github.com/triagehq/triage/internal/clock"
	"github.com/triagehq/triage/internal/failure"
	"github.com/triagehq/triage/internal/gates"
	"github.com/triagehq/triage/internal/store"
	"github.com/triagehq/triage/internal/upstream"
	"github.com/triagehq/triage/internal/upstream/notice"
	"github.com/triagehq/triage/internal/work"
)

// Timeouts of the client newNotifier builds. A webhook receiver answers in
// well under a second; ten seconds overall leaves room for a slow one
// without holding the batch.
const (
	// responseHeaderTimeout bounds the wait for the response headers once
	// the request is written.
	responseHeaderTimeout = 10 * time.Second
	// notifyTimeout bounds the whole request, body included.
	notifyTimeout = 10 * time.Second
)

// defaultUserAgent is sent with every webhook.
const defaultUserAgent = "triage/1.0 (+https://github.com/triagehq/triage)"

// Webhook request headers.
const (
	// headerIdempotencyKey is "<item_id>:notify", the same on every attempt,
	// so the receiver can drop duplicates of a delivery the queue retried.
	headerIdempotencyKey = "Idempotency-Key"
	// headerTimestamp is the signing time in Unix seconds. Receivers should
	// reject timestamps far from their clock to stop replays.
	headerTimestamp = "X-Triage-Timestamp"
	// headerSignature is "v1=" + hex(HMAC-SHA256(secret, timestamp + "." + body)).
	headerSignature = "X-Triage-Signature"
	// headerItemID carries the item id, for the receiver's logs (and the
	// fake receiver's fault plans); omitted when empty.
	headerItemID = "X-Triage-Item-Id"
	// headerCorrelationID carries the item's correlation id; omitted when
	// empty.
	headerCorrelationID = "X-Correlation-Id"
	// headerEvent names what the POST is: eventDelivered for the item's
	// result, or a notice's event type (item.failed, item.retry_scheduled;
	// package notice).
	headerEvent = "X-Triage-Event"
)

// eventDelivered is the X-Triage-Event of a result's delivery.
const eventDelivered = "item.delivered"

// opPost is the Op of the notify stage's HTTPErrors.
const opPost = "POST webhook"

// notifierConfig configures newNotifier. Zero fields take the defaults
// documented on notifier.
type notifierConfig struct {
	// Client replaces the client newNotifier builds.
	Client *http.Client
	// Secret is notifier.Secret.
	Secret func(context.Context) ([]byte, error)
	// UserAgent is notifier.UserAgent.
	UserAgent string
	// Clock is notifier.Clock.
	Clock clock.Clock
	// BlockPrivate makes the built client refuse private, loopback and
	// link-local destinations (upstream.BlockedAddr): webhook URLs come from
	// item producers, like article URLs.
	BlockPrivate bool
}

// notifier is the notify stage's Work: it POSTs the item's enrichment to the
// item's webhook, signed. It never retries; the queue does, with the same
// Idempotency-Key every time.
type notifier struct {
	// Client sends the webhook. newNotifier builds one with a 5s dial
	// timeout, 5s TLS handshake timeout, 10s response header timeout and a
	// 10s overall timeout that does not follow redirects (a redirected POST
	// would lose its body or carry the signature elsewhere; the 3xx comes back
	// as an HTTPError). Nil uses a shared client built the same way.
	Client *http.Client
	// Secret returns the signing secret, typically
	// secret.Resolver.BytesFunc(ref). Required; its errors are returned as
	// they are, so an SSM failure classifies as an SSM failure.
	Secret func(ctx context.Context) ([]byte, error)
	// UserAgent is sent with the request; empty means defaultUserAgent.
	UserAgent string
	// Clock stamps the timestamp, sent_at and DeliveredAt; nil means the
	// wall clock.
	Clock clock.Clock
}

// newNotifier returns a notifier with cfg's defaults applied and, unless
// cfg.Client is set, its own HTTP client.
func newNotifier(cfg notifierConfig) *notifier {
	n := &notifier{Client: cfg.Client, Secret: cfg.Secret, UserAgent: cfg.UserAgent, Clock: cfg.Clock}
	if n.Client == nil {
		n.Client = newHTTPClient(cfg.BlockPrivate)
	}
	if n.UserAgent == "" {
		n.UserAgent = defaultUserAgent
	}
	n.Clock = clock.Or(n.Clock)
	return n
}

// newHTTPClient returns the notify stage's HTTP client: the timeouts above,
// no redirect but a 307 or 308 that only moves an http webhook to https on
// the same host and path (upstream.FollowSchemeUpgrade, once), and with
// blockPrivate the upstream.BlockedAddr check on every connection, the
// upgraded one included (proxies from the environment are then not used:
// the dialer could not see the real destination).
func newHTTPClient(blockPrivate bool) *http.Client {
	return upstream.NewClient(upstream.ClientOptions{Timeout: notifyTimeout, ResponseHeaderTimeout: responseHeaderTimeout,
		BlockPrivate: blockPrivate, SchemeUpgradeOnly: true})
}

// defaultClient serves a notifier whose Client is nil, built once.
var defaultClient = sync.OnceValue(func() *http.Client { return newHTTPClient(false) })

// payload is the webhook's JSON body. Every field is always present.
type payload struct {
	// ItemID is the item's id.
	ItemID string `json:"item_id"`
	// CorrelationID ties the delivery to the item's logs.
	CorrelationID string `json:"correlation_id"`
	// Kind is the item's kind; an item that never set one is a story.
	Kind store.Kind `json:"kind"`
	// SourceURL is the article the enrichment is about.
	SourceURL string `json:"source_url"`
	// Enrichment is the llm stage's output, model and action outcome included.
	Enrichment work.Enrichment `json:"enrichment"`
	// SentAt is the signing time, the same instant as headerTimestamp.
	SentAt time.Time `json:"sent_at"`
}

// idempotencyKey returns the Idempotency-Key of itemID's delivery:
// "<item_id>:notify", stable across retries and replays.
func idempotencyKey(itemID string) string { return itemID + ":notify" }

// sign returns the X-Triage-Signature value for body sent at ts (Unix
// seconds): "v1=" + hex(HMAC-SHA256(secret, "<ts>.<body>")). The timestamp
// is inside the MAC so that a captured request cannot be replayed later with
// a fresh timestamp.
func sign(secret []byte, ts int64, body []byte) string {
	mac := hmac.New(sha256.New, secret)
	mac.Write([]byte(strconv.FormatInt(ts, 10)))
	mac.Write([]byte{'.'})
	mac.Write(body)
	return "v1=" + hex.EncodeToString(mac.Sum(nil))
}

// Run delivers item's enrichment to item.WebhookURL.
//
//   - WebhookURL must be an absolute http or https URL and Enrichment must be
//     set, else SCHEMA_INVALID.
//   - The body is a payload; headers carry the Idempotency-Key, the
//     timestamp and the signature (see the Header constants).
//   - A 2xx is the Delivery unless its body reports a failure; anything else
//     is a *failure.HTTPError{Provider: failure.Webhook, Op: "POST webhook"}
//     with at most failure.MaxBodyBytes of body (Slack's 404 "channel_not_found" classifies as NOT_FOUND, a
//     429 as RATE_LIMITED with the receiver's retry_after).
//   - Transport failures are returned wrapped (NETWORK_TIMEOUT); a failure
//     to load the secret is returned as the loader reported it.
//
// The webhook URL may hold a secret token in its path (Slack, Discord), so
// no error and no detail ever contains it: only its host, as "host".
func (n *notifier) Run(ctx context.Context, item store.Item, _ gates.Delivery) (work.Output, error) {
	u, err := upstream.ParseURL(item.WebhookURL)
	if err != nil {
		return work.Output{}, failure.New(work.SchemaInvalid, "webhook URL: %s", err)
	}
	if item.Enrichment == nil {
		return work.Output{}, failure.WithDetail(
			failure.New(work.SchemaInvalid, "item has no enrichment to deliver"), "host", u.Host)
	}
	if item.Enrichment.Body != nil {
		return work.Output{}, failure.New(work.InternalBug, "the item's enrichment was not read back (runner.WithBodies)")
	}
	d, err := n.deliver(ctx, item, u)
	if err != nil {
		return work.Output{}, failure.WithDetail(err, "host", u.Host)
	}
	return work.Output{Delivery: d}, nil
}

func (n *notifier) deliver(ctx context.Context, item store.Item, u *url.URL) (*work.WebhookDelivery, error) {
	secret, err := n.secret(ctx)
	if err != nil {
		return nil, err
	}
	sentAt := n.now().UTC()
	body, err := json.Marshal(payload{
		ItemID:        item.ID,
		CorrelationID: item.CorrelationID,
		Kind:          kindOf(item),
		SourceURL:     item.SourceURL,
		Enrichment:    *item.Enrichment,
		SentAt:        sentAt,
	})
	if err != nil {
		return nil, failure.Wrap(work.InternalBug, err, "encode webhook payload")
	}
	key := idempotencyKey(item.ID)
	status, err := n.post(ctx, u, secret, sentAt, post{key: key, event: eventDelivered, itemID: item.ID,
		correlationID: item.CorrelationID, body: body})
	if err != nil {
		return nil, err
	}
	return &work.WebhookDelivery{Status: status, IdempotencyKey: key, DeliveredAt: n.now().UTC()}, nil
}

// PostNotice delivers an owner's notice (package notice) to webhookURL: the
// notice as the JSON body with SentAt the signing time, signed like a
// delivery, its id as the Idempotency-Key and its event type as
// X-Triage-Event. It returns the webhook's 2xx status, or an error that
// classifies like a delivery's; no error ever contains the URL, only its
// host.
func (n *notifier) PostNotice(ctx context.Context, webhookURL string, nt notice.Notice) (int, error) {
	u, err := upstream.ParseURL(webhookURL)
	if err != nil {
		return 0, failure.New(work.SchemaInvalid, "webhook URL: %s", err)
	}
	secret, err := n.secret(ctx)
	if err != nil {
		return 0, failure.WithDetail(err, "host", u.Host)
	}
	nt.SentAt = n.now().UTC()
	body, err := json.Marshal(nt)
	if err != nil {
		return 0, failure.Wrap(work.InternalBug, err, "encode notice")
	}
	status, err := n.post(ctx, u, secret, nt.SentAt, post{key: nt.ID, event: string(nt.Event), itemID: nt.ItemID,
		correlationID: nt.CorrelationID, body: body})
	if err != nil {
		return status, failure.WithDetail(err, "host", u.Host)
	}
	return status, nil
}

// secret loads the signing secret.
func (n *notifier) secret(ctx context.Context) ([]byte, error) {
	if n.Secret == nil {
		return nil, failure.New(work.InternalBug, "notify stage has no signing secret configured")
	}
	secret, err := n.Secret(ctx)
	if err != nil {
		return nil, fmt.Errorf("load webhook signing secret: %w", err)
	}
	if len(secret) == 0 {
		return nil, failure.New(work.InternalBug, "webhook signing secret is empty")
	}
	return secret, nil
}

func (n *notifier) now() time.Time { return clock.Or(n.Clock).Now() }

// post is one signed POST: what goes into its headers and its body.
type post struct {
	key, event, itemID, correlationID string
	body                              []byte
}

// post sends p to u signed at sentAt and returns the 2xx status; anything
// else, and a 2xx whose body reports a failure, is a *failure.HTTPError{Provider: failure.Webhook, Op: "POST
// webhook"} with at most failure.MaxBodyBytes of body, a transport failure
// wrapped with the URL redacted.
func (n *notifier) post(ctx context.Context, u *url.URL, secret []byte, sentAt time.Time, p post) (int, error) {
	ts := sentAt.Unix()
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, u.String(), bytes.NewReader(p.body))
	if err != nil {
		return 0, failure.New(work.SchemaInvalid, "webhook URL cannot be requested")
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("User-Agent", cmp.Or(n.UserAgent, defaultUserAgent))
	req.Header.Set(headerIdempotencyKey, p.key)
	req.Header.Set(headerTimestamp, strconv.FormatInt(ts, 10))
	req.Header.Set(headerSignature, sign(secret, ts, p.body))
	req.Header.Set(headerEvent, p.event)
	if p.itemID != "" {
		req.Header.Set(headerItemID, p.itemID)
	}
	if p.correlationID != "" {
		req.Header.Set(headerCorrelationID, p.correlationID)
	}

	client := n.Client
	if client == nil {
		client = defaultClient()
	}
	resp, err := client.Do(req)
	if err != nil {
		return 0, fmt.Errorf("POST webhook: %w", upstream.RedactURL(err, u))
	}
	defer resp.Body.Close()

	raw, _ := io.ReadAll(io.LimitReader(resp.Body, failure.MaxBodyBytes))
	herr := &failure.HTTPError{
		Provider: failure.Webhook, Stage: work.Notify, Op: opPost, Status: resp.StatusCode,
		Header: resp.Header.Clone(), Body: raw,
	}
	if resp.StatusCode >= 200 && resp.StatusCode <= 299 && !failedBody(herr) {
		return resp.StatusCode, nil
	}
	err = failure.WithDetail(herr, "upstream_status", strconv.Itoa(resp.StatusCode))
	if id := resp.Header.Get("X-Request-Id"); id != "" {
		err = failure.WithDetail(err, "request_id", id)
	}
	return resp.StatusCode, err
}

// failedBody reports whether a 2xx's body reports a failure (docs/design.md
// "Precedence"): DingTalk's, WeCom's and Feishu's robots answer every
// failure with a 200 whose code and message say it, which the classifier's
// words decide; a body's error code that is an HTTP error status, and a
// Teams connector's plain-text answer naming the status its endpoint
// returned, are that status. A JSON body's prose alone decides nothing: a
// receiver that echoes the payload back would otherwise fail on a summary
// that names an HTTP status.
func failedBody(h *failure.HTTPError) bool {
	c := failure.Classify(h)
	return c.Class != work.Unknown && (!c.Default || c.Code != "" || !json.Valid(h.Body))
}

// kindOf is the item's kind, with the empty kind read as a story (see
// store.ParseKind).
func kindOf(item store.Item) store.Kind {
	if item.Kind == "" {
		return store.KindStory
	}
	return item.Kind
}
