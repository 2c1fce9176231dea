// Package budget enforces triage's daily LLM spend cap.
//
// Before each model call the llm stage charges the call's estimated cost to
// the current UTC day with one atomic, conditional DynamoDB update
// (increment-with-limit): the day's spend can never pass the cap, however
// many Lambda instances charge at once. A charge that would pass it is
// refused with a BUDGET_EXCEEDED failure that the decision core turns into a
// wait until the next 00:00 UTC — parked, no attempt counted, never
// dead-lettered.
//
// Amounts are integer micro-dollars (1 USD = 1,000,000), parsed from decimal
// strings without floating point, so a day of 0.003 USD calls adds up
// exactly. Each day's item keeps spend, calls and blocked counters for the
// budget report (`triage report budget`).
//
// The llm stage charges before every model call — a fallback chain's
// escalation call included — so the cap bounds calls, not items
// (functions/llm: Enricher.Budget, built with FromEnv). Each call is charged
// at its model's price (Prices, the LLM_PRICES table): the model's up-front
// estimate with ChargeCost before the call, corrected by Settle to its
// input and output tokens at the model's prices once the answer reports
// them; models without token prices keep the flat estimate.
package budget
