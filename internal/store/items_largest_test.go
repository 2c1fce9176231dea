package store_test

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"strings"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/triagehq/triage/dev/local/localtest"
	"github.com/triagehq/triage/internal/store"
	"github.com/triagehq/triage/internal/work"
)

// TestLargestItem drives one item, through the store's own operations,
// to the largest size the code lets it reach — every id, URL, error text,
// detail, note and replay at its bound, and each list past its bound — and
// writes it against moto: it must stay far below DynamoDB's 400 KB, and
// stay writable (a claim and a replay still go through).
func TestLargestItem(t *testing.T) {
	t.Parallel()
	env := localtest.Stack(t, nil)
	s := env.Items()
	ctx := context.Background()
	huge := func(n int) string { return strings.Repeat("é", n) } // 2 bytes a rune: cuts land mid-rune
	id := strings.Repeat("i", work.MaxItemIDLen)
	msg := strings.Repeat("m", 100) // SQS message ids are at most 100 characters
	now := t0
	step := func() time.Time { now = now.Add(time.Minute); return now }
	must := func(err error) {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
	}
	claim := func(st work.Stage, rc string) string {
		t.Helper()
		owner := msg + "#" + rc
		_, err := s.Claim(ctx, store.ClaimRequest{ItemID: id, Stage: st, Owner: owner, Carrier: msg, Now: step(), LeaseFor: time.Hour})
		must(err)
		return owner
	}

	// The producer's metadata at its bounds: every key, every value of
	// four-byte runes.
	metadata := map[string]string{}
	for i := range store.MaxMetadataKeys {
		key := fmt.Sprintf("%02d", i) + strings.Repeat("k", store.MaxMetadataKeyBytes-2)
		metadata[key] = strings.Repeat("𝄞", store.MaxMetadataValueBytes/4)
	}
	largest := store.NewItem{ID: id, Kind: store.KindAction, Now: now, Owner: msg + "#1",
		SourceURL:     "https://a.example/" + strings.Repeat("p", store.MaxURLBytes-len("https://a.example/")),
		WebhookURL:    "https://h.example/" + strings.Repeat("q", store.MaxURLBytes-len("https://h.example/")),
		CorrelationID: strings.Repeat("c", store.MaxCorrelationIDBytes), Metadata: metadata}
	_, err := s.Create(ctx, largest)
	must(err)
	over := largest
	over.ID, over.SourceURL = "x", largest.SourceURL+"u"
	if _, err := s.Create(ctx, over); !errors.Is(err, store.ErrInvalidItem) {
		t.Fatalf("a URL over the bound: %v", err)
	}
	over = largest
	over.ID, over.Metadata = "y", maps.Clone(metadata)
	over.Metadata["one-more"] = "v"
	if _, err := s.Create(ctx, over); !errors.Is(err, store.ErrInvalidItem) {
		t.Fatalf("metadata over the bound: %v", err)
	}
	// fetch: a 200 KiB document (S3) with an absurd content type.
	owner := claim(work.Fetch, "1")
	text := strings.Repeat("word ", 40<<10)
	must(s.Complete(ctx, store.CompleteRequest{ItemID: id, Stage: work.Fetch, Owner: owner, Now: step(),
		Output: work.Output{Document: &work.Document{Text: text, Bytes: len(text), ContentType: "text/" + huge(10_000),
			Truncated: true, FetchedAt: now}}}))
	// llm: an enrichment above the threshold, with an absurd model name.
	owner = claim(work.LLM, "1")
	must(s.Complete(ctx, store.CompleteRequest{ItemID: id, Stage: work.LLM, Owner: owner, Now: step(),
		Output: work.Output{Enrichment: &work.Enrichment{SummaryNeutral: huge(5000), SummarySpicy: huge(5000),
			Category: "c", Severity: "s", PrimaryActor: huge(1000), TopEntities: []string{huge(1000), huge(1000)},
			Model: huge(10_000), ActionOutcome: huge(10_000), EnrichedAt: now}}}))
	// notify: a failure with everything at its limit, then the dead letter.
	details := map[string]string{}
	for i := range 40 {
		details[string(rune('a'+i%26))+string(rune('a'+i/26))+huge(100)] = huge(10_000)
	}
	lastError := func() store.LastError {
		return store.LastError{Component: work.Notify, ErrorClass: work.UpstreamUnavailable, Error: huge(10_000),
			ErrorType: huge(10_000), ErrorCode: huge(10_000), FailedAt: now, CorrelationID: huge(10_000), RetryCount: 99,
			Retryable: true, RetryAt: &now, MaxRetries: 99, Details: details}
	}
	owner = claim(work.Notify, "1")
	n, err := s.Fail(ctx, store.FailRequest{ItemID: id, Stage: work.Notify, Owner: owner, Now: step(), Counts: true,
		Next: work.Failed, LastError: lastError()})
	must(err)
	if n != 1 {
		t.Fatalf("attempts %d", n)
	}
	dl := store.DeadLetterRef{ID: strings.Repeat("d", store.MaxRefBytes), Stage: work.Notify, Class: work.UpstreamUnavailable, At: now,
		Attempt: 1}
	must(s.MarkDeadLettered(ctx, id, work.Notify, dl, step()))
	replay := func() {
		t.Helper()
		it, err := s.Get(ctx, id)
		must(err)
		_, err = s.Replay(ctx, store.ReplayRequest{ItemID: id, Stage: work.Notify, PrevReplayCount: it.ReplayCount,
			Note: huge(10_000), By: strings.Repeat("b", store.MaxByBytes), Class: work.UpstreamUnavailable,
			DeadLetterID: strings.Repeat("d", store.MaxRefBytes), MessageID: strings.Repeat("m", store.MaxRefBytes), Now: step()})
		must(err)
	}
	// Replays past MaxReplays, each failing again at once.
	for i := range store.MaxReplays + 3 {
		replay()
		owner = claim(work.Notify, string(rune('2'+i)))
		_, err = s.Fail(ctx, store.FailRequest{ItemID: id, Stage: work.Notify, Owner: owner, Now: step(), Counts: true,
			PrevAttempts: 0, Next: work.Failed, LastError: lastError()})
		must(err)
		again := dl
		again.Replay = i + 1
		must(s.MarkDeadLettered(ctx, id, work.Notify, again, step()))
	}
	// Notes past MaxNotes.
	for range store.MaxNotes + 3 {
		must(s.Annotate(ctx, id, store.Note{At: step(), By: strings.Repeat("b", store.MaxByBytes), Text: huge(10_000),
			DeadLetterID: strings.Repeat("d", store.MaxRefBytes)}))
	}
	// An operator's resolution of the dead letter, at its bounds.
	must(s.Resolve(ctx, store.Resolution{ItemID: id, At: step(), By: strings.Repeat("b", store.MaxByBytes),
		Note: huge(10_000), Stage: work.Notify, Class: work.UpstreamUnavailable,
		DeadLetterID: strings.Repeat("d", store.MaxRefBytes), MessageID: strings.Repeat("m", store.MaxRefBytes)}))
	// One more replay, and a claim: the item is working with a live lease,
	// its largest shape.
	replay()
	claim(work.Notify, "99")

	out, err := s.DB.GetItem(ctx, &dynamodb.GetItemInput{TableName: &s.Table, ConsistentRead: aws.Bool(true),
		Key: map[string]types.AttributeValue{"item_id": &types.AttributeValueMemberS{Value: id}}})
	must(err)
	size := store.ItemSize(out.Item)
	it, err := s.Get(ctx, id)
	must(err)
	if len(it.Replays) != store.MaxReplays || len(it.Notes) != store.MaxNotes || len(it.LastError.Details) != store.MaxDetails ||
		len(it.Metadata) != store.MaxMetadataKeys || it.Resolution == nil {
		t.Fatalf("kept: %d replays, %d notes, %d details, %d metadata keys, resolution %v",
			len(it.Replays), len(it.Notes), len(it.LastError.Details), len(it.Metadata), it.Resolution)
	}
	// The bounds add up to about 110 KB: 10 notes and 10 replays of 2 KB
	// text with their ids, the producer's metadata (32 values of 1 KB),
	// a last_error with 16 details, two 2 KB URLs, a resolution.
	const ceiling = 120 << 10
	t.Logf("the largest item the code can produce: %d bytes (%.0f%% of DynamoDB's 400 KB; %d WRU a write)",
		size, float64(size)*100/(400<<10), (size+1023)/1024)
	if size > ceiling {
		t.Fatalf("the largest item is %d bytes, over the %d the bounds allow", size, ceiling)
	}
}

