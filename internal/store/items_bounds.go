package store

import (
	"errors"
	"fmt"
	"maps"
	"net/url"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/triagehq/triage/internal/work"
)

// Bounds on what an item holds. DynamoDB refuses an item over 400 KB, and
// every write of an item is billed by its size, so nothing an upstream, a
// producer or an operator sends may grow an item without limit: bodies go
// elsewhere (see Part), lists keep their last entries (MaxReplays,
// MaxNotes), and every string has a bound here. TestLargestItem writes the
// largest item these bounds allow.
//
// The bounds of an item's spec — the fields a producer sends — are the
// producer contract's (docs/item-message.schema.json states the same
// numbers): the producer, the fetch stage's decoding and Create check them
// with the one function here (NewItem.SpecProblems), so a spec one accepts
// the others accept.
const (
	// MaxURLBytes bounds a spec's source and webhook URLs: printable ASCII,
	// so bytes and characters are one.
	MaxURLBytes = 2048
	// MaxCorrelationIDBytes bounds a correlation id: printable ASCII, as
	// long as an item id, because an absent one is the item id.
	MaxCorrelationIDBytes = work.MaxItemIDLen
	// MaxErrorBytes bounds last_error.error (the runner cuts at 1024 too).
	MaxErrorBytes = 1024
	// MaxErrorFieldBytes bounds last_error's type and code, a document's
	// content type and an enrichment's model and outcome on the item.
	MaxErrorFieldBytes = 256
	// MaxDetails, MaxDetailKeyBytes and MaxDetailBytes bound last_error's
	// details (model, host, request_id, upstream_status, …).
	MaxDetails        = 16
	MaxDetailKeyBytes = 64
	MaxDetailBytes    = 256
	// MaxMetadataKeys bounds the metadata's keys; MaxMetadataKeyBytes a key
	// (ASCII letters, digits, _ . : -); MaxMetadataValueChars a value, in
	// characters, which is MaxMetadataValueBytes in UTF-8.
	MaxMetadataKeys       = 32
	MaxMetadataKeyBytes   = 64
	MaxMetadataValueChars = 256
	MaxMetadataValueBytes = MaxMetadataValueChars * utf8.UTFMax
)

// ErrInvalidItem matches every *SpecError: a spec outside the bounds. No
// write was made, and none would succeed.
var ErrInvalidItem = errors.New("invalid item spec")

// SpecError lists everything wrong with an item's spec, so a producer fixes
// it in one round.
type SpecError struct {
	// ItemID is the spec's item id when it is a valid one, else empty.
	ItemID string
	// Problems are the individual findings.
	Problems []string
}

// InvalidSpec is the *SpecError of the spec of item id with problems; nil
// when there are none. The error keeps id only when it is a valid item id.
func InvalidSpec(id string, problems []string) *SpecError {
	if len(problems) == 0 {
		return nil
	}
	if checkItemID("item_id", id, work.MaxItemIDLen) != "" {
		id = ""
	}
	return &SpecError{ItemID: id, Problems: problems}
}

// Error joins the problems.
func (e *SpecError) Error() string {
	return "invalid item spec: " + strings.Join(e.Problems, "; ")
}

// Is matches ErrInvalidItem and work.ErrEnvelope (the runner
// dead-letters both as SCHEMA_INVALID).
func (e *SpecError) Is(target error) bool {
	return target == ErrInvalidItem || target == work.ErrEnvelope
}

// SpecProblems checks n's spec fields — id, kind, URLs, correlation id,
// metadata — against the producer contract and returns what is wrong, in
// field order; none means valid. An empty kind is story and an empty
// correlation id the item id, so neither is a problem, and a correlation id
// that is the item id is checked as the item id.
func (n NewItem) SpecProblems() []string {
	var p []string
	add := func(problem string) {
		if problem != "" {
			p = append(p, problem)
		}
	}
	add(checkItemID("item_id", n.ID, work.MaxItemIDLen))
	if n.Kind != "" && !slices.Contains(Kinds(), n.Kind) {
		add(fmt.Sprintf("kind %q is not story, document or action", work.Ellipsis(string(n.Kind), 32)))
	}
	add(checkURL("source_url", n.SourceURL))
	add(checkURL("webhook_url", n.WebhookURL))
	if n.CorrelationID != "" && n.CorrelationID != n.ID { // the item id's problem, if any, is said
		add(checkItemID("correlation_id", n.CorrelationID, MaxCorrelationIDBytes))
	}
	if len(n.Metadata) > MaxMetadataKeys {
		add(fmt.Sprintf("metadata has %d keys, at most %d are allowed", len(n.Metadata), MaxMetadataKeys))
	}
	for _, k := range slices.Sorted(maps.Keys(n.Metadata)) {
		if !metadataKey.MatchString(k) {
			add(fmt.Sprintf("metadata key %q must be 1 to %d of A-Z a-z 0-9 _ . : -", work.Ellipsis(k, 32), MaxMetadataKeyBytes))
		}
		if !utf8.ValidString(n.Metadata[k]) {
			add(fmt.Sprintf("metadata %q must be valid UTF-8", work.Ellipsis(k, 32)))
		} else if c := utf8.RuneCountInString(n.Metadata[k]); c > MaxMetadataValueChars {
			add(fmt.Sprintf("metadata %q is %d characters, at most %d are allowed", work.Ellipsis(k, 32), c, MaxMetadataValueChars))
		}
	}
	return p
}

