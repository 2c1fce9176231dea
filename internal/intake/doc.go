// Package intake is the one way into the pipeline: the producer contract —
// the one SQS message a producer sends to put an item in, and the rules the
// first stage applies to it — and the Producer that sends it (producer.go).
//
// A producer sends the item's spec — its id, kind, source URL, webhook URL,
// optional metadata, correlation id and notice choices — as the body of one message on the
// fetch queue, and nothing else: it never writes DynamoDB. The message is
// described by docs/item-message.schema.json (JSON Schema 2020-12); the
// tests validate a corpus of messages with that schema and with Decode and
// require the two to agree. Decode, Spec.Validate (the producer's) and the
// item store's Create judge a spec with one check and one set of bounds,
// the item store's (store.NewItem's SpecProblems), and refuse with one
// error (Error); Decode adds only what is about the encoding: a field of
// the wrong JSON type, an explicit "" kind or correlation id.
//
//	{"item_id": "story-0042", "kind": "story",
//	 "source_url": "https://news.example.com/a/42", "webhook_url": "https://hooks.example.com/triage",
//	 "metadata": {"team": "newsroom"}, "correlation_id": "req-7f3a"}
//
// The notice choices ("notices": {"failed": true, "retry_scheduled": false})
// say what the webhook is told besides the result (package notice); an
// absent choice takes the kind's default (store.DefaultNotices: item.failed
// for action tasks only). The item stores the resolved choices, and a
// resubmission compares them as resolved.
//
// A body without a "stage" field is a spec; a body with one is a pipeline
// envelope between stages (package work). The fetch stage creates the
// Items row from a spec with one conditional put on the id
// (store.Items.Create): a new id is created queued for fetch and claimed at
// once; an id that exists with the same spec (Differences is empty) is a
// duplicate — a producer's retry or SQS's at-least-once delivery — and the
// claim decides as for any other duplicate; an id that exists with a
// different spec is dead-lettered SCHEMA_INVALID naming the fields that
// differ. The correlation id is tracing, not content: a resubmission under
// another correlation id is still a duplicate.
//
// Forward compatibility: fields this version does not know are accepted,
// reported by Decode (the runner counts them in the UnknownFields metric and
// logs each field name once per process) and never fatal.
package intake
