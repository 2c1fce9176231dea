package stage

import (
	"errors"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/triagehq/triage/shared/pipeline"
	"github.com/triagehq/triage/shared/retry"
	"github.com/triagehq/triage/shared/state"
)

// Env is a stage function's configuration, read from the environment that
// template.yaml gives it.
type Env struct {
	Stage         pipeline.Stage
	QueueURL      string
	DLQURL        string
	NextQueueURL  string
	ItemsTable    string
	ErrorLogTable string
	ParkedTable   string
	GatesTable    string
	// BodiesTable, BodiesBucket, BodyThreshold and BodyRetention say where
	// documents and enrichments go (state.BodyConfig); the bucket is
	// attached by the stage's main (shared/objects), which alone links S3.
	BodiesTable      string
	BodiesBucket     string
	BodyThreshold    int
	BodyRetention    time.Duration
	Profile          *retry.Profile
	BackstopReceives int
	Concurrency      int
	// NoticeQueueURL is the owner-notice queue (package notice); empty
	// sends no notices.
	NoticeQueueURL string
}

// LoadEnv reads and validates the stage environment. Every missing or
// invalid variable is reported at once, so a bad deployment fails its first
// cold start with the whole list instead of one variable per redeploy.
func LoadEnv(getenv func(string) string) (Env, error) {
	var errs []error
	req := func(name string) string {
		v := strings.TrimSpace(getenv(name))
		if v == "" {
			errs = append(errs, fmt.Errorf("%s is required", name))
		}
		return v
	}
	var e Env
	st, err := pipeline.ParseStage(req("STAGE"))
	if err != nil && getenv("STAGE") != "" {
		errs = append(errs, fmt.Errorf("STAGE: %w", err))
	}
	e.Stage = st
	e.QueueURL = req("QUEUE_URL")
	e.DLQURL = req("DLQ_URL")
	if _, hasNext := st.Next(); hasNext {
		e.NextQueueURL = req("NEXT_QUEUE_URL")
	}
	e.ItemsTable = req("ITEMS_TABLE")
	e.ErrorLogTable = req("ERRORLOG_TABLE")
	e.ParkedTable = req("PARKED_TABLE")
	e.GatesTable = req("GATES_TABLE")
	e.BodiesTable = req("BODIES_TABLE")
	e.BodiesBucket = strings.TrimSpace(getenv("BODIES_BUCKET"))
	e.BodyThreshold = intEnv(getenv, "BODY_THRESHOLD_BYTES", state.DefaultBodyThreshold, &errs)
	if e.BodyThreshold > state.MaxTableBodyBytes {
		errs = append(errs, fmt.Errorf("BODY_THRESHOLD_BYTES=%d is over the table's %d-byte limit", e.BodyThreshold, state.MaxTableBodyBytes))
	}
	e.BodyRetention = time.Duration(intEnv(getenv, "BODY_RETENTION_DAYS", int(state.DefaultBodyRetention/(24*time.Hour)), &errs)) * 24 * time.Hour
	if e.Profile, err = retry.Lookup(getenv("PROFILE")); err != nil {
		errs = append(errs, fmt.Errorf("PROFILE: %w", err))
	}
	e.BackstopReceives = intEnv(getenv, "BACKSTOP_MAX_RECEIVE_COUNT", 0, &errs)
	e.Concurrency = intEnv(getenv, "CONCURRENCY", DefaultConcurrency, &errs)
	e.NoticeQueueURL = strings.TrimSpace(getenv("NOTICE_QUEUE_URL"))
	if err := errors.Join(errs...); err != nil {
		return Env{}, fmt.Errorf("stage configuration: %w", err)
	}
	return e, nil
}

func intEnv(getenv func(string) string, name string, def int, errs *[]error) int {
	v := strings.TrimSpace(getenv(name))
	if v == "" {
		return def
	}
	n, err := strconv.Atoi(v)
	if err != nil || n < 0 {
		*errs = append(*errs, fmt.Errorf("%s=%q is not a non-negative integer", name, v))
		return def
	}
	return n
}
