// Package soak is `make soak`: the local pipeline under seeded random faults,
// ending with a conservation check. Run starts moto, a fault-injecting proxy
// for the functions, and the local stack (devstack: the real fetch, llm and
// notify bootstraps behind the local Lambda Runtime API, the SQS
// event-source pollers, the fakes); seeds the items in waves; injects the
// scenario's faults until the pipeline settles or its timeout; then drains
// the DLQs and checks the invariants. triage-local soak runs it from the
// command line, several seeds at a time, and writes docs/reliability.md.
//
// # Faults
//
//   - Upstream errors: the fakes' seeded mixes (DefaultMixes), plus the
//     answers the fakes lack (DefaultExtraFaults), so that every failure
//     class an upstream can cause occurs. Waits of an hour or more (the
//     provider's insufficient_quota, the daily budget) are left out.
//   - AWS errors: the functions reach moto through their own moto.Front,
//     chained in front of the harness's (DynamoDB stays serialized), whose
//     Injector answers a share of their DynamoDB and SQS requests with AWS's
//     error shapes, refuses a share of whole operations on every attempt,
//     drops the response of a share of writes after moto applied them, and
//     refuses every DLQ send for a window. The harness — seeding, watching,
//     the pollers that stand in for the Lambda service — uses the clean
//     front.
//   - Crashes: at seeded times the process making an upstream call of a
//     seeded stage is SIGKILLed before the fake answers: after the record's
//     claim, before its outcome. Its batch comes back after the queue's
//     visibility timeout, which the soak shortens (with the functions'
//     timeouts, so that a lease still ends before the visibility timeout).
//   - An outage: the LLM provider answers 503 to every call for
//     Options.Outage (40 s), long enough that a wait held in its queue
//     would cross the redrive backstop the soak lowers to 8 receives; the
//     waiting items park behind the provider's breaker, and the scheduler
//     (every second, compressed) probes it and releases them in a ramp.
//   - Duplicate deliveries: a share of the items get their envelope sent
//     again, with a new message id, for their current stage or the one
//     before.
//   - Planted secrets (Options.Secrets): tokens in source URLs, a Slack-style
//     path secret in webhook URLs, an API key, email, card number, JWT and
//     GitLab and DigitalOcean tokens in the articles the llm stage sends as
//     prompts, and upstream error bodies that echo a bearer token, the full
//     API key, a Slack bot token and those service tokens. Every log line,
//     DLQ payload and error-log entry is searched for them and scanned by
//     gitleaks' detector with its default rules.
//
// # Checks
//
// Every seeded item is done (and its webhook got it) or dead-lettered, once;
// the distinct dead letters on the DLQs (by sanitized_context.dead_letter_id)
// match the dead-lettered items one to one, raw duplicates of one dead letter
// counted apart; no message is left in a stage queue and nothing is parked;
// no upstream call for an item starts while another call for it — at another
// stage, or the same — is in flight (Tracker); and no planted secret, exact
// or a distinctive fragment, is in a function log line, a DLQ payload or an
// error-log entry. Result lists every violation with its items.
package soak
