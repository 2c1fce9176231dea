// Package console is `triage console`: the operator's dashboard in a
// browser, served on loopback from the operator's own machine with the
// operator's own AWS credentials.
//
// It has no query or action of its own. Every page reads through the
// stores and readers the CLI uses (store.ItemIndex and store.Items, the
// error log's store.ErrorLogReader, ledger.Trail, health and breaker stores,
// report.Reporter's budget and unknown failures, retry profiles), the item and its timeline come
// from cmd/triage/ops as `triage items get` shows them, and every action is
// the CLI's: replay and resolve run the same replay.Replayer requests as
// `triage dlq replay` and `triage dlq resolve` (so they leave the same
// replay records, resolutions and error-log entries), enable and disable are
// health.Store.SetDisabled as in `triage models`, and reset is
// breaker.Store.Reset as in `triage breakers reset`.
//
// The rules it relies on (docs/design.md, "Console"):
//
//   - It listens on 127.0.0.1 unless told otherwise, and answers only
//     requests whose Host is the address it printed (no DNS rebinding).
//   - Every request needs the random token printed in the URL; the first
//     visit trades it for an HttpOnly, SameSite=Strict cookie and redirects
//     to a URL without it.
//   - Actions are POSTs only, carry a CSRF token derived from the session
//     token, need a non-empty note, and take two steps: the first is a dry
//     run that says how many items the action touches; the second, the
//     confirmation, does it, bounded to what was confirmed (Max).
//   - Pages read bounded: listings have limits, the error log a window and
//     a cap on entries read; a page says when it shows a partial count.
//   - It shows what the CLI shows and nothing else: item fields through
//     ops.ViewItem (URLs redacted), error texts as the error log stores
//     them (redacted at write), and every free text passes redact.String
//     once more before it is rendered.
//
// Pages are server-rendered html/template with the templates, the style
// sheet and a small script embedded; charts are SVG drawn on the server.
// Without JavaScript every action still works (the forms post and the
// answer is a page); with it, the answer replaces the form in place and the
// items an action touched show their state as it changes.
package console
