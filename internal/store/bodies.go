package store

import (
	"bytes"
	"compress/gzip"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/url"
	"strconv"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/feature/dynamodb/attributevalue"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/triagehq/triage/internal/store/dynamo"
	"github.com/triagehq/triage/internal/work"
)

// Part names one of an item's bodies: a stage output too large, or needed
// too rarely, to ride on every state write. The state item carries a
// reference (BodyRef, the claim check); the body is written once, next to
// the state write that records it, and read by the stage that needs it.
type Part string

const (
	// PartDocument is the fetch stage's text, which the llm stage reads.
	PartDocument Part = "document"
	// PartEnrichment is the llm stage's answer, which the notify stage reads.
	PartEnrichment Part = "enrichment"
)

// Where a body is stored (BodyRef.Store).
const (
	// StoreTable is a sibling item in the Bodies table (key item_id, part),
	// written in the same TransactWriteItems as the state update.
	StoreTable = "table"
	// StoreS3 is an object in the bodies bucket, written before the state
	// update and named by the body's hash, so a late writer can never
	// replace the body a state item points to.
	StoreS3 = "s3"
)

// DefaultBodyThreshold is BodyConfig.Threshold's default: bodies of at most
// this many bytes stored (compressed, see CompressFrom) go to the Bodies
// table, larger ones to S3. It is where the two cost the same at us-east-1
// prices (docs/design.md "Item state"): a sibling item costs 2 WRU per KB in
// the transaction plus 1 WRU for the state update's doubling, an object one
// PUT and one GET whatever its size.
const DefaultBodyThreshold = 3 << 10

// DefaultBodyRetention is BodyConfig.Retention's default: bodies expire
// (sibling items through DynamoDB TTL, objects through the bucket's
// lifecycle rule) this long after they are written, past the DLQs' 14-day
// retention so that a dead letter can always be replayed from its stage.
const DefaultBodyRetention = 30 * 24 * time.Hour

// MaxTableBodyBytes is the largest body a sibling item can hold, well inside
// DynamoDB's 400 KB item limit with its key and attributes.
const MaxTableBodyBytes = 350 << 10

// MaxBodyBytes bounds one body: the fetch stage keeps at most 200 KiB of
// text, and an enrichment is a few KB.
const MaxBodyBytes = 4 << 20

// EncodingGzip marks a body stored gzip-compressed.
const EncodingGzip = "gzip"

// CompressFrom is the smallest body worth compressing: below it gzip's
// header and the table's 1 KB write unit leave nothing to gain.
const CompressFrom = 1024

// storedRef is a body reference as an item stores it: a map whose hash is
// its 32 raw bytes (half the size of the hex), for the reference rides on
// every write of the item.
type storedRef work.BodyRef

// MarshalDynamoDBAttributeValue writes the compact form.
func (r storedRef) MarshalDynamoDBAttributeValue() (types.AttributeValue, error) {
	sum, err := hex.DecodeString(r.SHA256)
	if err != nil || len(sum) != sha256.Size {
		return nil, fmt.Errorf("body reference: %q is not a SHA-256 hex digest", r.SHA256)
	}
	m := map[string]types.AttributeValue{
		"store":  &types.AttributeValueMemberS{Value: r.Store},
		"bytes":  &types.AttributeValueMemberN{Value: strconv.Itoa(r.Bytes)},
		"sha256": &types.AttributeValueMemberB{Value: sum},
	}
	if r.Encoding != "" {
		m["encoding"] = &types.AttributeValueMemberS{Value: r.Encoding}
	}
	return &types.AttributeValueMemberM{Value: m}, nil
}

// UnmarshalDynamoDBAttributeValue reads what MarshalDynamoDBAttributeValue
// wrote.
func (r *storedRef) UnmarshalDynamoDBAttributeValue(av types.AttributeValue) error {
	m, ok := av.(*types.AttributeValueMemberM)
	if !ok {
		return fmt.Errorf("body reference: %T is not a map", av)
	}
	store, _ := m.Value["store"].(*types.AttributeValueMemberS)
	n, _ := m.Value["bytes"].(*types.AttributeValueMemberN)
	sum, _ := m.Value["sha256"].(*types.AttributeValueMemberB)
	if store == nil || n == nil || sum == nil {
		return errors.New("body reference: store, bytes or sha256 missing")
	}
	bytes, err := strconv.Atoi(n.Value)
	if err != nil {
		return fmt.Errorf("body reference: bytes: %w", err)
	}
	*r = storedRef{Store: store.Value, Bytes: bytes, SHA256: hex.EncodeToString(sum.Value)}
	if enc, ok := m.Value["encoding"].(*types.AttributeValueMemberS); ok {
		r.Encoding = enc.Value
	}
	return nil
}

