// Package triage is triage's Go API: what a program imports to make a call
// fail well without the queue — the inline path (docs/design.md "The
// inline path"). Everything else in the module is internal to the workers.
//
// It owns no rule of its own. Classify and ClassifyResponse are the
// classifier every stage uses; Decide is the decision table the workers'
// runner reads; a Client composes them with the stack's circuit breakers,
// model health and daily budget (in DynamoDB, DynamoStores, shared with
// every worker) and the producer that puts items on the fetch queue:
//
//	c, err := triage.New(triage.Config{
//		Stores:         triage.DynamoStores(dynamodb.NewFromConfig(cfg), tables),
//		DailyBudgetUSD: "5", CostPerCallUSD: "0.003",
//		SQS:            sqs.NewFromConfig(cfg), FetchQueueURL: fetchQueueURL,
//	})
//	err = c.Do(ctx, enrich, triage.Service("llm:openai"), triage.Model("openai:gpt-4o-mini"), triage.ForItem(spec))
//
// Do checks the gates, calls, classifies the failure once, feeds the
// breaker and the model's health, and asks the policy: a retry or a plain
// wait that ends before ctx's deadline, and that the worker would hold in
// its queue rather than park, is waited out on the Client's Clock; a
// permanent failure or spent attempts return the classified *Error; any
// other wait — behind an open breaker, a provider's quota, a disabled
// model, the day's spent budget, or past the deadline — hands the item to
// the fetch queue (errors.Is(err, ErrQueued)), where the workers carry on
// with the same tables. RoundTripper does the same for each request of a
// provider's HTTP client.
package triage
