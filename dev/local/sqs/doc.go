// Package sqs is the local stack's SQS: an in-memory emulator of standard
// queues that speaks the JSON protocol of the AWS SDKs (POST, X-Amz-Target
// "AmazonSQS.<Operation>", application/x-amz-json-1.0) and costs the same
// per call whatever a queue's depth.
//
// moto's SQS walks every message of a queue on each receive, delete and
// visibility change and keeps every receipt handle it ever issued, so its
// calls slow down as a queue fills (a SendMessageBatch of 10 took 5.7 ms into
// an empty queue and 165 ms at 1,000 queued; a ReceiveMessage 10.5 ms and
// 485 ms) and it never gives the memory back. Here a queue keeps its ready
// messages in a list, its delayed and in-flight messages in a heap by the
// time they become visible, and every message in a map by id and in a list
// by arrival (for retention): a send, receive, delete or visibility change
// is O(1) in the depth, or O(log n) when it moves a message in the heap.
// Time is read from an injected clock (Options.Clock).
//
// What it implements, with the semantics the project relies on
// (docs/performance.md, "The local SQS", lists them with the conformance
// suite that holds it to moto):
//
//   - CreateQueue (idempotent for equal attributes, QueueNameExists
//     otherwise), GetQueueUrl, ListQueues (prefix, MaxResults, NextToken),
//     DeleteQueue, PurgeQueue (once a minute), GetQueueAttributes and
//     SetQueueAttributes, tags, ListDeadLetterSourceQueues;
//   - SendMessage, ReceiveMessage, DeleteMessage, ChangeMessageVisibility
//     and their batch forms, with the batch rules (1 to 10 entries,
//     distinct valid ids) and per-entry failures;
//   - visibility timeouts (the 12-hour limit counted from the receive),
//     per-queue and per-message DelaySeconds, long polling (WaitTimeSeconds
//     or the queue's ReceiveMessageWaitTimeSeconds), retention;
//   - the system attributes SenderId, SentTimestamp,
//     ApproximateReceiveCount, ApproximateFirstReceiveTimestamp and
//     AWSTraceHeader; message attributes with their validation, size and
//     MD5 digests (MD5OfMessageBody, MD5OfMessageAttributes over the
//     attributes returned, MD5OfMessageSystemAttributes);
//   - RedrivePolicy: a message received maxReceiveCount times moves, on the
//     next receive, to the dead-letter queue with its id, body, attributes,
//     sent time and receive count, and the system attribute
//     DeadLetterQueueSourceArn naming the queue it came from;
//   - GetQueueAttributes' ApproximateNumberOfMessages, ...NotVisible and
//     ...Delayed, exact here;
//   - errors as the JSON protocol carries them: the model's shape in
//     __type, the query code in X-Amzn-Query-Error, the model's status
//     (QueueDoesNotExist, ReceiptHandleIsInvalid, MessageNotInflight,
//     InvalidParameterValue, TooManyEntriesInBatchRequest,
//     BatchEntryIdsNotDistinct, EmptyBatchRequest, InvalidBatchEntryId,
//     BatchRequestTooLong, InvalidAttributeName, InvalidAttributeValue,
//     InvalidMessageContents, PurgeQueueInProgress, QueueNameExists).
//
// What it does not: FIFO queues, the query (XML) protocol, signatures,
// permissions and policies (stored, not enforced), KMS, message move tasks
// (StartMessageMoveTask), and the 60 seconds AWS makes a deleted queue's
// name wait. A queue URL is read by its last two path segments, account and
// name, whatever its host: moto's CloudFormation and the SDK spell hosts
// differently.
package sqs