// validate checks a new item's spec (Create): a *SpecError, or nil.
func (n NewItem) validate() error {
	if err := InvalidSpec(n.ID, n.SpecProblems()); err != nil {
		return err
	}
	return nil
}

var metadataKey = regexp.MustCompile(`^[A-Za-z0-9_.:-]{1,` + strconv.Itoa(MaxMetadataKeyBytes) + `}$`)

// checkItemID checks an identifier field: 1 to max printable ASCII
// characters.
func checkItemID(field, v string, max int) string {
	switch {
	case v == "":
		return field + " is required"
	case len(v) > max:
		return fmt.Sprintf("%s is longer than %d characters", field, max)
	case !printableASCII(v):
		return field + " must be printable ASCII without spaces"
	}
	return ""
}

// checkURL checks an http(s) URL field.
func checkURL(field, v string) string {
	switch {
	case v == "":
		return field + " is required"
	case len(v) > MaxURLBytes:
		return fmt.Sprintf("%s is longer than %d characters", field, MaxURLBytes)
	case !printableASCII(v):
		return field + " must be printable ASCII (percent-encode other characters)"
	case !strings.HasPrefix(v, "http://") && !strings.HasPrefix(v, "https://"):
		return field + " must be an http:// or https:// URL"
	}
	u, err := url.Parse(v)
	if err != nil {
		return field + " is not a URL: " + strings.TrimPrefix(err.Error(), "parse "+strconv.Quote(v)+": ")
	}
	if u.Host == "" || u.Hostname() == "" {
		return field + " has no host"
	}
	return ""
}

// printableASCII reports whether s holds only the characters '!' to '~'.
func printableASCII(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] < '!' || s[i] > '~' {
			return false
		}
	}
	return true
}

// boundLastError cuts every field of le to its bound, marking each cut.
func boundLastError(le LastError) LastError {
	le.Error = cutMarked(le.Error, MaxErrorBytes)
	le.ErrorType = cutMarked(le.ErrorType, MaxErrorFieldBytes)
	le.ErrorCode = cutMarked(le.ErrorCode, MaxErrorFieldBytes)
	le.CorrelationID = cutMarked(le.CorrelationID, MaxCorrelationIDBytes)
	if len(le.Details) == 0 {
		le.Details = nil
		return le
	}
	keys := slices.Sorted(maps.Keys(le.Details))
	out := make(map[string]string, min(len(keys), MaxDetails))
	for _, k := range keys {
		if len(out) == MaxDetails {
			break
		}
		out[work.Prefix(k, MaxDetailKeyBytes)] = cutMarked(le.Details[k], MaxDetailBytes)
	}
	le.Details = out
	return le
}

// boundOutput cuts the metadata a stage output leaves on the item.
func boundOutput(o work.Output) work.Output {
	switch {
	case o.Document != nil:
		d := *o.Document
		d.ContentType = work.Prefix(d.ContentType, MaxErrorFieldBytes)
		return work.Output{Document: &d}
	case o.Enrichment != nil:
		e := *o.Enrichment
		e.Model = work.Prefix(e.Model, MaxErrorFieldBytes)
		e.ActionOutcome = work.Prefix(e.ActionOutcome, MaxErrorFieldBytes)
		return work.Output{Enrichment: &e}
	}
	return o
}

// cutMarked cuts s to at most n bytes on a rune boundary, ending a cut
// string with "…".
func cutMarked(s string, n int) string {
	const mark = "…"
	if len(s) <= n {
		return s
	}
	return work.Prefix(s, n-len(mark)) + mark
}
