// Package store keeps items and their failure history in DynamoDB.
//
// An item has a status (how far it got: received → fetched → enriched →
// notified) and a state (where it is in its stage's queue: queued, working,
// retryable, failed, deadletter, done); both are plain values of the leaf
// (work.Status, work.State). Allowed state transitions are the leaf's
// work.Transitions table; every store write carries a ConditionExpression built
// from it, plus the lease of the invocation that holds the item, so two
// invocations can never both move an item and no update is ever lost.
//
// The state item holds only what the state machine needs (under 1 KB): the
// fetched document and the enrichment are bodies written once beside it — a
// sibling item in the Bodies table, put in the same transaction as the
// success write, or an S3 object above BodyConfig.Threshold — and the item
// keeps a reference (work.BodyRef, written compactly: storedRef) that
// readers follow with Hydrate. The work result itself (work.Output and the
// records it carries) is the leaf's plain data; how it is stored is here. Every list
// and string on the item is bounded (items_bounds.go, MaxReplays, MaxNotes), the
// producer's metadata and an operator's resolution included, and Create
// refuses a new item outside the bounds (ErrInvalidItem); the error log
// keeps every replay, note and resolution. The indexes operators list and
// count from are sharded (ItemIndex, which holds every item by group and is
// written only when an item changes group; ErrorLogReader), so no partition
// of them is hot, and no operator's read scans a table (Tally counts
// repeatedly at a cost that does not grow with the done items).
// docs/design.md "Item state" and "Indexes" have the rules and their
// prices.
//
// Items enter the machine through Create, from a producer's spec (the fetch
// stage, docs/design.md "Putting work in"): one conditional put, whose
// *ExistsError carries the item already under the id.
//
// The package holds five stores, each in the files named for it, and one
// in-memory twin of them all (Memory, held to the same rules by one
// conformance suite):
//
//	store       table                     files
//	Items       Items (state, replays)    items.go, items_*.go
//	ItemIndex   Items, by-listed-state    items_index.go, items_tally.go
//	ErrorLog    ErrorLog, and a reader    errorlog.go, errorlog_reader.go
//	Parked      Parked (waits)            parked.go
//	Gates       Gates                     gates.go
//	bodies      Bodies table, S3 objects  bodies.go
//
// Callers never see DynamoDB types: SDK errors are mapped to ErrNotFound,
// ErrConflict and *ClaimError at the store boundary.
package store
