package console_test

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"testing"
	"time"

	"github.com/triagehq/triage/internal/store"
	"github.com/triagehq/triage/internal/work"
)

// seedItems puts n items into the memory store in the mix of a busy day:
// most done, some in flight, retrying or failed, one in twenty
// dead-lettered (their DLQ messages too), and an error-log entry for every
// failure over the last 24 hours.
func seedItems(tb testing.TB, b *bundle, n int) {
	tb.Helper()
	seed(tb, n, func(id string, st work.Stage, c work.Class) {
		b.deadLetter(tb, id, st, c, "upstream said no for "+id)
	},
		func(it store.Item) error { b.store.Put(it); return nil }, b.store.Append)
}

// seed makes the items of seedItems: dead letters with messages through
// dead, others through put and log.
func seed(tb testing.TB, n int, dead func(string, work.Stage, work.Class), put func(store.Item) error,
	log func(context.Context, store.LogEntry) error) {
	tb.Helper()
	classes := []work.Class{work.NotFound, work.AuthDenied, work.ContentPolicy, work.TokenLimit, work.ResponseInvalid}
	stages := work.Stages()
	for i := range n {
		id := fmt.Sprintf("item-%05d", i)
		st := stages[i%len(stages)]
		c := classes[i%len(classes)]
		at := t0.Add(-time.Duration(i%(24*60)) * time.Minute)
		if i%20 == 0 {
			// Only the first 100 get a DLQ message: the in-memory SQS is
			// not what is measured, and a real DLQ is read by actions only.
			if i < 2000 && dead != nil {
				dead(id, st, c)
			} else if err := put(store.Item{ID: id, Kind: store.KindStory, State: work.Deadletter, Stage: st, UpdatedAt: at, LastFailureAt: at,
				LastError:  &store.LastError{Component: st, ErrorClass: c, Error: "upstream said no", FailedAt: at},
				DeadLetter: &store.DeadLetterRef{ID: "dl-" + id, Stage: st, Class: c, At: at}}); err != nil {
				tb.Fatal(err)
			}
			continue
		}
		s := work.Done
		switch i % 10 {
		case 1:
			s = work.Queued
		case 3:
			s = work.Retryable
		case 5:
			s = work.Working
		case 7:
			s = work.Failed
		}
		it := store.Item{ID: id, Kind: store.KindStory, State: s, Stage: st, UpdatedAt: at}
		if s == work.Retryable || s == work.Failed {
			it.LastFailureAt = at
			it.LastError = &store.LastError{Component: st, ErrorClass: work.RateLimited, Error: "429", FailedAt: at}
			if err := log(context.Background(), store.LogEntry{ItemID: id, Stage: st, Class: work.RateLimited,
				Message: "429 Too Many Requests", Attempt: 1, Decision: "retry", OccurredAt: at}); err != nil {
				tb.Fatal(err)
			}
		}
		if err := put(it); err != nil {
			tb.Fatal(err)
		}
	}
}

// BenchmarkPages renders the console's pages against a store of 10,000
// items (the in-memory twins of the stores: what is measured is the
// console's own work — bounded reads, grouping, templates, the chart —
// through a real HTTP round trip on loopback).
func BenchmarkPages(b *testing.B) {
	bb := newBundle(b)
	seedItems(b, bb, 10_000)
	resp, err := bb.client.Get(bb.srv.URL + "/?token=" + token)
	if err != nil {
		b.Fatal(err)
	}
	resp.Body.Close()
	benchPages(b, bb.client, bb.srv.URL)
}

// benchPages renders each page of the console at base b.N times.
func benchPages(b *testing.B, client *http.Client, base string) {
	for _, page := range []string{"/", "/dlq", "/dlq?stage=llm&class=AUTH_DENIED", "/items/item-00020", "/errors?since=24h", "/policy"} {
		b.Run(page, func(b *testing.B) {
			for b.Loop() {
				resp, err := client.Get(base + page)
				if err != nil {
					b.Fatal(err)
				}
				n, _ := io.Copy(io.Discard, resp.Body)
				resp.Body.Close()
				if resp.StatusCode != http.StatusOK || n == 0 {
					b.Fatalf("%s: %d", page, resp.StatusCode)
				}
			}
		})
	}
}
