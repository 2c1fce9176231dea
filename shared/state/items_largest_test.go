package state_test

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

	"github.com/triagehq/triage/infra/local/localtest"
	"github.com/triagehq/triage/shared/failure"
	"github.com/triagehq/triage/shared/pipeline"
	"github.com/triagehq/triage/shared/state"
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
	id := strings.Repeat("i", pipeline.MaxItemIDLen)
	msg := strings.Repeat("m", 100) // SQS message ids are at most 100 characters
	now := t0
	step := func() time.Time { now = now.Add(time.Minute); return now }
	must := func(err error) {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
	}
	claim := func(st pipeline.Stage, rc string) string {
		t.Helper()
		owner := msg + "#" + rc
		_, err := s.Claim(ctx, state.ClaimRequest{ItemID: id, Stage: st, Owner: owner, Carrier: msg, Now: step(), LeaseFor: time.Hour})
		must(err)
		return owner
	}

	// The producer's metadata at its bounds: every key, every value of
	// four-byte runes.
	metadata := map[string]string{}
	for i := range state.MaxMetadataKeys {
		key := fmt.Sprintf("%02d", i) + strings.Repeat("k", state.MaxMetadataKeyBytes-2)
		metadata[key] = strings.Repeat("𝄞", state.MaxMetadataValueBytes/4)
	}
	largest := state.NewItem{ID: id, Kind: state.KindAction, Now: now, Owner: msg + "#1",
		SourceURL:     "https://a.example/" + strings.Repeat("p", state.MaxURLBytes-len("https://a.example/")),
		WebhookURL:    "https://h.example/" + strings.Repeat("q", state.MaxURLBytes-len("https://h.example/")),
		CorrelationID: strings.Repeat("c", state.MaxCorrelationIDBytes), Metadata: metadata}
	_, err := s.Create(ctx, largest)
	must(err)
	over := largest
	over.ID, over.SourceURL = "x", largest.SourceURL+"u"
	if _, err := s.Create(ctx, over); !errors.Is(err, state.ErrInvalidItem) {
		t.Fatalf("a URL over the bound: %v", err)
	}
	over = largest
	over.ID, over.Metadata = "y", maps.Clone(metadata)
	over.Metadata["one-more"] = "v"
	if _, err := s.Create(ctx, over); !errors.Is(err, state.ErrInvalidItem) {
		t.Fatalf("metadata over the bound: %v", err)
	}
	// fetch: a 200 KiB document (S3) with an absurd content type.
	owner := claim(pipeline.Fetch, "1")
	text := strings.Repeat("word ", 40<<10)
	must(s.Complete(ctx, state.CompleteRequest{ItemID: id, Stage: pipeline.Fetch, Owner: owner, Now: step(),
		Output: state.Output{Document: &state.Document{Text: text, Bytes: len(text), ContentType: "text/" + huge(10_000),
			Truncated: true, FetchedAt: now}}}))
	// llm: an enrichment above the threshold, with an absurd model name.
	owner = claim(pipeline.LLM, "1")
	must(s.Complete(ctx, state.CompleteRequest{ItemID: id, Stage: pipeline.LLM, Owner: owner, Now: step(),
		Output: state.Output{Enrichment: &state.Enrichment{SummaryNeutral: huge(5000), SummarySpicy: huge(5000),
			Category: "c", Severity: "s", PrimaryActor: huge(1000), TopEntities: []string{huge(1000), huge(1000)},
			Model: huge(10_000), ActionOutcome: huge(10_000), EnrichedAt: now}}}))
	// notify: a failure with everything at its limit, then the dead letter.
	details := map[string]string{}
	for i := range 40 {
		details[string(rune('a'+i%26))+string(rune('a'+i/26))+huge(100)] = huge(10_000)
	}
	lastError := func() state.LastError {
		return state.LastError{Component: pipeline.Notify, ErrorClass: failure.UpstreamUnavailable, Error: huge(10_000),
			ErrorType: huge(10_000), ErrorCode: huge(10_000), FailedAt: now, CorrelationID: huge(10_000), RetryCount: 99,
			Retryable: true, RetryAt: &now, MaxRetries: 99, Details: details}
	}
	owner = claim(pipeline.Notify, "1")
	n, err := s.Fail(ctx, state.FailRequest{ItemID: id, Stage: pipeline.Notify, Owner: owner, Now: step(), Counts: true,
		Next: state.Failed, LastError: lastError()})
	must(err)
	if n != 1 {
		t.Fatalf("attempts %d", n)
	}
	dl := state.DeadLetterRef{ID: strings.Repeat("d", state.MaxRefBytes), Stage: pipeline.Notify, Class: failure.UpstreamUnavailable, At: now,
		Attempt: 1}
	must(s.MarkDeadLettered(ctx, id, pipeline.Notify, dl, step()))
	replay := func() {
		t.Helper()
		it, err := s.Get(ctx, id)
		must(err)
		_, err = s.Replay(ctx, state.ReplayRequest{ItemID: id, Stage: pipeline.Notify, PrevReplayCount: it.ReplayCount,
			Note: huge(10_000), By: strings.Repeat("b", state.MaxByBytes), Class: failure.UpstreamUnavailable,
			DeadLetterID: strings.Repeat("d", state.MaxRefBytes), MessageID: strings.Repeat("m", state.MaxRefBytes), Now: step()})
		must(err)
	}
	// Replays past MaxReplays, each failing again at once.
	for i := range state.MaxReplays + 3 {
		replay()
		owner = claim(pipeline.Notify, string(rune('2'+i)))
		_, err = s.Fail(ctx, state.FailRequest{ItemID: id, Stage: pipeline.Notify, Owner: owner, Now: step(), Counts: true,
			PrevAttempts: 0, Next: state.Failed, LastError: lastError()})
		must(err)
		again := dl
		again.Replay = i + 1
		must(s.MarkDeadLettered(ctx, id, pipeline.Notify, again, step()))
	}
	// Notes past MaxNotes.
	for range state.MaxNotes + 3 {
		must(s.Annotate(ctx, id, state.Note{At: step(), By: strings.Repeat("b", state.MaxByBytes), Text: huge(10_000),
			DeadLetterID: strings.Repeat("d", state.MaxRefBytes)}))
	}
	// An operator's resolution of the dead letter, at its bounds.
	must(s.Resolve(ctx, state.Resolution{ItemID: id, At: step(), By: strings.Repeat("b", state.MaxByBytes),
		Note: huge(10_000), Stage: pipeline.Notify, Class: failure.UpstreamUnavailable,
		DeadLetterID: strings.Repeat("d", state.MaxRefBytes), MessageID: strings.Repeat("m", state.MaxRefBytes)}))
	// One more replay, and a claim: the item is working with a live lease,
	// its largest shape.
	replay()
	claim(pipeline.Notify, "99")

	out, err := s.DB.GetItem(ctx, &dynamodb.GetItemInput{TableName: &s.Table, ConsistentRead: aws.Bool(true),
		Key: map[string]types.AttributeValue{"item_id": &types.AttributeValueMemberS{Value: id}}})
	must(err)
	size := state.ItemSize(out.Item)
	it, err := s.Get(ctx, id)
	must(err)
	if len(it.Replays) != state.MaxReplays || len(it.Notes) != state.MaxNotes || len(it.LastError.Details) != state.MaxDetails ||
		len(it.Metadata) != state.MaxMetadataKeys || it.Resolution == nil {
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