// storedDocument is a Document as the item record stores it: its body
// reference in the compact form (the outer Body hides the Document's).
type storedDocument struct {
	work.Document
	Body *storedRef `dynamodbav:"body,omitempty"`
}

// storedEnrichment is an Enrichment as the item record stores it, as
// storedDocument is a Document.
type storedEnrichment struct {
	work.Enrichment
	Body *storedRef `dynamodbav:"body,omitempty"`
}

// storeDocument is d as the record stores it; nil for nil.
func storeDocument(d *work.Document) *storedDocument {
	if d == nil {
		return nil
	}
	return &storedDocument{Document: *d, Body: (*storedRef)(d.Body)}
}

// document is the Document s stores; nil for nil.
func (s *storedDocument) document() *work.Document {
	if s == nil {
		return nil
	}
	d := s.Document
	d.Body = (*work.BodyRef)(s.Body)
	return &d
}

// storeEnrichment is e as the record stores it; nil for nil.
func storeEnrichment(e *work.Enrichment) *storedEnrichment {
	if e == nil {
		return nil
	}
	return &storedEnrichment{Enrichment: *e, Body: (*storedRef)(e.Body)}
}

// enrichment is the Enrichment s stores; nil for nil.
func (s *storedEnrichment) enrichment() *work.Enrichment {
	if s == nil {
		return nil
	}
	e := s.Enrichment
	e.Body = (*work.BodyRef)(s.Body)
	return &e
}

// ErrBodyGone is returned when a body a reference names is no longer stored
// (it expired after BodyConfig.Retention): the stage that needs it cannot
// run, and only a replay that re-runs the stage which wrote it helps.
var ErrBodyGone = errors.New("item body no longer stored")

// ErrBodyCorrupt is returned when a body read back does not match its
// reference's length and hash.
var ErrBodyCorrupt = errors.New("item body does not match its reference")

// ErrNoBodyStore is returned by a store asked to write a body it has nowhere
// to put (no Bodies table configured).
var ErrNoBodyStore = errors.New("no body store configured")

// ObjectStore is the bucket that holds bodies above the threshold
// (internal/store/objects over S3, MemoryObjects in tests).
type ObjectStore interface {
	// Put stores body under key.
	Put(ctx context.Context, key string, body []byte, contentType string) error
	// Get returns the object under key, reading at most limit+1 bytes; a
	// missing object is ErrBodyGone.
	Get(ctx context.Context, key string, limit int) ([]byte, error)
}

// BodyConfig says where an item store keeps bodies.
type BodyConfig struct {
	// Table is the Bodies table: sibling items of at most Threshold bytes.
	Table string
	// Objects holds the larger bodies; nil keeps every body in Table (up to
	// MaxTableBodyBytes), for tests and tools without a bucket.
	Objects ObjectStore
	// Threshold: zero means DefaultBodyThreshold.
	Threshold int
	// Retention: zero means DefaultBodyRetention.
	Retention time.Duration
}

func (c BodyConfig) threshold() int {
	if c.Threshold <= 0 {
		return DefaultBodyThreshold
	}
	return c.Threshold
}

func (c BodyConfig) retention() time.Duration {
	if c.Retention <= 0 {
		return DefaultBodyRetention
	}
	return c.Retention
}

// Placement is where a body of n bytes goes: StoreTable up to the threshold
// (or always, without an ObjectStore), StoreS3 above it.
func (c BodyConfig) Placement(n int) string {
	return placement(n, c.threshold(), c.Objects != nil)
}

func placement(n, threshold int, hasObjects bool) string {
	if hasObjects && n > threshold {
		return StoreS3
	}
	return StoreTable
}

// ObjectKey is the S3 key of an item's body: the part, two hex digits of the
// item id's hash (so that keys spread over S3's partitioned prefixes at any
// rate), the escaped item id, and the body's hash.
func ObjectKey(itemID string, part Part, sha string) string {
	h := sha256.Sum256([]byte(itemID))
	return string(part) + "/" + hex.EncodeToString(h[:1]) + "/" + url.PathEscape(itemID) + "/" + sha
}

// body is one body ready to be written.
type body struct {
	part        Part
	data        []byte
	contentType string
	ref         work.BodyRef
}