// TestItemSizeRules pins ItemSize to DynamoDB's documented sizes, one
// attribute type a row: the attribute's name counts, then its value.
func TestItemSizeRules(t *testing.T) {
	t.Parallel()
	tests := map[string]struct {
		v    types.AttributeValue
		want int
	}{
		"string, UTF-8 bytes":        {&types.AttributeValueMemberS{Value: "héllo"}, 6},
		"number, two digits a byte":  {&types.AttributeValueMemberN{Value: "123.45"}, 4},
		"number, zeroes not counted": {&types.AttributeValueMemberN{Value: "-0.00100"}, 2},
		"binary, raw bytes":          {&types.AttributeValueMemberB{Value: []byte{1, 2, 3}}, 3},
		"boolean":                    {&types.AttributeValueMemberBOOL{Value: true}, 1},
		"null":                       {&types.AttributeValueMemberNULL{Value: true}, 1},
		"list, 3 plus a byte each": {&types.AttributeValueMemberL{Value: []types.AttributeValue{
			&types.AttributeValueMemberS{Value: "ab"}, &types.AttributeValueMemberN{Value: "7"}}}, 3 + 3 + 3},
		"map, names count": {&types.AttributeValueMemberM{Value: map[string]types.AttributeValue{
			"key": &types.AttributeValueMemberS{Value: "v"}}}, 3 + 3 + 1 + 1},
		"string set": {&types.AttributeValueMemberSS{Value: []string{"ab", "cde"}}, 5},
		"number set": {&types.AttributeValueMemberNS{Value: []string{"1", "100", "12345"}}, 2 + 2 + 4},
		"binary set": {&types.AttributeValueMemberBS{Value: [][]byte{{1}, {2, 3}}}, 3},
		"empty set":  {&types.AttributeValueMemberSS{}, 0},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			if got := store.ItemSize(map[string]types.AttributeValue{"attr": tc.v}); got != len("attr")+tc.want {
				t.Fatalf("ItemSize = %d, want %d (name 4 + value %d)", got, len("attr")+tc.want, tc.want)
			}
		})
	}
}
