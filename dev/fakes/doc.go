// Package fakes provides fault-injecting test doubles for triage's upstreams:
// a model API speaking OpenAI chat completions, Azure OpenAI, the Anthropic
// Messages API, the Bedrock Runtime Converse API and Google's
// generateContent (Gemini API, Vertex AI) (LLM), an article server
// (Articles) and a webhook receiver (Webhook). Unit tests, the local stack (make demo) and the
// soak test use them. Each is an http.Handler; Start serves one on a loopback
// port, and cmd/fakes serves all three.
//
// # Fault plans
//
// A Fault is a named behaviour ("rate_limit", "invalid_json", "reset", …).
// Faults are decided per key (the item id, article id or idempotency key)
// and per call number for that key, so a run is deterministic whatever the
// concurrency. Each fake embeds a Plan; for every call, first match wins:
//
//  1. outage switch on: every call answers 503 (OutageUnavailable, the
//     default) or is held (OutageHang);
//  2. fix switch on: no fault — an operator has remediated the upstream;
//  3. the key's script: call n gets entry n; an entry spelled "always:x"
//     answers every call from its position on; past the end, calls succeed;
//  4. the seeded Mix;
//  5. success.
//
// Between the outage and the plan, the fakes add their own checks: the LLM's
// API key, request validation, model list and per-model faults (the fix
// switch suspends the per-model faults, not the model list); the webhook's
// signature. Each fake's documentation gives its exact order.
//
// # The seeded mix
//
// The fault of call n of key k is a pure function of (seed, k, n): FNV-1a of
// k, mixed with the seed and n through splitmix64, so the same seed gives the
// same faults in any order. Faults fall into two groups:
//
//   - sticky: the permanent faults (content_policy, content_filter,
//     context_length, auth, model_not_found, not_found, gone, huge,
//     channel_not_found, archived, invalid_payload, unauthorized) and any
//     fault spelled "always:" ("always:invalid_json", "always:rate_limit").
//     They are drawn once per key, with probability equal to their rate, and
//     apply to every call of that key.
//   - transient: the others (rate_limit, quota, server_error, unavailable,
//     bad_gateway, hang, reset, slow, invalid_json, schema_mismatch, empty,
//     action_failed, rate_limit_slack, rate_limit_discord). They are drawn
//     independently for each of the key's first TransientCalls calls
//     (DefaultTransientCalls = 2), with probability equal to their rate per
//     call; later calls never draw one.
//
// So a key without a sticky fault succeeds by call TransientCalls+1 — the
// third call by default, inside every retryable class's default attempt
// budget — while a key with a sticky fault fails on every call until the fix
// switch is turned on.
//
// Hangs are always bounded: a held request ends when its client gives up
// (the request context), when the Server closes, or after Shared.MaxHang
// (DefaultMaxHang, 30 s), when it answers 504.
//
// # Control API
//
// Every fake serves, as JSON:
//
//	GET  /_fake/stats    Stats: {"requests", "calls": {key: n}, "faults": {fault: n},
//	                     "statuses": {"429": n}, "models", "model_faults", "deliveries",
//	                     "outage", "outage_mode", "fixed", "scripts", "mix", "recent": [Call]}
//	POST /_fake/script   ScriptRequest: {"scripts": {"item-1": ["rate_limit", "always:invalid_json"]},
//	                     "replace": false}; an empty list removes a key's script
//	POST /_fake/mix      Mix: {"seed": 42, "rates": {"rate_limit": 0.1, "always:invalid_json": 0.02},
//	                     "transient_calls": 2}; empty rates turn the mix off
//	POST /_fake/outage   SwitchRequest: {"on": true, "mode": "unavailable" | "hang"}
//	POST /_fake/fix      SwitchRequest: {"on": true}
//	POST /_fake/reset    no body: forget calls, stats, deliveries, scripts, mix, switches
//
// and the LLM adds POST /_fake/models (ModelFaultsRequest:
// {"model_faults": {"bad-model": "invalid_json"}, "replace": false}) and POST
// /_fake/dialect-outage (DialectOutageRequest: {"dialect": "bedrock", "on":
// true}: one provider's own outage while the others answer), the
// webhook GET /_fake/deliveries ([Delivery], bodies as text). POSTs answer
// {"ok": true} or 400 {"error": "..."}; unknown fields and fault names are
// rejected. The same operations are Go methods: SetScript, SetMix,
// SetOutage, SetFixed, Reset, Stats, SetModelFault, Deliveries….
//
// Stats never hold credentials or message text, only lengths.
package fakes