// outputBody returns the body a stage output carries, with its hash: the
// document's text, or the enrichment as JSON. A delivery has none (nil).
func outputBody(o work.Output) (*body, error) {
	var b body
	switch {
	case o.Document != nil:
		if o.Document.Body != nil && o.Document.Text == "" {
			return nil, nil // a reference passed through: already stored
		}
		b = body{part: PartDocument, data: []byte(o.Document.Text), contentType: "text/plain; charset=utf-8"}
	case o.Enrichment != nil:
		data, err := json.Marshal(o.Enrichment)
		if err != nil {
			return nil, fmt.Errorf("encode the enrichment: %w", err)
		}
		b = body{part: PartEnrichment, data: data, contentType: "application/json"}
	default:
		return nil, nil
	}
	if len(b.data) > MaxBodyBytes {
		return nil, fmt.Errorf("%s body of %d bytes is over the %d-byte limit", b.part, len(b.data), MaxBodyBytes)
	}
	sum := sha256.Sum256(b.data)
	b.ref = work.BodyRef{Bytes: len(b.data), SHA256: hex.EncodeToString(sum[:])}
	// Text compresses to less than half: fewer write units for a sibling
	// item, more documents under the threshold (docs/design.md "Item state").
	if len(b.data) >= CompressFrom {
		if z, err := gzipped(b.data); err == nil && len(z) < len(b.data)*9/10 {
			b.data, b.ref.Encoding = z, EncodingGzip
		}
	}
	return &b, nil
}

func gzipped(data []byte) ([]byte, error) {
	var buf bytes.Buffer
	w := gzip.NewWriter(&buf)
	if _, err := w.Write(data); err != nil {
		return nil, err
	}
	if err := w.Close(); err != nil {
		return nil, err
	}
	return buf.Bytes(), nil
}

// decoded returns the body stored as data under ref: decompressed when it
// is gzip, at most ref.Bytes+1 bytes.
func decoded(itemID string, part Part, ref work.BodyRef, data []byte) ([]byte, error) {
	switch ref.Encoding {
	case "":
		return data, nil
	case EncodingGzip:
		r, err := gzip.NewReader(bytes.NewReader(data))
		if err != nil {
			return nil, fmt.Errorf("%s of %s: %w: %v", part, itemID, ErrBodyCorrupt, err)
		}
		out, err := io.ReadAll(io.LimitReader(r, int64(ref.Bytes)+1))
		if err != nil {
			return nil, fmt.Errorf("%s of %s: %w: %v", part, itemID, ErrBodyCorrupt, err)
		}
		return out, nil
	}
	return nil, fmt.Errorf("%s of %s: unknown body encoding %q: %w", part, itemID, ref.Encoding, ErrBodyCorrupt)
}

// withRef returns the output as the state item stores it: the reference in
// place of the body.
func withRef(o work.Output, ref work.BodyRef) work.Output {
	switch {
	case o.Document != nil:
		d := *o.Document
		// The hash of the text is the body's: SHA256 is always the true
		// one, and the stored item keeps it once (in the reference).
		d.Text, d.Body, d.SHA256 = "", &ref, ref.SHA256
		return work.Output{Document: &d}
	case o.Enrichment != nil:
		e := work.Enrichment{Model: o.Enrichment.Model, ActionOutcome: o.Enrichment.ActionOutcome,
			EnrichedAt: o.Enrichment.EnrichedAt, Body: &ref}
		return work.Output{Enrichment: &e}
	}
	return o
}

// verify checks the body against ref (after decoded).
func verify(itemID string, part Part, ref work.BodyRef, data []byte) error {
	sum := sha256.Sum256(data)
	if len(data) != ref.Bytes || hex.EncodeToString(sum[:]) != ref.SHA256 {
		return fmt.Errorf("%s of %s: %d bytes read, %d expected: %w", part, itemID, len(data), ref.Bytes, ErrBodyCorrupt)
	}
	return nil
}

// hydrate fills it's parts from load, which returns one body's bytes.
func hydrate(it Item, parts []Part, load func(Part, work.BodyRef) ([]byte, error)) (Item, error) {
	for _, p := range parts {
		switch p {
		case PartDocument:
			if it.Document == nil || it.Document.Body == nil {
				continue
			}
			data, err := load(p, *it.Document.Body)
			if err != nil {
				return it, err
			}
			d := *it.Document
			d.Text, d.Body = string(data), nil
			it.Document = &d
		case PartEnrichment:
			if it.Enrichment == nil || it.Enrichment.Body == nil {
				continue
			}
			data, err := load(p, *it.Enrichment.Body)
			if err != nil {
				return it, err
			}
			var e work.Enrichment
			if err := json.Unmarshal(data, &e); err != nil {
				return it, fmt.Errorf("enrichment of %s: %w: %v", it.ID, ErrBodyCorrupt, err)
			}
			it.Enrichment = &e
		default:
			return it, fmt.Errorf("hydrate %s: unknown part %q", it.ID, p)
		}
	}
	return it, nil
}

