package store

import (
	"strconv"
	"time"

	"github.com/triagehq/triage/internal/store/dynamo"
	"github.com/triagehq/triage/internal/work"
)

// record is an item as stored in DynamoDB. Times that conditions compare are
// Unix milliseconds (not_before, lease_until); times people read are RFC 3339.
// Attempts are one number attribute per stage so that ADD works on an item
// whatever its history.
type record struct {
	ItemID           string                `dynamodbav:"item_id"`
	Kind             string                `dynamodbav:"kind"`
	SourceURL        string                `dynamodbav:"source_url,omitempty"`
	WebhookURL       string                `dynamodbav:"webhook_url,omitempty"`
	CorrelationID    string                `dynamodbav:"correlation_id"`
	Metadata         map[string]string     `dynamodbav:"metadata,omitempty"`
	Notices          *Notices              `dynamodbav:"notices,omitempty"`
	Status           string                `dynamodbav:"status"`
	State            string                `dynamodbav:"state"`
	Stage            string                `dynamodbav:"stage"`
	AttemptsFetch    int                   `dynamodbav:"attempts_fetch"`
	AttemptsLLM      int                   `dynamodbav:"attempts_llm"`
	AttemptsNotify   int                   `dynamodbav:"attempts_notify"`
	EnrichmentStatus string                `dynamodbav:"enrichment_status,omitempty"`
	FailureCount     int                   `dynamodbav:"failure_count"`
	LastError        *LastError            `dynamodbav:"last_error,omitempty"`
	FirstFailureAt   string                `dynamodbav:"first_failure_at,omitempty"`
	LastFailureAt    string                `dynamodbav:"last_failure_at,omitempty"`
	NotBefore        int64                 `dynamodbav:"not_before,omitempty"`
	LeaseOwner       string                `dynamodbav:"lease_owner,omitempty"`
	LeaseUntil       int64                 `dynamodbav:"lease_until,omitempty"`
	Carrier          string                `dynamodbav:"carrier,omitempty"`
	ReplayCount      int                   `dynamodbav:"replay_count"`
	Replays          []ReplayRecord        `dynamodbav:"replays,omitempty"`
	Notes            []Note                `dynamodbav:"notes,omitempty"`
	NoteCount        int                   `dynamodbav:"note_count,omitempty"`
	Document         *storedDocument       `dynamodbav:"document,omitempty"`
	Enrichment       *storedEnrichment     `dynamodbav:"enrichment,omitempty"`
	Delivery         *work.WebhookDelivery `dynamodbav:"delivery,omitempty"`
	DeadLetter       *DeadLetterRef        `dynamodbav:"dead_letter,omitempty"`
	Resolution       *Resolution           `dynamodbav:"resolution,omitempty"`
	Suspect          *Suspect              `dynamodbav:"suspect,omitempty"`
	CreatedAt        string                `dynamodbav:"created_at,omitempty"`
	UpdatedAt        string                `dynamodbav:"updated_at,omitempty"`
	LastWrite        string                `dynamodbav:"last_write,omitempty"`
	// ListKey and ListAt are the item's entry in the by-listed-state index:
	// "<group>#<shard>" and the time it is listed by (see ItemIndex); the
	// store sets them with every write that moves the item (Items.index,
	// Items.record for a put).
	ListKey string `dynamodbav:"list_key,omitempty"`
	ListAt  string `dynamodbav:"list_at,omitempty"`
}

// attemptsAttr is the attribute holding stage's attempts.
func attemptsAttr(s work.Stage) string { return "attempts_" + string(s) }

