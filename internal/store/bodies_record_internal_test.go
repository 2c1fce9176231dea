package store

import (
	"crypto/sha256"
	"encoding/hex"
	"reflect"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/feature/dynamodb/attributevalue"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/triagehq/triage/internal/work"
)

// TestRecordStoresBodyRefsCompact: the item record stores a document's and
// an enrichment's body reference as a map whose sha256 is the digest's 32
// raw bytes, not the hex string the reference holds (the outer Body of
// storedDocument hides the Document's own), and reads them back whole.
func TestRecordStoresBodyRefsCompact(t *testing.T) {
	t.Parallel()
	sum := sha256.Sum256([]byte("body"))
	ref := &work.BodyRef{Store: StoreTable, Bytes: 4, SHA256: hex.EncodeToString(sum[:]), Encoding: EncodingGzip}
	at := time.Date(2026, 11, 28, 9, 0, 0, 0, time.UTC)
	it := Item{ID: "story-1", Document: &work.Document{Bytes: 4, SHA256: "other", ContentType: "text/html", FetchedAt: at, Body: ref},
		Enrichment: &work.Enrichment{Model: "openai:gpt", EnrichedAt: at, Body: ref}}
	av, err := attributevalue.MarshalMap(toRecord(it))
	if err != nil {
		t.Fatal(err)
	}
	for _, part := range []string{"document", "enrichment"} {
		m, ok := av[part].(*types.AttributeValueMemberM)
		if !ok {
			t.Fatalf("%s is %T, want a map", part, av[part])
		}
		body, ok := m.Value["body"].(*types.AttributeValueMemberM)
		if !ok {
			t.Fatalf("%s.body is %T, want a map", part, m.Value["body"])
		}
		if b, ok := body.Value["sha256"].(*types.AttributeValueMemberB); !ok || len(b.Value) != sha256.Size {
			t.Errorf("%s.body.sha256 is %#v, want the digest's 32 raw bytes", part, body.Value["sha256"])
		}
		if _, ok := body.Value["key"]; ok {
			t.Errorf("%s.body stores the S3 key, which is derived", part)
		}
	}
	var r record
	if err := attributevalue.UnmarshalMap(av, &r); err != nil {
		t.Fatal(err)
	}
	got := r.item()
	if !reflect.DeepEqual(got.Document, it.Document) || !reflect.DeepEqual(got.Enrichment, it.Enrichment) {
		t.Errorf("read back %+v, %+v; want %+v, %+v", got.Document, got.Enrichment, it.Document, it.Enrichment)
	}
}