// bodyRecord is a sibling item of the Bodies table.
type bodyRecord struct {
	ItemID    string `dynamodbav:"item_id"`
	Part      string `dynamodbav:"part"`
	Body      []byte `dynamodbav:"body"`
	SHA256    string `dynamodbav:"sha256"`
	WrittenAt string `dynamodbav:"written_at"`
	ExpiresAt int64  `dynamodbav:"expires_at"`
}

func bodyKey(itemID string, part Part) map[string]types.AttributeValue {
	return map[string]types.AttributeValue{
		"item_id": &types.AttributeValueMemberS{Value: itemID},
		"part":    &types.AttributeValueMemberS{Value: string(part)},
	}
}

// BodiesAPI is the part of the DynamoDB client reading bodies needs.
type BodiesAPI interface {
	dynamo.Getter
}

// Hydrate returns it with the bodies of parts read back: Document.Text, or
// every field of Enrichment. A part without a reference (not written yet, or
// written inline by an older version) is left as it is. A sibling item is
// read with one strongly consistent GetItem (a full restart overwrites it),
// an object with one GetObject; either is checked against the reference.
// A body that expired is ErrBodyGone.
func (s *Items) Hydrate(ctx context.Context, it Item, parts ...Part) (Item, error) {
	return hydrate(it, parts, func(p Part, ref work.BodyRef) ([]byte, error) {
		return s.Bodies.load(ctx, s.DB, it.ID, p, ref)
	})
}

func (c BodyConfig) load(ctx context.Context, db BodiesAPI, itemID string, part Part, ref work.BodyRef) ([]byte, error) {
	var data []byte
	switch ref.Store {
	case StoreS3:
		if c.Objects == nil {
			return nil, fmt.Errorf("%s of %s is in S3: %w", part, itemID, ErrNoBodyStore)
		}
		d, err := c.Objects.Get(ctx, ref.Key, ref.Bytes)
		if err != nil {
			return nil, fmt.Errorf("read the %s of %s: %w", part, itemID, err)
		}
		data = d
	case StoreTable:
		if c.Table == "" {
			return nil, fmt.Errorf("%s of %s: %w", part, itemID, ErrNoBodyStore)
		}
		out, err := db.GetItem(ctx, &dynamodb.GetItemInput{
			TableName: aws.String(c.Table), Key: bodyKey(itemID, part), ConsistentRead: aws.Bool(true),
		})
		if err != nil {
			return nil, fmt.Errorf("read the %s of %s: %w", part, itemID, err)
		}
		if len(out.Item) == 0 {
			return nil, fmt.Errorf("the %s of %s: %w", part, itemID, ErrBodyGone)
		}
		var r bodyRecord
		if err := attributevalue.UnmarshalMap(out.Item, &r); err != nil {
			return nil, fmt.Errorf("decode the %s of %s: %w", part, itemID, err)
		}
		data = r.Body
	default:
		return nil, fmt.Errorf("%s of %s: unknown body store %q", part, itemID, ref.Store)
	}
	body, err := decoded(itemID, part, ref, data)
	if err != nil {
		return nil, err
	}
	return body, verify(itemID, part, ref, body)
}

// putBody stores b where its size says, except that a table body is not
// written here: it goes into the caller's transaction (the returned Put).
// An S3 body is durable when putBody returns, before any state refers to it.
func (c BodyConfig) putBody(ctx context.Context, itemID string, b *body, now time.Time) (*types.Put, error) {
	b.ref.Store = c.Placement(len(b.data))
	if b.ref.Store == StoreS3 {
		b.ref.Key = ObjectKey(itemID, b.part, b.ref.SHA256)
		if err := c.Objects.Put(ctx, b.ref.Key, b.data, b.contentType); err != nil {
			return nil, fmt.Errorf("store the %s of %s: %w", b.part, itemID, err)
		}
		return nil, nil
	}
	if c.Table == "" {
		return nil, fmt.Errorf("store the %s of %s: %w", b.part, itemID, ErrNoBodyStore)
	}
	if len(b.data) > MaxTableBodyBytes {
		return nil, fmt.Errorf("store the %s of %s: %d bytes is too large for a table body and no bucket is configured",
			b.part, itemID, len(b.data))
	}
	av, err := attributevalue.MarshalMap(bodyRecord{
		ItemID: itemID, Part: string(b.part), Body: b.data, SHA256: b.ref.SHA256,
		WrittenAt: formatTime(now), ExpiresAt: now.Add(c.retention()).Unix(),
	})
	if err != nil {
		return nil, fmt.Errorf("encode the %s of %s: %w", b.part, itemID, err)
	}
	return &types.Put{TableName: aws.String(c.Table), Item: av}, nil
}
