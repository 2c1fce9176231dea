package intake

import (
	"encoding/json"
	"fmt"
	"maps"
	"slices"
	"strconv"
	"time"
	"unicode/utf16"
	"unicode/utf8"

	"github.com/triagehq/triage/internal/store"
	"github.com/triagehq/triage/internal/work"
)

// Limits of a spec: the item store's bounds of a spec (store.NewItem's
// SpecProblems checks them for the producer, Decode and the store alike).
// docs/item-message.schema.json states the same numbers; the tests hold the
// two together.
const (
	// MaxItemIDLen bounds item_id: printable ASCII, so bytes and characters
	// are one.
	MaxItemIDLen = work.MaxItemIDLen
	// MaxCorrelationIDLen bounds correlation_id: as long as an item id,
	// because an absent one is the item id.
	MaxCorrelationIDLen = store.MaxCorrelationIDBytes
	// MaxURLLen bounds source_url and webhook_url.
	MaxURLLen = store.MaxURLBytes
	// MaxMetadataKeys bounds the metadata object's keys.
	MaxMetadataKeys = store.MaxMetadataKeys
	// MaxMetadataKeyLen bounds a metadata key (ASCII letters, digits, _ . : -).
	MaxMetadataKeyLen = store.MaxMetadataKeyBytes
	// MaxMetadataValueLen bounds a metadata value, in characters.
	MaxMetadataValueLen = store.MaxMetadataValueChars
)

// Field names of the message.
const (
	FieldItemID        = "item_id"
	FieldKind          = "kind"
	FieldSourceURL     = "source_url"
	FieldWebhookURL    = "webhook_url"
	FieldMetadata      = "metadata"
	FieldCorrelationID = "correlation_id"
	// FieldNotices holds the owner's notice choices (NoticeSpec).
	FieldNotices = "notices"
	// fieldStage marks a pipeline envelope: a spec never has it.
	fieldStage = "stage"
)

// Fields lists the spec's fields in the order Encode writes them.
func Fields() []string {
	return []string{FieldItemID, FieldKind, FieldSourceURL, FieldWebhookURL, FieldMetadata, FieldCorrelationID, FieldNotices}
}

// Notice choice names: the fields of the notices object.
const (
	// NoticeFailed asks for item.failed when the item is dead-lettered.
	NoticeFailed = "failed"
	// NoticeRetryScheduled asks for item.retry_scheduled when a failure
	// that spent an attempt is scheduled for another.
	NoticeRetryScheduled = "retry_scheduled"
)

// NoticeFields lists the notices object's fields.
func NoticeFields() []string { return []string{NoticeFailed, NoticeRetryScheduled} }

// NoticeSpec is the owner's choice of failure notices (package notice). A
// nil field takes the kind's default (store.DefaultNotices): item.failed on
// for action tasks, off for stories and documents; item.retry_scheduled off.
type NoticeSpec struct {
	// Failed asks for (true) or refuses (false) item.failed.
	Failed *bool `json:"failed,omitempty"`
	// RetryScheduled asks for (true) or refuses (false)
	// item.retry_scheduled.
	RetryScheduled *bool `json:"retry_scheduled,omitempty"`
}

// Resolve applies n to the defaults of kind.
func (n *NoticeSpec) Resolve(kind store.Kind) store.Notices {
	if kind == "" {
		kind = store.KindStory
	}
	out := store.DefaultNotices(kind)
	if n == nil {
		return out
	}
	if n.Failed != nil {
		out.Failed = *n.Failed
	}
	if n.RetryScheduled != nil {
		out.RetryScheduled = *n.RetryScheduled
	}
	return out
}

