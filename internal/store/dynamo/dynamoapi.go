package dynamo

import (
	"context"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
)

// The DynamoDB actions a store calls, one interface each. A store's API
// embeds the ones it calls, so it reads as the list of actions its
// functions' roles must allow; *dynamodb.Client satisfies every list, and a
// test's fake implements only what the store calls. Query and Scan are the
// SDK's own paginator interfaces.
type (
	// Getter is GetItem.
	Getter interface {
		GetItem(ctx context.Context, in *dynamodb.GetItemInput, opts ...func(*dynamodb.Options)) (*dynamodb.GetItemOutput, error)
	}
	// Putter is PutItem.
	Putter interface {
		PutItem(ctx context.Context, in *dynamodb.PutItemInput, opts ...func(*dynamodb.Options)) (*dynamodb.PutItemOutput, error)
	}
	// Updater is UpdateItem.
	Updater interface {
		UpdateItem(ctx context.Context, in *dynamodb.UpdateItemInput, opts ...func(*dynamodb.Options)) (*dynamodb.UpdateItemOutput, error)
	}
	// Deleter is DeleteItem.
	Deleter interface {
		DeleteItem(ctx context.Context, in *dynamodb.DeleteItemInput, opts ...func(*dynamodb.Options)) (*dynamodb.DeleteItemOutput, error)
	}
	// BatchGetter is BatchGetItem.
	BatchGetter interface {
		BatchGetItem(ctx context.Context, in *dynamodb.BatchGetItemInput, opts ...func(*dynamodb.Options)) (*dynamodb.BatchGetItemOutput, error)
	}
	// Transactor is TransactWriteItems.
	Transactor interface {
		TransactWriteItems(ctx context.Context, in *dynamodb.TransactWriteItemsInput, opts ...func(*dynamodb.Options)) (*dynamodb.TransactWriteItemsOutput, error)
	}
	// Querier is Query.
	Querier = dynamodb.QueryAPIClient
	// Scanner is Scan.
	Scanner = dynamodb.ScanAPIClient
)

// API is the part of the DynamoDB client a record store (Table) uses:
// GetItem and UpdateItem for the stages, Scan for listing (the CLI, the
// recovery function).
type API interface {
	Getter
	Updater
	Scanner
}
