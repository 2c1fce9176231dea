package runner

import (
	"fmt"
	"time"

	"github.com/triagehq/triage/internal/conf"
	"github.com/triagehq/triage/internal/policy"
	"github.com/triagehq/triage/internal/store"
	"github.com/triagehq/triage/internal/work"
)

// Env is what every stage function reads from the environment that
// template.yaml gives it; a function's loader (cmd/<name>/config.go)
// reads it with ReadEnv beside its own variables.
type Env struct {
	// Process is the logging and metrics configuration.
	Process       conf.Process
	Stage         work.Stage
	QueueURL      string
	DLQURL        string
	NextQueueURL  string
	ItemsTable    string
	ErrorLogTable string
	ParkedTable   string
	GatesTable    string
	// IndexShards is the by-listed-state index's partitions per state and
	// stage (ITEM_INDEX_SHARDS, store.Items.IndexShards).
	IndexShards int
	// BodiesTable, BodiesBucket, BodyThreshold and BodyRetention say where
	// documents and enrichments go (store.BodyConfig); the bucket is
	// attached by the stage's build (internal/store/objects), which alone links S3.
	BodiesTable      string
	BodiesBucket     string
	BodyThreshold    int
	BodyRetention    time.Duration
	Profile          *policy.Profile
	BackstopReceives int
	// StoreOutageTolerance is STORE_OUTAGE_TOLERANCE, a test and demo
	// override of policy.StoreOutageTolerance (0: the policy's).
	StoreOutageTolerance time.Duration
	Concurrency          int
	// NoticeQueueURL is the owner-notice queue (package notice); empty
	// sends no notices.
	NoticeQueueURL string
}

// ReadEnv reads the stage variables through r, which collects their errors:
// STAGE, QUEUE_URL, DLQ_URL, NEXT_QUEUE_URL (but for the last stage),
// ITEMS_TABLE, ERRORLOG_TABLE, PARKED_TABLE, GATES_TABLE, BODIES_TABLE
// (required); ITEM_INDEX_SHARDS, BODIES_BUCKET, BODY_THRESHOLD_BYTES,
// BODY_RETENTION_DAYS, PROFILE, BACKSTOP_MAX_RECEIVE_COUNT, CONCURRENCY,
// NOTICE_QUEUE_URL, the test and demo override STORE_OUTAGE_TOLERANCE and
// the process's own (conf.Process).
func ReadEnv(r *conf.Reader) Env {
	e := Env{Process: r.Process()}
	if name := r.Required("STAGE"); name != "" {
		st, err := work.ParseStage(name)
		r.Check("STAGE", err)
		e.Stage = st
	}
	e.QueueURL = r.Required("QUEUE_URL")
	e.DLQURL = r.Required("DLQ_URL")
	if _, hasNext := e.Stage.Next(); hasNext {
		e.NextQueueURL = r.Required("NEXT_QUEUE_URL")
	}
	e.ItemsTable = r.Required("ITEMS_TABLE")
	e.ErrorLogTable = r.Required("ERRORLOG_TABLE")
	e.ParkedTable = r.Required("PARKED_TABLE")
	e.GatesTable = r.Required("GATES_TABLE")
	e.IndexShards = r.Int("ITEM_INDEX_SHARDS", store.DefaultIndexShards)
	r.Check("ITEM_INDEX_SHARDS", store.CheckIndexShards(e.IndexShards))
	e.BodiesTable = r.Required("BODIES_TABLE")
	e.BodiesBucket = r.String("BODIES_BUCKET")
	e.BodyThreshold = r.Int("BODY_THRESHOLD_BYTES", store.DefaultBodyThreshold)
	if e.BodyThreshold > store.MaxTableBodyBytes {
		r.Check("BODY_THRESHOLD_BYTES", fmt.Errorf("%d is over the table's %d-byte limit", e.BodyThreshold, store.MaxTableBodyBytes))
	}
	e.BodyRetention = time.Duration(r.Int("BODY_RETENTION_DAYS", int(store.DefaultBodyRetention/(24*time.Hour)))) * 24 * time.Hour
	p, err := policy.Lookup(r.String("PROFILE"))
	r.Check("PROFILE", err)
	e.Profile = p
	e.BackstopReceives = r.Int("BACKSTOP_MAX_RECEIVE_COUNT", 0)
	e.StoreOutageTolerance = r.TestOverride("STORE_OUTAGE_TOLERANCE")
	e.Concurrency = r.Int("CONCURRENCY", DefaultConcurrency)
	e.NoticeQueueURL = r.String("NOTICE_QUEUE_URL")
	return e
}
