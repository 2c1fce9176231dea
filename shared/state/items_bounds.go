package state

import (
	"errors"
	"fmt"
	"maps"
	"slices"
	"unicode/utf8"

	"github.com/triagehq/triage/shared/pipeline"
	"github.com/triagehq/triage/shared/textcut"
)

// Bounds on what an item holds. DynamoDB refuses an item over 400 KB, and
// every write of an item is billed by its size, so nothing an upstream, a
// producer or an operator sends may grow an item without limit: bodies go
// elsewhere (see Part), lists keep their last entries (MaxReplays,
// MaxNotes), and every string has a bound here. TestLargestItem writes the
// largest item these bounds allow.
const (
	// MaxURLBytes bounds an item's source and webhook URLs.
	MaxURLBytes = 2048
	// MaxCorrelationIDBytes bounds a correlation id as the item stores it.
	MaxCorrelationIDBytes = 256
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
	// MaxMetadataKeys, MaxMetadataKeyBytes and MaxMetadataValueBytes bound
	// the producer's metadata an item keeps: the producer contract's limits
	// (package intake: 32 keys, ASCII keys of 64, values of 256 characters)
	// in bytes.
	MaxMetadataKeys       = 32
	MaxMetadataKeyBytes   = 64
	MaxMetadataValueBytes = 256 * utf8.UTFMax
)

// ErrInvalidItem is a new item outside the bounds (Create): no write was
// made, and none would succeed.
var ErrInvalidItem = errors.New("invalid item")

// validate checks a new item against the bounds; its errors match
// ErrInvalidItem.
func (n NewItem) validate() error {
	bad := func(format string, args ...any) error {
		return fmt.Errorf("create %s: %s: %w", n.ID, fmt.Sprintf(format, args...), ErrInvalidItem)
	}
	switch {
	case n.ID == "":
		return bad("item id is required")
	case len(n.ID) > pipeline.MaxItemIDLen:
		return bad("item id longer than %d bytes", pipeline.MaxItemIDLen)
	case len(n.SourceURL) > MaxURLBytes:
		return bad("source URL longer than %d bytes", MaxURLBytes)
	case len(n.WebhookURL) > MaxURLBytes:
		return bad("webhook URL longer than %d bytes", MaxURLBytes)
	case len(n.CorrelationID) > MaxCorrelationIDBytes:
		return bad("correlation id longer than %d bytes", MaxCorrelationIDBytes)
	case len(n.Metadata) > MaxMetadataKeys:
		return bad("%d metadata keys, at most %d", len(n.Metadata), MaxMetadataKeys)
	}
	for k, v := range n.Metadata {
		if len(k) > MaxMetadataKeyBytes || len(v) > MaxMetadataValueBytes {
			return bad("a metadata key or value over %d or %d bytes", MaxMetadataKeyBytes, MaxMetadataValueBytes)
		}
	}
	return nil
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
		out[textcut.Prefix(k, MaxDetailKeyBytes)] = cutMarked(le.Details[k], MaxDetailBytes)
	}
	le.Details = out
	return le
}

// boundOutput cuts the metadata a stage output leaves on the item.
func boundOutput(o Output) Output {
	switch {
	case o.Document != nil:
		d := *o.Document
		d.ContentType = textcut.Prefix(d.ContentType, MaxErrorFieldBytes)
		return Output{Document: &d}
	case o.Enrichment != nil:
		e := *o.Enrichment
		e.Model = textcut.Prefix(e.Model, MaxErrorFieldBytes)
		e.ActionOutcome = textcut.Prefix(e.ActionOutcome, MaxErrorFieldBytes)
		return Output{Enrichment: &e}
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
	return textcut.Prefix(s, n-len(mark)) + mark
}