func (r record) item() Item {
	// A reference keeps the document's hash once, and the object key not
	// at all: both are restored here.
	if d := r.Document; d != nil && d.Body != nil {
		if d.SHA256 == "" {
			d.SHA256 = d.Body.SHA256
		}
		if d.Body.Store == StoreS3 {
			d.Body.Key = ObjectKey(r.ItemID, PartDocument, d.Body.SHA256)
		}
	}
	if e := r.Enrichment; e != nil && e.Body != nil && e.Body.Store == StoreS3 {
		e.Body.Key = ObjectKey(r.ItemID, PartEnrichment, e.Body.SHA256)
	}
	return Item{
		ID:            r.ItemID,
		Kind:          Kind(r.Kind),
		SourceURL:     r.SourceURL,
		WebhookURL:    r.WebhookURL,
		CorrelationID: r.CorrelationID,
		Metadata:      r.Metadata,
		Notices:       r.Notices,
		Status:        work.Status(r.Status),
		State:         work.State(r.State),
		Stage:         work.Stage(r.Stage),
		Attempts: map[work.Stage]int{
			work.Fetch:  r.AttemptsFetch,
			work.LLM:    r.AttemptsLLM,
			work.Notify: r.AttemptsNotify,
		},
		EnrichmentStatus: work.EnrichmentStatus(r.EnrichmentStatus),
		FailureCount:     r.FailureCount,
		LastError:        r.LastError,
		FirstFailureAt:   parseTime(r.FirstFailureAt),
		LastFailureAt:    parseTime(r.LastFailureAt),
		NotBefore:        fromMillis(r.NotBefore),
		LeaseOwner:       r.LeaseOwner,
		LeaseUntil:       fromMillis(r.LeaseUntil),
		Carrier:          r.Carrier,
		ReplayCount:      r.ReplayCount,
		Replays:          r.Replays,
		Notes:            r.Notes,
		NoteCount:        max(r.NoteCount, len(r.Notes)),
		Document:         r.Document.document(),
		Enrichment:       r.Enrichment.enrichment(),
		Delivery:         r.Delivery,
		DeadLetter:       r.DeadLetter,
		Resolution:       r.Resolution,
		Suspect:          r.Suspect,
		CreatedAt:        parseTime(r.CreatedAt),
		UpdatedAt:        parseTime(r.UpdatedAt),
		LastWrite:        r.LastWrite,
	}
}

func toRecord(it Item) record {
	if d := it.Document; d != nil && d.Body != nil && d.SHA256 == d.Body.SHA256 {
		c := *d
		c.SHA256 = ""
		it.Document = &c
	}
	return record{
		ItemID:           it.ID,
		Kind:             string(it.Kind),
		SourceURL:        it.SourceURL,
		WebhookURL:       it.WebhookURL,
		CorrelationID:    it.CorrelationID,
		Metadata:         it.Metadata,
		Notices:          it.Notices,
		Status:           string(it.Status),
		State:            string(it.State),
		Stage:            string(it.Stage),
		AttemptsFetch:    it.Attempts[work.Fetch],
		AttemptsLLM:      it.Attempts[work.LLM],
		AttemptsNotify:   it.Attempts[work.Notify],
		EnrichmentStatus: string(it.EnrichmentStatus),
		FailureCount:     it.FailureCount,
		LastError:        it.LastError,
		FirstFailureAt:   formatTime(it.FirstFailureAt),
		LastFailureAt:    formatTime(it.LastFailureAt),
		NotBefore:        toMillis(it.NotBefore),
		LeaseOwner:       it.LeaseOwner,
		LeaseUntil:       toMillis(it.LeaseUntil),
		Carrier:          it.Carrier,
		ReplayCount:      it.ReplayCount,
		Replays:          it.Replays,
		Notes:            it.Notes,
		NoteCount:        it.NoteCount,
		Document:         storeDocument(it.Document),
		Enrichment:       storeEnrichment(it.Enrichment),
		Delivery:         it.Delivery,
		DeadLetter:       it.DeadLetter,
		Resolution:       it.Resolution,
		Suspect:          it.Suspect,
		CreatedAt:        formatTime(it.CreatedAt),
		UpdatedAt:        formatTime(it.UpdatedAt),
		LastWrite:        it.LastWrite,
	}
}

// TimeFormat is how human-readable times are stored: RFC 3339 with
// milliseconds, UTC, fixed width so that strings sort in time order (GSI
// range keys rely on it).
const TimeFormat = "2006-01-02T15:04:05.000Z"

// FormatTime writes t in TimeFormat, fixed width so keys sort in time
// order; the zero time is "".
func FormatTime(t time.Time) string {
	if t.IsZero() {
		return ""
	}
	return t.UTC().Format(TimeFormat)
}

var (
	formatTime = FormatTime
	parseTime  = dynamo.ParseTime
	fromMillis = dynamo.FromMillis
)

func toMillis(t time.Time) int64 {
	if t.IsZero() {
		return 0
	}
	return t.UnixMilli()
}

// writeToken names one logical write; retries of the write carry the same token.
func writeToken(owner, op string, now time.Time) string {
	return owner + "/" + op + "/" + strconv.FormatInt(now.UnixMilli(), 10)
}
