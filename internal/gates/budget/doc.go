// Package budget enforces triage's daily LLM spend cap without a hot key.
//
// The day's budget is one item per UTC day. Writing it on every model call
// would make it the hottest key of the system: DynamoDB sustains about 1,000
// writes per second on one key, and the llm stage makes a call per item and
// more. Instead each Lambda instance holds a Pocket: it leases a chunk of the
// day's budget with one conditional update — increment-with-limit on the
// day's leased total, which never passes the cap however many instances
// lease at once — and spends it locally, with no write per call. When the
// pocket cannot pay for a call it leases again (the last lease of the day
// takes whatever is left); when the day's budget is leased out, the charge
// is refused with a BUDGET_EXCEEDED failure that the decision core turns
// into a wait until the next 00:00 UTC — parked, no attempt counted, never
// dead-lettered.
//
// The leases never pass the cap, so what the calls' estimates spend never
// exceeds it. What an instance that stops leaves in its pocket is lost in
// the safe direction: the day spends less. The chunk (BUDGET_CHUNK_USD,
// default 20 calls' worth) trades writes for what can be stranded that way:
// one write per chunk of calls, at most a chunk per instance unspent.
// docs/scale.md sizes it.
//
// Amounts are integer micro-dollars (1 USD = 1,000,000), parsed from decimal
// strings without floating point, so a day of 0.003 USD calls adds up
// exactly; Spend takes the amount of each call, so a cost per call that
// depends on the model is only an input. Each day's item keeps the leased
// total and the spend, calls, blocked and leases counters for the budget
// report (`triage report budget`); an instance's counters ride on its next
// lease, so the record lags it by at most a chunk.
//
// The llm stage charges before every model call — a fallback chain's
// escalation call included — so the cap bounds calls, not items
// (cmd/llm: enricher.Budget, configured by its loadConfig). Each call is charged
// at its model's price (Prices, the LLM_PRICES table): the model's up-front
// estimate with ChargeCost before the call, corrected by Settle to its
// input and output tokens at the model's prices once the answer reports
// them; models without token prices keep the flat estimate. Settle goes
// through the pocket too (Pocket.Settle): a refund stays in it, an excess
// is paid from it or leased, so a correction writes nothing per call. The
// one way past the cap is an excess no lease could pay because the day was
// leased out — the call had happened; the pocket then refuses until a lease
// pays that debt back, so the day passes the cap by at most the excess of
// the calls in flight when it ran out.
package budget
