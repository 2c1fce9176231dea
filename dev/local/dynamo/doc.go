// Package dynamo is the local stack's DynamoDB: minidyn's in-memory engine
// (github.com/truora/minidyn, an http.Handler speaking the DynamoDB JSON
// protocol) behind a thin handler of ours that answers what minidyn lacks and
// corrects what it answers differently from DynamoDB where the project relies
// on it.
//
// moto's DynamoDB costs about 6 ms of Python CPU a request (docs/performance.md,
// "Where moto's DynamoDB time goes"); the pipeline makes about eleven a item,
// so moto bounds the local stack's throughput. minidyn answers in-process, in
// Go.
//
// What this handler adds to minidyn (each held by a test in this package or
// by the stores' conformance suites, which run against it and against moto):
//
//   - every request runs one at a time: DynamoDB serializes writes to an item,
//     and minidyn reads its table map without its lock in some operations;
//   - TransactWriteItems is ours, on minidyn's single-item operations: the
//     items it names are read first and put back if any condition fails
//     (minidyn deep-copies every table a transaction names, a cost that grows
//     with the tables), every condition is evaluated and each failure is a
//     ConditionalCheckFailed reason, with the item when
//     ReturnValuesOnConditionCheckFailure is ALL_OLD (minidyn stops at the
//     first and gives the item only for Update and ConditionCheck);
//   - PutItem and DeleteItem return the item a failed condition saw when
//     ReturnValuesOnConditionCheckFailure is ALL_OLD;
//   - Query and Scan with Select COUNT return the count without the items;
//   - UpdateTimeToLive/DescribeTimeToLive and UpdateContinuousBackups/
//     DescribeContinuousBackups are accepted and recorded (nothing expires:
//     moto's TTL never expires either), ListTables lists the tables;
//   - DescribeTable reports the table ACTIVE with its ARN, attribute
//     definitions and billing mode;
//   - an operation neither implements is an UnknownOperationException in
//     DynamoDB's JSON error shape, not a plain-text 400.
//
// What it does not do is listed in docs/performance.md, "The local
// DynamoDB".
package dynamo
