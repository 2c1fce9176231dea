// Package outage runs an LLM provider outage on the local stack — the real
// fetch, llm, notify and scheduler bootstraps behind the local Lambda Runtime
// API, moto, the fakes — in compressed time: the queues' redrive backstop at
// 5 receives, breakers open for 1 s, the scheduler every second, and an
// outage that lasts until the breaker has failed a probe after each wave of
// arriving items and 5 more times after the last. Waits are parked behind
// the breaker's gate, so nothing is dead-lettered, every item is done, and no
// message is received as often as the backstop. The package is its test
// alone.
package outage
