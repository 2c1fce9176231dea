package store_test

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/feature/dynamodb/attributevalue"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"github.com/aws/aws-sdk-go-v2/service/s3"

	"github.com/triagehq/triage/dev/local/localtest"
	"github.com/triagehq/triage/internal/store"
	"github.com/triagehq/triage/internal/store/objects"
	"github.com/triagehq/triage/internal/work"
)

// bodyStore is a store whose bodies a test can make disappear or corrupt.
type bodyStore interface {
	itemStore
	// size is the item's size as DynamoDB bills it.
	size(t *testing.T, id string) int
	// drop deletes the item's bodies, as their expiry would.
	drop(t *testing.T, it store.Item)
	// corrupt replaces the item's sibling-item document with other bytes.
	corrupt(t *testing.T, id string)
}

type memBodies struct{ *store.Memory }

func (m memBodies) size(t *testing.T, id string) int {
	t.Helper()
	it, err := m.Get(context.Background(), id)
	if err != nil {
		t.Fatal(err)
	}
	n, err := store.StoredSize(it)
	if err != nil {
		t.Fatal(err)
	}
	return n
}
func (m memBodies) drop(_ *testing.T, it store.Item) { m.DropBodies(it.ID) }
func (m memBodies) corrupt(t *testing.T, id string) {
	t.Helper()
	m.TamperBody(id, store.PartDocument, []byte("not the document"))
}

type dynBodies struct {
	*store.Items
	s3     *s3.Client
	bucket string
}

func (d dynBodies) size(t *testing.T, id string) int {
	t.Helper()
	out, err := d.DB.GetItem(context.Background(), &dynamodb.GetItemInput{TableName: &d.Table, ConsistentRead: aws.Bool(true),
		Key: map[string]types.AttributeValue{"item_id": &types.AttributeValueMemberS{Value: id}}})
	if err != nil || len(out.Item) == 0 {
		t.Fatalf("raw read of %s: %v", id, err)
	}
	return store.ItemSize(out.Item)
}

func (d dynBodies) drop(t *testing.T, it store.Item) {
	t.Helper()
	db := d.DB.(*dynamodb.Client)
	ctx := context.Background()
	for _, p := range []store.Part{store.PartDocument, store.PartEnrichment} {
		if _, err := db.DeleteItem(ctx, &dynamodb.DeleteItemInput{TableName: &d.Bodies.Table, Key: map[string]types.AttributeValue{
			"item_id": &types.AttributeValueMemberS{Value: it.ID}, "part": &types.AttributeValueMemberS{Value: string(p)}}}); err != nil {
			t.Fatal(err)
		}
	}
	for _, ref := range []*work.BodyRef{docRef(it), enrRef(it)} {
		if ref != nil && ref.Store == store.StoreS3 {
			if _, err := d.s3.DeleteObject(ctx, &s3.DeleteObjectInput{Bucket: &d.bucket, Key: &ref.Key}); err != nil {
				t.Fatal(err)
			}
		}
	}
}

func (d dynBodies) corrupt(t *testing.T, id string) {
	t.Helper()
	av, err := attributevalue.MarshalMap(map[string]any{"item_id": id, "part": "document", "body": []byte("not the document")})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := d.DB.(*dynamodb.Client).PutItem(context.Background(), &dynamodb.PutItemInput{TableName: &d.Bodies.Table, Item: av}); err != nil {
		t.Fatal(err)
	}
}

func docRef(it store.Item) *work.BodyRef {
	if it.Document == nil {
		return nil
	}
	return it.Document.Body
}

func enrRef(it store.Item) *work.BodyRef {
	if it.Enrichment == nil {
		return nil
	}
	return it.Enrichment.Body
}

