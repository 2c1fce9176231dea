package stage

import (
	"errors"
	"fmt"
	"strconv"
	"strings"

	"github.com/triagehq/triage/shared/pipeline"
	"github.com/triagehq/triage/shared/retry"
)

// Env is a stage function's configuration, read from the environment that
// template.yaml gives it.
type Env struct {
	Stage            pipeline.Stage
	QueueURL         string
	DLQURL           string
	NextQueueURL     string
	ItemsTable       string
	ErrorLogTable    string
	ParkedTable      string
	GatesTable       string
	Profile          *retry.Profile
	BackstopReceives int
	Concurrency      int
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
	if e.Profile, err = retry.Lookup(getenv("PROFILE")); err != nil {
		errs = append(errs, fmt.Errorf("PROFILE: %w", err))
	}
	e.BackstopReceives = intEnv(getenv, "BACKSTOP_MAX_RECEIVE_COUNT", 0, &errs)
	e.Concurrency = intEnv(getenv, "CONCURRENCY", DefaultConcurrency, &errs)
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
