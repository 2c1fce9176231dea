package main

import (
	"time"

	"github.com/triagehq/triage/internal/conf"
	"github.com/triagehq/triage/internal/runner"
)

// config is the notify function's whole environment, read once by
// loadConfig (the README's "Configuration" table lists every variable).
type config struct {
	stage runner.Env
	// breakersTable is BREAKERS_TABLE: a breaker per webhook host.
	breakersTable string
	// webhookSecret is WEBHOOK_SECRET_PARAMETER, the reference of the
	// signing secret (package secret); required: every delivery is signed.
	webhookSecret string
	// blockPrivate is BLOCK_PRIVATE_NETWORKS (default true).
	blockPrivate bool
	// auditTable is AUDIT_TABLE, the notices' delivery ledger; required
	// with NOTICE_QUEUE_URL.
	auditTable string
	// noticeMaxAttempts is NOTICE_MAX_ATTEMPTS (0: notice.DefaultMaxAttempts).
	noticeMaxAttempts int
	// noticeRetryInitial is NOTICE_RETRY_INITIAL, the wait after a
	// notice's first failed attempt (0: the policy's notice row's); a test
	// and demo override.
	noticeRetryInitial time.Duration
	// breakerOpenFor is BREAKER_OPEN_FOR, a test and demo override (0: the
	// breakers' DefaultOpenFor).
	breakerOpenFor time.Duration
}

// loadConfig reads and checks the notify function's environment, reporting
// every missing or invalid variable at once.
func loadConfig(getenv func(string) string) (config, error) {
	r := conf.New(getenv)
	c := config{stage: runner.ReadEnv(r), breakersTable: r.Required("BREAKERS_TABLE"),
		webhookSecret: r.Required("WEBHOOK_SECRET_PARAMETER"), blockPrivate: r.Bool("BLOCK_PRIVATE_NETWORKS", true),
		noticeMaxAttempts: r.PositiveInt("NOTICE_MAX_ATTEMPTS", 0), noticeRetryInitial: r.TestOverride("NOTICE_RETRY_INITIAL"),
		breakerOpenFor: r.TestOverride("BREAKER_OPEN_FOR")}
	if c.stage.NoticeQueueURL != "" {
		c.auditTable = r.Required("AUDIT_TABLE")
	}
	c.stage.Process.Overrides = r.Overrides()
	return c, r.Err("notify")
}
