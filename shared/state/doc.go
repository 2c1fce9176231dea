// Package state keeps items and their failure history in DynamoDB.
//
// An item has a status (how far it got: received → fetched → enriched →
// notified) and a state (where it is in its stage's queue: queued, working,
// retryable, failed, deadletter, done). Allowed state transitions are the
// Transitions table; every store write carries a ConditionExpression built
// from it, plus the lease of the invocation that holds the item, so two
// invocations can never both move an item and no update is ever lost.
//
// Callers never see DynamoDB types: SDK errors are mapped to ErrNotFound,
// ErrConflict and *ClaimError at the store boundary.
package state
