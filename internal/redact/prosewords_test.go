package redact_test

import (
	"testing"

	"github.com/triagehq/triage/internal/redact"
)

// A system's sentences are the operator's: failures of databases, clouds,
// networks, schedulers and payment APIs, in words the vocabulary never
// listed one by one.
func TestProseOfSystemsStays(t *testing.T) {
	t.Parallel()
	for _, s := range []string{
		`pq: duplicate key value violates unique constraint "items_pkey"`,
		"dial tcp 10.0.3.7:5432: connect: connection refused",
		"The security token included in the request is expired",
		"Your card was declined. The card does not have sufficient funds to complete the purchase.",
		"Back-off restarting failed container llm in pod triage-llm-7f9c8d6b5-x2k4q",
		"The server is currently unable to handle the request due to a temporary overload or maintenance.",
		"Service Unavailable: the upstream did not respond before the deadline; will retry in 30s",
		"Request was throttled. Expected available in 12 seconds.",
		"请求过于频繁，请稍后再试",
		"Die Anfrage ist fehlgeschlagen: Zeitüberschreitung",
	} {
		if got := redact.String(s); got != s {
			t.Errorf("a system's sentence changed:\n in: %s\nout: %s", s, got)
		}
	}
}