// Spec is an item as its producer describes it: the body of the one message
// a producer sends.
type Spec struct {
	// ItemID names the item: 1 to MaxItemIDLen printable ASCII characters,
	// no spaces. Required; the idempotency key of the submission.
	ItemID string `json:"item_id"`
	// Kind is story (the default when empty), document or action.
	Kind store.Kind `json:"kind,omitempty"`
	// SourceURL is the http(s) URL the fetch stage downloads. Required.
	SourceURL string `json:"source_url"`
	// WebhookURL is the http(s) URL the notify stage delivers to. Required.
	WebhookURL string `json:"webhook_url"`
	// Metadata is the producer's own key/value context, kept on the item and
	// compared on a resubmission; at most MaxMetadataKeys keys.
	Metadata map[string]string `json:"metadata,omitempty"`
	// CorrelationID follows the item through every stage and log line;
	// empty means the item id.
	CorrelationID string `json:"correlation_id,omitempty"`
	// Notices are the owner's notice choices; nil takes the kind's
	// defaults (see NoticeSpec).
	Notices *NoticeSpec `json:"notices,omitempty"`
}

// ErrInvalid is the sentinel every *Error matches: the item store's
// (store.ErrInvalidItem), so a spec refused here and one the store refuses
// are the same error.
var ErrInvalid = store.ErrInvalidItem

// Error lists everything wrong with a message, so a producer fixes it in
// one round: the message's encoding problems, then the spec's. ItemID is
// the message's item_id when it is a valid one. It matches ErrInvalid and
// work.ErrEnvelope (the runner dead-letters both as SCHEMA_INVALID).
type Error = store.SpecError

// IsSpec reports whether body is meant as a spec rather than a pipeline
// envelope: a JSON object without a "stage" field. It does not validate.
func IsSpec(body string) bool {
	var top map[string]json.RawMessage
	if json.Unmarshal([]byte(body), &top) != nil {
		return false
	}
	_, hasStage := top[fieldStage]
	return !hasStage
}

// Decode parses and validates a message body. It returns the spec with its
// defaults applied (kind story, correlation id = item id) and the names of
// fields it does not know, sorted; unknown fields are never an error. A body
// that is not a spec returns an *Error naming every problem.
func Decode(body string) (Spec, []string, error) {
	var top map[string]json.RawMessage
	if err := json.Unmarshal([]byte(body), &top); err != nil {
		return Spec{}, nil, &Error{Problems: []string{"not a JSON object: " + err.Error()}}
	}
	if top == nil {
		return Spec{}, nil, &Error{Problems: []string{"not a JSON object: null"}}
	}
	var (
		s        Spec
		problems []string
	)
	str := func(field string, dst *string) {
		raw, ok := top[field]
		if !ok {
			return
		}
		if err := strictString(raw, dst); err != nil {
			problems = append(problems, field+" "+err.Error())
		}
	}
	str(FieldItemID, &s.ItemID)
	var kind string
	str(FieldKind, &kind)
	s.Kind = store.Kind(kind)
	str(FieldSourceURL, &s.SourceURL)
	str(FieldWebhookURL, &s.WebhookURL)
	str(FieldCorrelationID, &s.CorrelationID)
	if raw, ok := top[FieldMetadata]; ok {
		if err := decodeMetadata(raw, &s.Metadata); err != nil {
			problems = append(problems, FieldMetadata+" "+err.Error())
		}
	}
	var unknown []string
	if raw, ok := top[FieldNotices]; ok {
		n, extra, err := decodeNotices(raw)
		if err != nil {
			problems = append(problems, FieldNotices+" "+err.Error())
		}
		s.Notices, unknown = n, extra
	}
	if _, ok := top[fieldStage]; ok {
		problems = append(problems, `has a "stage" field: that is a pipeline envelope between stages, not an item spec`)
	}
	for k := range top {
		if k != fieldStage && !slices.Contains(Fields(), k) {
			unknown = append(unknown, k)
		}
	}
	slices.Sort(unknown)
	if err := s.validate(top); err != nil {
		problems = append(problems, err.Problems...)
	}
	if err := store.InvalidSpec(s.ItemID, problems); err != nil {
		return Spec{}, unknown, err
	}
	return s.withDefaults(), unknown, nil
}

// Validate checks s as Decode would check its encoding.
func (s Spec) Validate() error {
	if err := s.validate(nil); err != nil {
		return err
	}
	return nil
}