func bodiesConformance(t *testing.T, newStore func(t *testing.T) bodyStore) {
	ctx := context.Background()
	claim := func(t *testing.T, s bodyStore, id string, st work.Stage, owner string, now time.Time) {
		t.Helper()
		if _, err := s.Claim(ctx, store.ClaimRequest{ItemID: id, Stage: st, Owner: owner, Carrier: owner, Now: now, LeaseFor: time.Minute}); err != nil {
			t.Fatalf("claim %s at %s: %v", id, st, err)
		}
	}
	complete := func(s bodyStore, id string, st work.Stage, owner string, now time.Time, out work.Output) error {
		return s.Complete(ctx, store.CompleteRequest{ItemID: id, Stage: st, Owner: owner, Now: now, Output: out})
	}
	enrichment := work.Enrichment{SummaryNeutral: "A neutral summary.", SummarySpicy: "A spicy one!", Category: "security",
		Severity: "high", PrimaryActor: "ACME", TopEntities: []string{"ACME", "CVE-2026-1"}, Model: "gpt-4o-mini",
		EnrichedAt: t0.Add(2 * time.Minute)}

	t.Run("a large document goes to S3, a small enrichment to the table, the item keeps references", func(t *testing.T) {
		t.Parallel()
		s := newStore(t)
		// A common item: a UUID, a news URL, a Slack webhook, a producer's
		// correlation id.
		id := "5f0c2a8e-3b1d-4e6f-9a7c-" + map[bool]string{true: "memory000001", false: "dynamodb0001"}[strings.HasPrefix(t.Name(), "TestMemory")]
		if _, err := s.Create(ctx, store.NewItem{ID: id, Kind: store.KindStory,
			SourceURL:     "https://www.example-news.com/2026/11/21/world/markets-rally-as-rates-hold.html",
			WebhookURL:    "https://hooks.slack.com/services/T0123ABCD/B0456EFGH/abcdefghijklmnopqrstuvwx",
			CorrelationID: "req-7d3e2f10-8c4b-4a9e-b1f2-0e6d5c4b3a29", Now: t0}); err != nil {
			t.Fatal(err)
		}
		text := prose(100_000) // compresses to about 60 KB: S3
		claim(t, s, id, work.Fetch, "m1#1", t0)
		if err := complete(s, id, work.Fetch, "m1#1", t0.Add(time.Second), work.Output{Document: &work.Document{
			Text: text, Bytes: len(text), SHA256: "sha-of-text", ContentType: "text/html", FetchedAt: t0}}); err != nil {
			t.Fatal(err)
		}
		it, _ := s.Get(ctx, id)
		ref := docRef(it)
		if it.Document.Text != "" || ref == nil || ref.Store != store.StoreS3 || ref.Bytes != len(text) || !strings.HasPrefix(ref.Key, "document/") {
			t.Fatalf("document on the item: %+v, ref %+v", it.Document, ref)
		}
		n := s.size(t, id)
		if n > 1024 {
			t.Fatalf("a fetched item is %d bytes, want at most 1 KB (1 WRU per write)", n)
		}
		t.Logf("a fetched item: %d bytes (its document: %d in S3)", n, len(text))
		claim(t, s, id, work.LLM, "m2#1", t0.Add(time.Minute))
		got, err := s.Hydrate(ctx, it, store.PartDocument)
		if err != nil || got.Document.Text != text || got.Document.Body != nil || got.Document.ContentType != "text/html" {
			t.Fatalf("document read back: %d bytes, %v", len(got.Document.Text), err)
		}
		e := enrichment
		if err := complete(s, id, work.LLM, "m2#1", t0.Add(2*time.Minute), work.Output{Enrichment: &e}); err != nil {
			t.Fatal(err)
		}
		it, _ = s.Get(ctx, id)
		eref := enrRef(it)
		if eref == nil || eref.Store != store.StoreTable || it.Enrichment.Model != "gpt-4o-mini" || it.Enrichment.SummaryNeutral != "" {
			t.Fatalf("enrichment on the item: %+v", it.Enrichment)
		}
		if n = s.size(t, id); n > 1024 {
			t.Fatalf("an enriched item is %d bytes, want at most 1 KB", n)
		}
		t.Logf("an enriched item: %d bytes (its enrichment: %d in the Bodies table)", n, eref.Bytes)
		got, err = s.Hydrate(ctx, it, store.PartEnrichment, store.PartDocument)
		if err != nil || got.Enrichment.Body != nil || got.Enrichment.SummarySpicy != "A spicy one!" ||
			len(got.Enrichment.TopEntities) != 2 || !got.Enrichment.EnrichedAt.Equal(enrichment.EnrichedAt) || got.Document.Text != text {
			t.Fatalf("enrichment read back: %+v, %v", got.Enrichment, err)
		}
		// A late writer for the same stage has lost the lease: its body
		// must not replace the one the item refers to.
		late := enrichment
		late.SummaryNeutral = "a late answer"
		if err := complete(s, id, work.LLM, "m2#1", t0.Add(3*time.Minute), work.Output{Enrichment: &late}); !errors.Is(err, store.ErrConflict) {
			t.Fatalf("late complete: %v, want ErrConflict", err)
		}
		it, _ = s.Get(ctx, id)
		if got, err := s.Hydrate(ctx, it, store.PartEnrichment); err != nil || got.Enrichment.SummaryNeutral != enrichment.SummaryNeutral {
			t.Fatalf("after a late writer: %+v, %v", got.Enrichment, err)
		}
	})

	// fetched creates an item and completes its fetch with text.
	fetched := func(t *testing.T, s bodyStore, text string) store.Item {
		t.Helper()
		id := itemID(t)
		if _, err := s.Create(ctx, store.NewItem{ID: id, Kind: store.KindStory, CorrelationID: "c", SourceURL: "https://a.example/s", WebhookURL: "https://h.example/w", Now: t0}); err != nil {
			t.Fatal(err)
		}
		claim(t, s, id, work.Fetch, "m1#1", t0)
		if err := complete(s, id, work.Fetch, "m1#1", t0, work.Output{Document: &work.Document{Text: text}}); err != nil {
			t.Fatal(err)
		}
		it, err := s.Get(ctx, id)
		if err != nil {
			t.Fatal(err)
		}
		return it
	}

	t.Run("text is stored compressed: a 6 KB article fits the table", func(t *testing.T) {
		t.Parallel()
		s := newStore(t)
		text := prose(6000)
		it := fetched(t, s, text)
		ref := docRef(it)
		if ref == nil || ref.Store != store.StoreTable || ref.Encoding != store.EncodingGzip || ref.Bytes != len(text) {
			t.Fatalf("ref %+v, want a gzip sibling of %d bytes", ref, len(text))
		}
		if got, err := s.Hydrate(ctx, it, store.PartDocument); err != nil || got.Document.Text != text {
			t.Fatalf("read back: %v", err)
		}
	})

	t.Run("an expired body is ErrBodyGone, a wrong one ErrBodyCorrupt", func(t *testing.T) {
		t.Parallel()
		s := newStore(t)
		it := fetched(t, s, "short text")
		s.corrupt(t, it.ID)
		if _, err := s.Hydrate(ctx, it, store.PartDocument); !errors.Is(err, store.ErrBodyCorrupt) {
			t.Fatalf("a body that does not match its reference: %v", err)
		}
		s.drop(t, it)
		if _, err := s.Hydrate(ctx, it, store.PartDocument); !errors.Is(err, store.ErrBodyGone) {
			t.Fatalf("an expired body: %v", err)
		}
		// Asking for a part the item has no reference for is not an error.
		if _, err := s.Hydrate(ctx, it, store.PartEnrichment); err != nil {
			t.Fatal(err)
		}
	})
}

