//go:build unix

package moto_test

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/triagehq/triage/dev/local/moto"
)

// table creates a table keyed by "id" (and, with sorted, "part") holding n
// items.
func table(t testing.TB, db *dynamodb.Client, name string, sorted bool, n int) {
	t.Helper()
	ctx := context.Background()
	in := &dynamodb.CreateTableInput{TableName: aws.String(name), BillingMode: types.BillingModePayPerRequest,
		AttributeDefinitions: []types.AttributeDefinition{{AttributeName: aws.String("id"), AttributeType: types.ScalarAttributeTypeS}},
		KeySchema:            []types.KeySchemaElement{{AttributeName: aws.String("id"), KeyType: types.KeyTypeHash}}}
	if sorted {
		in.AttributeDefinitions = append(in.AttributeDefinitions, types.AttributeDefinition{AttributeName: aws.String("part"),
			AttributeType: types.ScalarAttributeTypeS})
		in.KeySchema = append(in.KeySchema, types.KeySchemaElement{AttributeName: aws.String("part"), KeyType: types.KeyTypeRange})
	}
	if _, err := db.CreateTable(ctx, in); err != nil {
		t.Fatal(err)
	}
	for i := range n {
		item := map[string]types.AttributeValue{"id": s("seed-" + strconv.Itoa(i)), "n": &types.AttributeValueMemberN{Value: "0"},
			"doc": s("a state item of a few hundred bytes, as the pipeline's are, with its lease, status and stage")}
		if sorted {
			item["part"] = s("document")
		}
		if _, err := db.PutItem(ctx, &dynamodb.PutItemInput{TableName: aws.String(name), Item: item}); err != nil {
			t.Fatal(err)
		}
	}
}

func s(v string) types.AttributeValue { return &types.AttributeValueMemberS{Value: v} }

func get(t *testing.T, db *dynamodb.Client, name string, key map[string]types.AttributeValue) map[string]types.AttributeValue {
	t.Helper()
	out, err := db.GetItem(t.Context(), &dynamodb.GetItemInput{TableName: aws.String(name), Key: key, ConsistentRead: aws.Bool(true)})
	if err != nil {
		t.Fatal(err)
	}
	return out.Item
}

