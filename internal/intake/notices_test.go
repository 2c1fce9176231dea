package intake_test

import (
	"slices"
	"testing"
	"time"

	"github.com/triagehq/triage/internal/intake"
	"github.com/triagehq/triage/internal/store"
)

func ptr(b bool) *bool { return &b }

// Each kind has its default; an explicit choice wins; the item keeps what
// the spec resolved to.
func TestNoticeChoicesResolvePerKind(t *testing.T) {
	t.Parallel()
	for name, tc := range map[string]struct {
		body string
		want store.Notices
	}{
		"story: nothing":            {`{"item_id":"s",` + src + `,` + hook + `}`, store.Notices{}},
		"document: nothing":         {`{"item_id":"s","kind":"document",` + src + `,` + hook + `}`, store.Notices{}},
		"action: failed":            {`{"item_id":"s","kind":"action",` + src + `,` + hook + `}`, store.Notices{Failed: true}},
		"action opts out":           {`{"item_id":"s","kind":"action",` + src + `,` + hook + `,"notices":{"failed":false}}`, store.Notices{}},
		"action asks for retries":   {`{"item_id":"s","kind":"action",` + src + `,` + hook + `,"notices":{"retry_scheduled":true}}`, store.Notices{Failed: true, RetryScheduled: true}},
		"story opts in":             {`{"item_id":"s",` + src + `,` + hook + `,"notices":{"failed":true}}`, store.Notices{Failed: true}},
		"empty object is defaults":  {`{"item_id":"s","kind":"action",` + src + `,` + hook + `,"notices":{}}`, store.Notices{Failed: true}},
		"unknown notice is ignored": {`{"item_id":"s",` + src + `,` + hook + `,"notices":{"succeeded":true}}`, store.Notices{}},
	} {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			spec, _, err := intake.Decode(tc.body)
			if err != nil {
				t.Fatal(err)
			}
			n := spec.NewItem("m#1", time.Unix(0, 0))
			if n.Notices == nil || *n.Notices != tc.want {
				t.Fatalf("NewItem notices %+v, want %+v", n.Notices, tc.want)
			}
			it := store.Item{Kind: spec.Kind, Notices: n.Notices}
			if got := it.NoticeChoices(); got != tc.want {
				t.Fatalf("NoticeChoices %+v, want %+v", got, tc.want)
			}
		})
	}
}

// An unknown notice is reported like an unknown top-level field, by its
// path, and is never fatal.
func TestUnknownNoticeIsReported(t *testing.T) {
	t.Parallel()
	_, unknown, err := intake.Decode(`{"item_id":"s",` + src + `,` + hook + `,"priority":"high","notices":{"succeeded":true,"failed":true}}`)
	if err != nil {
		t.Fatal(err)
	}
	if want := []string{"notices.succeeded", "priority"}; !slices.Equal(unknown, want) {
		t.Fatalf("unknown %v, want %v", unknown, want)
	}
}

// A resubmission compares the choices as they resolve: an explicit default
// is the same spec; another choice is a conflict naming notices. An item
// stored before notices existed has its kind's defaults.
func TestNoticeConflicts(t *testing.T) {
	t.Parallel()
	base := intake.Spec{ItemID: "a", Kind: store.KindAction, SourceURL: "https://n.example.com/a", WebhookURL: "https://h.example.com/x"}
	stored := store.Item{ID: "a", Kind: store.KindAction, SourceURL: base.SourceURL, WebhookURL: base.WebhookURL}
	for name, tc := range map[string]struct {
		notices  *intake.NoticeSpec
		conflict bool
	}{
		"absent":            {nil, false},
		"explicit default":  {&intake.NoticeSpec{Failed: ptr(true), RetryScheduled: ptr(false)}, false},
		"opted out":         {&intake.NoticeSpec{Failed: ptr(false)}, true},
		"retries requested": {&intake.NoticeSpec{RetryScheduled: ptr(true)}, true},
	} {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			s := base
			s.Notices = tc.notices
			cs := s.Differences(stored)
			if got := len(cs) > 0; got != tc.conflict {
				t.Fatalf("conflicts %+v, want conflict=%v", cs, tc.conflict)
			}
			if tc.conflict && cs[0].Field != intake.FieldNotices {
				t.Fatalf("conflict on %q, want notices", cs[0].Field)
			}
		})
	}
}

// Encode writes only the choices the producer made.
func TestEncodeKeepsOnlyExplicitChoices(t *testing.T) {
	t.Parallel()
	s := intake.Spec{ItemID: "a", SourceURL: "https://n.example.com/a", WebhookURL: "https://h.example.com/x",
		Notices: &intake.NoticeSpec{RetryScheduled: ptr(true)}}
	got := s.Encode()
	want := `{"item_id":"a","source_url":"https://n.example.com/a","webhook_url":"https://h.example.com/x","notices":{"retry_scheduled":true}}`
	if got != want {
		t.Fatalf("Encode = %s\nwant     %s", got, want)
	}
	back, _, err := intake.Decode(got)
	if err != nil || back.Notices == nil || back.Notices.RetryScheduled == nil || !*back.Notices.RetryScheduled || back.Notices.Failed != nil {
		t.Fatalf("round trip %+v, %v", back.Notices, err)
	}
}