func TestMemoryBodies(t *testing.T) {
	t.Parallel()
	bodiesConformance(t, func(*testing.T) bodyStore { return memBodies{store.NewMemory()} })
}

func TestDynamoBodies(t *testing.T) {
	t.Parallel()
	env := localtest.Stack(t, nil)
	s := dynBodies{Items: env.Items(), s3: objects.NewClient(env.AWS), bucket: env.Stack.BodiesBucket()}
	bodiesConformance(t, func(*testing.T) bodyStore { return s })
}

// TestBodyPlacement pins the threshold rule: at most Threshold bytes to the
// table, more to S3, and everything to the table without a bucket.
func TestBodyPlacement(t *testing.T) {
	t.Parallel()
	withBucket := store.BodyConfig{Table: "t", Objects: &objects.Bucket{Name: "b"}}
	for _, c := range []struct {
		cfg  store.BodyConfig
		n    int
		want string
	}{
		{withBucket, 0, store.StoreTable},
		{withBucket, store.DefaultBodyThreshold, store.StoreTable},
		{withBucket, store.DefaultBodyThreshold + 1, store.StoreS3},
		{store.BodyConfig{Table: "t", Objects: withBucket.Objects, Threshold: 100}, 101, store.StoreS3},
		{store.BodyConfig{Table: "t"}, 200 << 10, store.StoreTable},
	} {
		if got := c.cfg.Placement(c.n); got != c.want {
			t.Errorf("Placement(%d) with threshold %d = %s, want %s", c.n, c.cfg.Threshold, got, c.want)
		}
	}
	k := store.ObjectKey("item/with spaces", store.PartDocument, "abc")
	if !strings.HasPrefix(k, "document/") || !strings.HasSuffix(k, "/item%2Fwith%20spaces/abc") || strings.Count(k, "/") != 3 {
		t.Fatalf("object key %q", k)
	}
}

// prose returns n bytes of seeded random words: text that compresses about
// as little as an article (repeated text would fit the table compressed).
func prose(n int) string {
	words := []string{"the", "market", "rallied", "after", "central", "bank", "held", "rates", "steady", "while",
		"analysts", "expected", "a", "cut", "shares", "of", "tech", "firms", "rose", "sharply", "in", "early", "trading",
		"investors", "weighed", "fresh", "data", "on", "inflation", "and", "jobs", "growth", "across", "regions"}
	r := rand.New(rand.NewPCG(1, uint64(n)))
	var b strings.Builder
	for b.Len() < n {
		b.WriteString(words[r.IntN(len(words))])
		b.WriteString(" ")
		if r.IntN(12) == 0 {
			fmt.Fprintf(&b, "%d. ", r.IntN(100000))
		}
	}
	return b.String()[:n]
}