// validate returns the problems of s: the item store's check of a spec
// (store.NewItem's SpecProblems), and, when present is non-nil (the fields
// the message had), an explicit "" kind or correlation id, which the
// message must omit instead.
func (s Spec) validate(present map[string]json.RawMessage) *Error {
	var p []string
	if _, ok := present[FieldKind]; ok && s.Kind == "" {
		p = append(p, `kind "" is not story, document or action`)
	}
	if _, ok := present[FieldCorrelationID]; ok && s.CorrelationID == "" {
		p = append(p, "correlation_id is empty (omit it to use the item id)")
	}
	p = append(p, s.fields().SpecProblems()...)
	return store.InvalidSpec(s.ItemID, p)
}

// fields is s as the item store checks it, without defaults.
func (s Spec) fields() store.NewItem {
	return store.NewItem{ID: s.ItemID, Kind: s.Kind, SourceURL: s.SourceURL, WebhookURL: s.WebhookURL,
		CorrelationID: s.CorrelationID, Metadata: s.Metadata}
}

// strictString decodes a JSON string; null and other types are errors.
func strictString(raw json.RawMessage, dst *string) error {
	if len(raw) == 0 || raw[0] != '"' {
		return fmt.Errorf("must be a string, not %s", jsonType(raw))
	}
	return json.Unmarshal(raw, dst)
}

func decodeMetadata(raw json.RawMessage, dst *map[string]string) error {
	var obj map[string]json.RawMessage
	if len(raw) == 0 || raw[0] != '{' || json.Unmarshal(raw, &obj) != nil {
		return fmt.Errorf("must be an object of strings, not %s", jsonType(raw))
	}
	out := make(map[string]string, len(obj))
	for _, k := range slices.Sorted(maps.Keys(obj)) {
		var v string
		if err := strictString(obj[k], &v); err != nil {
			return fmt.Errorf("%q %v", work.Ellipsis(k, 32), err)
		}
		if !utf8.Valid(obj[k]) {
			// JSON would read the bytes as U+FFFD: a value other than the
			// one sent. Refused as store.NewItem.SpecProblems refuses it.
			return fmt.Errorf("%q must be valid UTF-8", work.Ellipsis(k, 32))
		}
		if esc := loneSurrogate(obj[k]); esc != "" {
			// JSON would read the escape as U+FFFD too.
			return fmt.Errorf("%q has the escape %s, half a surrogate pair: no character", work.Ellipsis(k, 32), esc)
		}
		out[k] = v
	}
	*dst = out
	return nil
}

// loneSurrogate returns the first \u escape of the JSON string raw that
// is half a surrogate pair without its other half ("\ud800", a low half
// alone, a high half before anything but a low one), as written; "" when
// there is none.
func loneSurrogate(raw []byte) string {
	hex := func(i int) (rune, bool) {
		if i+6 > len(raw) || raw[i] != '\\' || raw[i+1] != 'u' {
			return 0, false
		}
		n, err := strconv.ParseUint(string(raw[i+2:i+6]), 16, 16)
		return rune(n), err == nil
	}
	for i := 0; i < len(raw); i++ {
		if raw[i] != '\\' {
			continue
		}
		r, ok := hex(i)
		if !ok {
			i++ // an escape of one byte after the backslash
			continue
		}
		switch {
		case utf16.IsSurrogate(r) && r < 0xdc00:
			if low, ok := hex(i + 6); ok && low >= 0xdc00 && low <= 0xdfff {
				i += 11 // the pair is one character
				continue
			}
			return string(raw[i : i+6])
		case utf16.IsSurrogate(r):
			return string(raw[i : i+6])
		}
		i += 5
	}
	return ""
}

// decodeNotices reads the notices object: each known field a boolean;
// unknown fields are returned as "notices.<name>" (accepted, like unknown
// top-level fields).
func decodeNotices(raw json.RawMessage) (*NoticeSpec, []string, error) {
	var obj map[string]json.RawMessage
	if len(raw) == 0 || raw[0] != '{' || json.Unmarshal(raw, &obj) != nil {
		return nil, nil, fmt.Errorf("must be an object of booleans, not %s", jsonType(raw))
	}
	n := &NoticeSpec{}
	var unknown []string
	for _, k := range slices.Sorted(maps.Keys(obj)) {
		var dst **bool
		switch k {
		case NoticeFailed:
			dst = &n.Failed
		case NoticeRetryScheduled:
			dst = &n.RetryScheduled
		default:
			unknown = append(unknown, FieldNotices+"."+k)
			continue
		}
		v := obj[k]
		if len(v) == 0 || (v[0] != 't' && v[0] != 'f') {
			return nil, unknown, fmt.Errorf("%q must be true or false, not %s", k, jsonType(v))
		}
		b := v[0] == 't'
		*dst = &b
	}
	return n, unknown, nil
}

