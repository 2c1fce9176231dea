package localtest

import (
	"context"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
)

// ReplayingDB sends every UpdateItem and TransactWriteItems twice and
// answers with the second result: what a client sees when the first
// response is lost and the SDK retries a request DynamoDB had already
// applied. (The retried transaction carries the first one's idempotency
// token; DynamoDB would answer it with success, moto fails its condition —
// a store must get it right either way.)
type ReplayingDB struct{ *dynamodb.Client }

// UpdateItem applies in twice and answers with the second attempt.
func (r ReplayingDB) UpdateItem(ctx context.Context, in *dynamodb.UpdateItemInput, opts ...func(*dynamodb.Options)) (*dynamodb.UpdateItemOutput, error) {
	if _, err := r.Client.UpdateItem(ctx, in, opts...); err != nil {
		return nil, err
	}
	return r.Client.UpdateItem(ctx, in, opts...)
}

// TransactWriteItems applies in twice and answers with the second attempt.
func (r ReplayingDB) TransactWriteItems(ctx context.Context, in *dynamodb.TransactWriteItemsInput, opts ...func(*dynamodb.Options)) (*dynamodb.TransactWriteItemsOutput, error) {
	if _, err := r.Client.TransactWriteItems(ctx, in, opts...); err != nil {
		return nil, err
	}
	return r.Client.TransactWriteItems(ctx, in, opts...)
}
