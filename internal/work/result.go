package work

import "time"

// The work result: what a stage's work returns (Output) and the records it
// carries, as plain data. How an item stores them — the bodies apart, a
// body reference in its compact form — is the item store's (internal/store,
// docs/design.md "What the state item holds").

// BodyRef is the claim check an item carries for one body. The item store
// writes it compactly (the digest's raw bytes).
type BodyRef struct {
	// Store is where the body is: store.StoreTable or store.StoreS3.
	Store string `dynamodbav:"store" json:"store"`
	// Key is the S3 object key (store.StoreS3 only). It is not stored: it
	// is store.ObjectKey of the item, the part and SHA256.
	Key string `dynamodbav:"-" json:"key,omitempty"`
	// Bytes is the body's length; SHA256 the hex digest of its bytes, which
	// a reader checks.
	Bytes  int    `dynamodbav:"bytes" json:"bytes"`
	SHA256 string `dynamodbav:"sha256" json:"sha256"`
	// Encoding is store.EncodingGzip when the stored bytes are the body
	// compressed, "" when they are the body itself.
	Encoding string `dynamodbav:"encoding,omitempty" json:"encoding,omitempty"`
}

// Document is the fetch stage's output. On the stored item it is a
// reference: Text is empty and Body says where the text is (store.Part);
// the stage that needs the text reads it back (store.Items.Hydrate),
// which fills Text and clears Body. A non-nil Body therefore means "not
// loaded".
type Document struct {
	Text        string    `dynamodbav:"text,omitempty" json:"text,omitempty"`
	Bytes       int       `dynamodbav:"bytes" json:"bytes"`
	SHA256      string    `dynamodbav:"sha256,omitempty" json:"sha256"`
	ContentType string    `dynamodbav:"content_type,omitempty" json:"content_type,omitempty"`
	Truncated   bool      `dynamodbav:"truncated,omitempty" json:"truncated,omitempty"`
	FetchedAt   time.Time `dynamodbav:"fetched_at" json:"fetched_at"`
	// Body is where the text is stored, while it is not loaded.
	Body *BodyRef `dynamodbav:"body,omitempty" json:"body,omitempty"`
}

// Enrichment is the llm stage's output: the validated JSON object the model
// returned, plus which model produced it. On the stored item only Model,
// ActionOutcome, EnrichedAt and Body are kept; the rest is the body the
// notify stage reads back (see Document for the convention).
type Enrichment struct {
	SummaryNeutral string   `dynamodbav:"summary_neutral,omitempty" json:"summary_neutral"`
	SummarySpicy   string   `dynamodbav:"summary_spicy,omitempty" json:"summary_spicy"`
	Category       string   `dynamodbav:"category,omitempty" json:"category"`
	Severity       string   `dynamodbav:"severity,omitempty" json:"severity"`
	PrimaryActor   string   `dynamodbav:"primary_actor,omitempty" json:"primary_actor"`
	TopEntities    []string `dynamodbav:"top_entities,omitempty" json:"top_entities"`
	Model          string   `dynamodbav:"model" json:"model"`
	// ActionOutcome is "success" for action items the model carried out.
	ActionOutcome string    `dynamodbav:"action_outcome,omitempty" json:"action_outcome,omitempty"`
	EnrichedAt    time.Time `dynamodbav:"enriched_at" json:"enriched_at"`
	// Body is where the enrichment is stored, while it is not loaded. It is
	// never part of the enrichment's JSON (the body, the webhook payload).
	Body *BodyRef `dynamodbav:"body,omitempty" json:"-"`
}

// WebhookDelivery is the notify stage's output: the webhook's answer to
// the enrichment's delivery.
type WebhookDelivery struct {
	Status         int       `dynamodbav:"status" json:"status"`
	IdempotencyKey string    `dynamodbav:"idempotency_key" json:"idempotency_key"`
	DeliveredAt    time.Time `dynamodbav:"delivered_at" json:"delivered_at"`
}

// Output is what a successful stage stores on the item; exactly one field
// is set, matching the stage.
type Output struct {
	Document   *Document
	Enrichment *Enrichment
	Delivery   *WebhookDelivery
}