func jsonType(raw json.RawMessage) string {
	if len(raw) == 0 {
		return "nothing"
	}
	switch raw[0] {
	case '{':
		return "an object"
	case '[':
		return "an array"
	case '"':
		return "a string"
	case 't', 'f':
		return "a boolean"
	case 'n':
		return "null"
	}
	return "a number"
}

// withDefaults fills kind and correlation id.
func (s Spec) withDefaults() Spec {
	if s.Kind == "" {
		s.Kind = store.KindStory
	}
	if s.CorrelationID == "" {
		s.CorrelationID = s.ItemID
	}
	if len(s.Metadata) == 0 {
		s.Metadata = nil
	}
	if s.Notices != nil && s.Notices.Failed == nil && s.Notices.RetryScheduled == nil {
		s.Notices = nil
	}
	return s
}

// Normalize returns s as Decode would return its encoding: kind story and
// correlation id = item id when empty.
func (s Spec) Normalize() Spec { return s.withDefaults() }

// Encode returns the message body for s. It does not validate.
func (s Spec) Encode() string {
	if len(s.Metadata) == 0 {
		s.Metadata = nil
	}
	// Strings and a map of strings: Marshal cannot fail.
	b, _ := json.Marshal(s)
	return string(b)
}

// NewItem is the Items row the first stage creates from s (normalized),
// written by the delivery owner at now.
func (s Spec) NewItem(owner string, now time.Time) store.NewItem {
	s = s.withDefaults()
	notices := s.Notices.Resolve(s.Kind)
	return store.NewItem{
		ID: s.ItemID, Kind: s.Kind, SourceURL: s.SourceURL, WebhookURL: s.WebhookURL,
		CorrelationID: s.CorrelationID, Metadata: maps.Clone(s.Metadata), Notices: &notices, Owner: owner, Now: now,
	}
}

// Difference is one field where a resubmitted spec differs from the item.
type Difference struct {
	// Field is the spec field; Have the item's value, Got the message's.
	Field     string
	Have, Got string
}

// Differences compares s with the item that already has its id, field by
// field, and returns where they differ; empty means the message is a
// duplicate of the item's submission. The correlation id is not compared:
// it is tracing, not content. Notice choices are compared as they resolve
// (an absent choice is the kind's default), so an explicit default is no
// conflict.
func (s Spec) Differences(it store.Item) []Difference {
	s = s.withDefaults()
	kind := it.Kind
	if kind == "" {
		kind = store.KindStory
	}
	var out []Difference
	add := func(field, have, got string) {
		if have != got {
			out = append(out, Difference{Field: field, Have: have, Got: got})
		}
	}
	add(FieldKind, string(kind), string(s.Kind))
	add(FieldSourceURL, it.SourceURL, s.SourceURL)
	add(FieldWebhookURL, it.WebhookURL, s.WebhookURL)
	if !maps.Equal(it.Metadata, s.Metadata) {
		out = append(out, Difference{Field: FieldMetadata, Have: encodeMap(it.Metadata), Got: encodeMap(s.Metadata)})
	}
	if have, got := it.NoticeChoices(), s.Notices.Resolve(s.Kind); have != got {
		out = append(out, Difference{Field: FieldNotices, Have: encodeNotices(have), Got: encodeNotices(got)})
	}
	return out
}

func encodeNotices(n store.Notices) string {
	b, _ := json.Marshal(n)
	return string(b)
}

func encodeMap(m map[string]string) string {
	if len(m) == 0 {
		return "{}"
	}
	b, _ := json.Marshal(m)
	return string(b)
}
