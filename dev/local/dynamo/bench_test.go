package dynamo_test

import (
	"os"
	"strconv"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/triagehq/triage/dev/local/localtest"
	"github.com/triagehq/triage/dev/local/moto"
)

// benchTargets are the DynamoDBs the benchmarks compare: the local one
// and, when moto_server is installed, moto's own (patched as the local
// stack runs it).
func benchTargets(b *testing.B) map[string]string {
	b.Helper()
	out := map[string]string{"local": ""}
	if os.Getenv("BENCH_LOCAL_ONLY") == "" {
		localtest.Require(b, "moto_server", moto.InstallHint)
		out["moto"] = localtest.MotoDynamoDBEndpoint(b)
	}
	return out
}

// benchEnv is a table of size items shaped like the Items table's: key k,
// a state, a lease, attempts by stage, the listed-state index.
func benchEnv(b *testing.B, url string, size int) env {
	b.Helper()
	if url == "" {
		srv := newLocal(b)
		url = srv
	}
	e := newTable(b, url, "bench-", types.ProjectionTypeKeysOnly)
	for i := range size {
		if _, err := e.db.PutItem(b.Context(), &dynamodb.PutItemInput{TableName: &e.table, Item: map[string]types.AttributeValue{
			"k": s("item-" + strconv.Itoa(i)), "state": s("queued"), "g": s("flight#" + strconv.Itoa(i%4)), "r": n(i),
			"attempts": &types.AttributeValueMemberM{Value: map[string]types.AttributeValue{"fetch": n(0), "llm": n(0), "notify": n(0)}},
		}}); err != nil {
			b.Fatal(err)
		}
	}
	return e
}

// benchSize is the items in a benchmark's table.
const benchSize = 10000

// benchOnTable runs op, the i-th request of a benchmark from 1 on, on a
// table of benchSize items in each of benchTargets.
func benchOnTable(b *testing.B, op func(b *testing.B, e env, i int) error) {
	for target, url := range benchTargets(b) {
		b.Run(target, func(b *testing.B) {
			e := benchEnv(b, url, benchSize)
			i := 0
			for b.Loop() {
				i++
				if err := op(b, e, i); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

func newLocal(b *testing.B) string {
	b.Helper()
	srv := httptestServer()
	b.Cleanup(srv.Close)
	return srv.URL
}

// claim is a stage's claim of an item as internal/store writes it: a
// conditional UpdateItem that sets a dozen attributes, counts an attempt
// and removes the failure fields, returning the new item.
func claim(e env, id string, now int) *dynamodb.UpdateItemInput {
	return &dynamodb.UpdateItemInput{
		TableName: &e.table, Key: key(id),
		UpdateExpression: aws.String("SET #st = :working, lease_owner = :owner, lease_until = :until, attempts.#stage = if_not_exists(attempts.#stage, :zero) + :one, " +
			"last_write = :tok, carrier = :owner, updated_at = :now REMOVE not_before, suspect"),
		ConditionExpression:      aws.String("attribute_exists(k) AND (attribute_not_exists(lease_until) OR lease_until < :now)"),
		ExpressionAttributeNames: map[string]string{"#st": "state", "#stage": "fetch"},
		ExpressionAttributeValues: map[string]types.AttributeValue{":working": s("working"), ":owner": s("m1#" + strconv.Itoa(now)),
			":until": n(now + 1), ":zero": n(0), ":one": n(1), ":tok": s("tok-" + strconv.Itoa(now)), ":now": n(now)},
		ReturnValues:                        types.ReturnValueAllNew,
		ReturnValuesOnConditionCheckFailure: types.ReturnValuesOnConditionCheckFailureAllOld,
	}
}

// BenchmarkClaim is one claim-like conditional UpdateItem on a table of
// 10,000 items, against the local DynamoDB and moto's.
func BenchmarkClaim(b *testing.B) {
	benchOnTable(b, func(b *testing.B, e env, i int) error {
		_, err := e.db.UpdateItem(b.Context(), claim(e, "item-"+strconv.Itoa(i%benchSize), 2*i))
		return err
	})
}

// BenchmarkTransactWriteItems is a stage's success as internal/store writes
// it: a conditional update of the item and a put of a new sibling (its
// body), on a table of 10,000 items, against the local DynamoDB and moto's.
func BenchmarkTransactWriteItems(b *testing.B) {
	benchOnTable(b, func(b *testing.B, e env, i int) error {
		id := "item-" + strconv.Itoa(i%benchSize)
		_, err := e.db.TransactWriteItems(b.Context(), &dynamodb.TransactWriteItemsInput{TransactItems: []types.TransactWriteItem{
			{Update: &types.Update{TableName: &e.table, Key: key(id),
				UpdateExpression:          aws.String("SET #st = :done, g = :g, r = :r, last_write = :tok"),
				ConditionExpression:       aws.String("attribute_exists(k) AND last_write <> :tok"),
				ExpressionAttributeNames:  map[string]string{"#st": "state"},
				ExpressionAttributeValues: map[string]types.AttributeValue{":done": s("done"), ":g": s("done#" + strconv.Itoa(i%4)), ":r": n(i), ":tok": s("t" + strconv.Itoa(i))}}},
			{Put: &types.Put{TableName: &e.table, Item: map[string]types.AttributeValue{"k": s("body-" + strconv.Itoa(i)), "body": s("enrichment of " + id)},
				ConditionExpression: aws.String("attribute_not_exists(k)")}},
		}})
		return err
	})
}