// TestTransactionsStayAtomic: with the patch (python/sitecustomize.py) a
// TransactWriteItems that fails leaves every item it named as it was — an
// update undone, a put removed, a delete restored — and returns the
// cancellation reasons with the failing item; one that succeeds applies
// every operation. The same on moto as installed, the reference.
func TestTransactionsStayAtomic(t *testing.T) {
	t.Parallel()
	for name, unpatched := range map[string]bool{"patched": false, "as installed": true} {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			srv := start(t, moto.Options{Unpatched: unpatched, DynamoDB: moto.DynamoDBMoto})
			if patched := strings.Contains(srv.Log(), moto.PatchedLine); patched == unpatched {
				t.Fatalf("moto's log says patched: %v; want %v:\n%s", patched, !unpatched, srv.Log())
			}
			db := dynamodb.NewFromConfig(config(t, srv.URL))
			table(t, db, "items", false, 3)
			table(t, db, "bodies", true, 1)
			key := func(id string) map[string]types.AttributeValue { return map[string]types.AttributeValue{"id": s(id)} }
			body := map[string]types.AttributeValue{"id": s("seed-0"), "part": s("document")}
			tx := func(cond string) error {
				_, err := db.TransactWriteItems(t.Context(), &dynamodb.TransactWriteItemsInput{TransactItems: []types.TransactWriteItem{
					{Update: &types.Update{TableName: aws.String("items"), Key: key("seed-0"), UpdateExpression: aws.String("SET n = :one"),
						ExpressionAttributeValues: map[string]types.AttributeValue{":one": &types.AttributeValueMemberN{Value: "1"}}}},
					{Put: &types.Put{TableName: aws.String("items"), Item: map[string]types.AttributeValue{"id": s("new"), "n": &types.AttributeValueMemberN{Value: "7"}}}},
					{Delete: &types.Delete{TableName: aws.String("bodies"), Key: body}},
					{Update: &types.Update{TableName: aws.String("items"), Key: key("seed-1"), UpdateExpression: aws.String("SET n = :one"),
						ConditionExpression: aws.String(cond), ReturnValuesOnConditionCheckFailure: types.ReturnValuesOnConditionCheckFailureAllOld,
						ExpressionAttributeValues: map[string]types.AttributeValue{":one": &types.AttributeValueMemberN{Value: "1"}}}},
				}})
				return err
			}
			err := tx("attribute_not_exists(id)") // seed-1 exists: the last operation fails
			var canceled *types.TransactionCanceledException
			if !errors.As(err, &canceled) || len(canceled.CancellationReasons) != 4 ||
				aws.ToString(canceled.CancellationReasons[3].Code) != "ConditionalCheckFailed" ||
				canceled.CancellationReasons[3].Item["id"] == nil {
				t.Fatalf("failing transaction: %v; want TransactionCanceledException with the 4th reason ConditionalCheckFailed and its item", err)
			}
			if n := get(t, db, "items", key("seed-0"))["n"].(*types.AttributeValueMemberN).Value; n != "0" {
				t.Errorf("the update of a failed transaction stayed: n = %s", n)
			}
			if it := get(t, db, "items", key("new")); it != nil {
				t.Errorf("the put of a failed transaction stayed: %v", it)
			}
			if it := get(t, db, "bodies", body); it == nil {
				t.Error("the delete of a failed transaction stayed")
			}
			if err := tx("attribute_exists(id)"); err != nil {
				t.Fatalf("succeeding transaction: %v", err)
			}
			if get(t, db, "items", key("new")) == nil || get(t, db, "bodies", body) != nil ||
				get(t, db, "items", key("seed-1"))["n"].(*types.AttributeValueMemberN).Value != "1" {
				t.Error("a successful transaction did not apply every operation")
			}
		})
	}
}

// BenchmarkTransactWriteItems: one transaction of an update and a sibling
// put, as a stage's success writes, against tables already holding n
// items, on moto as installed and patched.
func BenchmarkTransactWriteItems(b *testing.B) {
	for _, unpatched := range []bool{true, false} {
		for _, n := range []int{0, 1000, 5000} {
			b.Run(fmt.Sprintf("unpatched=%v/items=%d", unpatched, n), func(b *testing.B) {
				srv, err := moto.Start(context.Background(), moto.Options{Unpatched: unpatched, DynamoDB: moto.DynamoDBMoto})
				if err != nil {
					b.Skip(err)
				}
				b.Cleanup(func() { _ = srv.Stop() })
				db := dynamodb.NewFromConfig(config(b, srv.URL))
				table(b, db, "items", false, n)
				table(b, db, "bodies", true, n)
				i := 0
				for b.Loop() {
					i++
					id := "seed-" + strconv.Itoa(i%max(n, 1))
					_, err := db.TransactWriteItems(context.Background(), &dynamodb.TransactWriteItemsInput{TransactItems: []types.TransactWriteItem{
						{Update: &types.Update{TableName: aws.String("items"), Key: map[string]types.AttributeValue{"id": s(id)},
							UpdateExpression: aws.String("SET n = :n"), ConditionExpression: aws.String("attribute_not_exists(id) OR n >= :zero"),
							ExpressionAttributeValues: map[string]types.AttributeValue{":n": &types.AttributeValueMemberN{Value: strconv.Itoa(i)},
								":zero": &types.AttributeValueMemberN{Value: "0"}}}},
						{Put: &types.Put{TableName: aws.String("bodies"), Item: map[string]types.AttributeValue{"id": s(id), "part": s("enrichment"),
							"body": s("an enrichment of a few hundred bytes")}}},
					}})
					if err != nil {
						b.Fatal(err)
					}
				}
			})
		}
	}
}
