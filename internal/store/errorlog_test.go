package store_test

import (
	"context"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb"

	"github.com/triagehq/triage/dev/local/localtest"
	"github.com/triagehq/triage/internal/store"
	"github.com/triagehq/triage/internal/work"
)

func TestLogEntryUnrecognised(t *testing.T) {
	t.Parallel()
	for name, tc := range map[string]struct {
		e    store.LogEntry
		want bool
	}{
		"unknown":             {store.LogEntry{Class: work.Unknown}, true},
		"a default by status": {store.LogEntry{Class: work.ClientError, Default: true}, true},
		"recognised":          {store.LogEntry{Class: work.RateLimited}, false},
		"a replay":            {store.LogEntry{Kind: store.LogReplay, Default: true}, false},
		"a resolution":        {store.LogEntry{Kind: store.LogResolution, Class: work.Unknown}, false},
	} {
		if got := tc.e.Unrecognised(); got != tc.want {
			t.Errorf("%s: Unrecognised() = %v, want %v", name, got, tc.want)
		}
	}
}

// TestUnrecognisedIndex writes failures recognised and not, and reads the
// sparse index: it holds the unrecognised alone, with their Default flag,
// while the by-class index still holds them all.
func TestUnrecognisedIndex(t *testing.T) {
	t.Parallel()
	env := localtest.Stack(t, nil)
	db := dynamodb.NewFromConfig(env.AWS)
	log := &store.ErrorLog{DB: db, Table: env.Stack.ErrorLogTable()}
	r := &store.ErrorLogReader{DB: db, Table: env.Stack.ErrorLogTable()}
	ctx := context.Background()
	t0 := time.Date(2026, 11, 20, 9, 0, 0, 0, time.UTC)
	for i, e := range []store.LogEntry{
		{ItemID: "u1", Stage: work.LLM, Class: work.Unknown, Default: true, Message: "weird"},
		{ItemID: "u2", Stage: work.Fetch, Class: work.NotFound, Default: true, Message: "HTTP 404", Provider: "acme", Status: 404, Code: "E_GONE"},
		{ItemID: "r1", Stage: work.LLM, Class: work.RateLimited, Message: "openai code rate_limit_exceeded"},
		{ItemID: "u3", Stage: work.Notify, Class: work.Unknown, Message: "old entry without the flag"},
	} {
		e.MessageID = "m" + e.ItemID
		e.OccurredAt = t0.Add(time.Duration(i) * time.Minute)
		if err := log.Append(ctx, e); err != nil {
			t.Fatal(err)
		}
	}
	var got []store.LogEntry
	if err := r.Unrecognised(ctx, t0, time.Time{}, func(e store.LogEntry) error { got = append(got, e); return nil }); err != nil {
		t.Fatal(err)
	}
	if len(got) != 3 || got[0].ItemID != "u1" || got[1].ItemID != "u2" || got[2].ItemID != "u3" {
		t.Fatalf("unrecognised, oldest first: %+v", got)
	}
	if !got[0].Default || !got[1].Default || got[2].Default || got[1].Class != work.NotFound || got[1].Stage != work.Fetch ||
		got[1].Provider != "acme" || got[1].Status != 404 || got[1].Code != "E_GONE" || got[0].Provider != "" || got[0].Status != 0 {
		t.Errorf("the flag and the fields do not round-trip: %+v", got)
	}
	got = got[:0]
	if err := r.Unrecognised(ctx, t0.Add(time.Minute), t0.Add(3*time.Minute), func(e store.LogEntry) error { got = append(got, e); return nil }); err != nil {
		t.Fatal(err)
	}
	if len(got) != 1 || got[0].ItemID != "u2" {
		t.Errorf("[t0+1m, t0+3m): %+v, want u2 alone", got)
	}
	n := 0
	if err := r.Between(ctx, t0, time.Time{}, func(store.LogEntry) error { n++; return nil }); err != nil {
		t.Fatal(err)
	}
	if n != 4 {
		t.Errorf("by class: %d entries, want all 4", n)
	}
}
