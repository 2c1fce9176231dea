// Package poller is Lambda's SQS event source mapping, locally: it
// long-polls a queue, gathers batches as Lambda does (BatchSize records or
// the batching window, whichever comes first), invokes the function through
// the local Lambda service with up to MaxConcurrency batches in flight, and
// then settles the batch by Lambda's documented rules
// (https://docs.aws.amazon.com/lambda/latest/dg/services-sqs-errorhandling.html):
//
//   - a function error — the handler's error, a crash, a timeout — fails the
//     whole batch: nothing is deleted, every message comes back after its
//     visibility timeout;
//   - without ReportBatchItemFailures, any response deletes the whole batch;
//   - with ReportBatchItemFailures, the successes are deleted
//     (DeleteMessageBatch) and the reported failures are left to their
//     visibility timeout. A null or empty response, or an empty or null
//     batchItemFailures list, means every record succeeded. A response that
//     is not JSON (or not an object), or an entry whose itemIdentifier is
//     missing, null, empty, not a string or not a message id of the batch,
//     fails the whole batch.
//
// Messages that are not deleted are never touched: the queue's visibility
// timeout (or the ChangeMessageVisibility the function did itself) decides
// when they come back, and the queue's redrive policy when they move to
// the dead-letter queue.
//
// Run the poller of each function's SQS event (FromTemplate builds the
// Mapping from template.yaml) against a local Lambda service
// (*lambda.Service is an Invoker) and the queues of a moto stack:
//
//	m, err := poller.FromTemplate(fn, fn.Events[0], resolver)
//	p := &poller.Poller{Mapping: m, SQS: sqs.NewFromConfig(cfg), Invoker: svc}
//	go p.Run(ctx)
//	… p.Counters() …
package poller
