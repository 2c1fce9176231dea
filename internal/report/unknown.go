package report

import (
	"cmp"
	"context"
	"errors"
	"slices"
	"time"

	"github.com/triagehq/triage/internal/redact"
	"github.com/triagehq/triage/internal/store"
	"github.com/triagehq/triage/internal/work"
)

// MaxSample bounds an UnknownRow's sample.
const MaxSample = 512

// UnknownRow is one family of failures nothing recognised
// (store.LogEntry.Unrecognised: UNKNOWN, or a class only a default by
// status decided), by fingerprint.
type UnknownRow struct {
	// ID names the fingerprint (Fingerprint.ID).
	ID string `json:"fingerprint"`
	Fingerprint
	// Classes are the classes the family's failures got, most frequent
	// first: UNKNOWN, or the default of the status by the upstream's role.
	Classes []work.Class `json:"error_classes"`
	// Count counts the failures; Items the distinct items among them.
	Count int `json:"count"`
	Items int `json:"items"`
	// FirstSeen and LastSeen are the earliest and latest failures.
	FirstSeen time.Time `json:"first_seen"`
	LastSeen  time.Time `json:"last_seen"`
	// Sample is the latest failure's text, redacted once more
	// (redact.String) and at most MaxSample bytes.
	Sample string `json:"sample"`
}

// UnknownOf groups the entries nothing recognised by fingerprint
// (FingerprintOf); other entries are left out. Most failures first, then
// the latest seen first, then by fingerprint.
func UnknownOf(entries []store.LogEntry) []UnknownRow {
	type acc struct {
		row     UnknownRow
		items   map[string]bool
		classes map[work.Class]int
		sample  string
	}
	by := map[Fingerprint]*acc{}
	for _, e := range entries {
		if !e.Unrecognised() {
			continue
		}
		fp := FingerprintOf(e.Evidence())
		a := by[fp]
		if a == nil {
			a = &acc{row: UnknownRow{ID: fp.ID(), Fingerprint: fp, FirstSeen: e.OccurredAt, LastSeen: e.OccurredAt},
				items: map[string]bool{}, classes: map[work.Class]int{}, sample: e.Message}
			by[fp] = a
		}
		a.row.Count++
		a.items[e.ItemID] = true
		a.classes[e.Class]++
		if e.OccurredAt.Before(a.row.FirstSeen) {
			a.row.FirstSeen = e.OccurredAt
		}
		if !e.OccurredAt.Before(a.row.LastSeen) {
			a.row.LastSeen, a.sample = e.OccurredAt, e.Message
		}
	}
	out := make([]UnknownRow, 0, len(by))
	for _, a := range by {
		a.row.Items = len(a.items)
		a.row.Classes = mostFirst(a.classes)
		a.row.Sample = Sample(a.sample)
		out = append(out, a.row)
	}
	slices.SortFunc(out, func(a, b UnknownRow) int {
		return cmp.Or(cmp.Compare(b.Count, a.Count), b.LastSeen.Compare(a.LastSeen), cmp.Compare(a.ID, b.ID))
	})
	return out
}

// Sample is a logged failure's text as a report shows it: redacted once
// more (the error log stores it redacted at write; a rule added since may
// know more) and at most MaxSample bytes.
func Sample(text string) string {
	s := redact.String(text)
	if len(s) > MaxSample {
		s = work.Prefix(s, MaxSample)
	}
	return s
}

// UnrecognisedReader reads the error log's failures nothing recognised
// through its sparse index (store.ErrorLogReader.Unrecognised, LogSlice).
type UnrecognisedReader interface {
	Unrecognised(ctx context.Context, since, until time.Time, fn func(store.LogEntry) error) error
}

// Unrecognised calls fn for each entry in [since, until) nothing
// recognised (store.LogEntry.Unrecognised), in order.
func (l LogSlice) Unrecognised(ctx context.Context, since, until time.Time, fn func(store.LogEntry) error) error {
	return l.Between(ctx, since, until, func(e store.LogEntry) error {
		if !e.Unrecognised() {
			return nil
		}
		return fn(e)
	})
}

// Unknown groups the failures nothing recognised in w by fingerprint
// (UnknownOf), read through the error log's unrecognised index: r.Log must
// be an UnrecognisedReader. At most MaxEntries are read.
func (r *Reporter) Unknown(ctx context.Context, w Window) ([]UnknownRow, error) {
	u, ok := r.Log.(UnrecognisedReader)
	if !ok {
		return nil, errors.New("report: the error log reader cannot read the unrecognised failures' index")
	}
	entries, err := r.read(ctx, w, "unrecognised failures", u.Unrecognised)
	if err != nil {
		return nil, err
	}
	return UnknownOf(entries), nil
}
