package dynamo_test

import (
	"context"
	"errors"
	"net/http/httptest"
	"slices"
	"strconv"
	"sync/atomic"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"github.com/aws/smithy-go"

	"github.com/triagehq/triage/dev/local/dynamo"
	"github.com/triagehq/triage/dev/local/localtest"
	"github.com/triagehq/triage/dev/local/moto"
)

func TestMain(m *testing.M) { localtest.Main(m) }

var tableSeq atomic.Int64

// env is one DynamoDB under test and a new table in it: key k (S), a
// sparse global index by-g on g (S) and a range r (N), all projected.
type env struct {
	db    *dynamodb.Client
	table string
}

// targets returns the DynamoDBs every case runs against: the local one
// (package dynamo behind an httptest server) and moto's own.
func targets(t *testing.T) map[string]string {
	t.Helper()
	srv := httptestServer()
	t.Cleanup(srv.Close)
	return map[string]string{"local": srv.URL, "moto": localtest.MotoDynamoDBEndpoint(t)}
}

// httptestServer serves a new local DynamoDB on a loopback port.
func httptestServer() *httptest.Server { return httptest.NewServer(dynamo.New(dynamo.Options{})) }

func setup(t *testing.T, url string) env {
	t.Helper()
	return newTable(t, url, "conf-", types.ProjectionTypeAll)
}

// newTable creates a table of its own on the DynamoDB at url — a string key
// k, and an index by-g on g and r of the given projection — for a case or
// a benchmark.
func newTable(tb testing.TB, url, prefix string, proj types.ProjectionType) env {
	tb.Helper()
	cfg, err := moto.Config(tb.Context(), url)
	if err != nil {
		tb.Fatal(err)
	}
	e := env{db: dynamodb.NewFromConfig(cfg), table: prefix + strconv.FormatInt(tableSeq.Add(1), 10)}
	_, err = e.db.CreateTable(tb.Context(), &dynamodb.CreateTableInput{
		TableName: aws.String(e.table),
		AttributeDefinitions: []types.AttributeDefinition{
			{AttributeName: aws.String("k"), AttributeType: types.ScalarAttributeTypeS},
			{AttributeName: aws.String("g"), AttributeType: types.ScalarAttributeTypeS},
			{AttributeName: aws.String("r"), AttributeType: types.ScalarAttributeTypeN},
		},
		KeySchema: []types.KeySchemaElement{{AttributeName: aws.String("k"), KeyType: types.KeyTypeHash}},
		GlobalSecondaryIndexes: []types.GlobalSecondaryIndex{{
			IndexName: aws.String("by-g"),
			KeySchema: []types.KeySchemaElement{{AttributeName: aws.String("g"), KeyType: types.KeyTypeHash},
				{AttributeName: aws.String("r"), KeyType: types.KeyTypeRange}},
			Projection: &types.Projection{ProjectionType: proj},
		}},
		BillingMode: types.BillingModePayPerRequest,
	})
	if err != nil {
		tb.Fatal(err)
	}
	return e
}

func s(v string) types.AttributeValue { return &types.AttributeValueMemberS{Value: v} }
func n(v int) types.AttributeValue    { return &types.AttributeValueMemberN{Value: strconv.Itoa(v)} }
func key(k string) map[string]types.AttributeValue {
	return map[string]types.AttributeValue{"k": s(k)}
}

func (e env) put(t *testing.T, item map[string]types.AttributeValue) {
	t.Helper()
	if _, err := e.db.PutItem(t.Context(), &dynamodb.PutItemInput{TableName: &e.table, Item: item}); err != nil {
		t.Fatal(err)
	}
}

func (e env) get(t *testing.T, k string) map[string]types.AttributeValue {
	t.Helper()
	out, err := e.db.GetItem(t.Context(), &dynamodb.GetItemInput{TableName: &e.table, Key: key(k), ConsistentRead: aws.Bool(true)})
	if err != nil {
		t.Fatal(err)
	}
	return out.Item
}

func str(item map[string]types.AttributeValue, a string) string {
	switch v := item[a].(type) {
	case *types.AttributeValueMemberS:
		return v.Value
	case *types.AttributeValueMemberN:
		return v.Value
	case nil:
		return "<absent>"
	}
	return "<other>"
}

func (e env) queryG(t *testing.T, g string) []string {
	t.Helper()
	out, err := e.db.Query(t.Context(), &dynamodb.QueryInput{TableName: &e.table, IndexName: aws.String("by-g"),
		KeyConditionExpression: aws.String("g = :g"), ExpressionAttributeValues: map[string]types.AttributeValue{":g": s(g)}})
	if err != nil {
		t.Fatal(err)
	}
	var ks []string
	for _, it := range out.Items {
		ks = append(ks, str(it, "k"))
	}
	slices.Sort(ks)
	return ks
}

// TestConformance runs each case against the local DynamoDB and moto's
// own: what the handler of package dynamo corrects in minidyn, held to
// the answers of moto (which answers as DynamoDB in each of these).
func TestConformance(t *testing.T) {
	t.Parallel()
	cases := map[string]func(t *testing.T, e env){
		"a cancelled transaction names every failed condition, with the items asked for, and writes nothing": func(t *testing.T, e env) {
			e.put(t, map[string]types.AttributeValue{"k": s("b"), "v": n(1)})
			e.put(t, map[string]types.AttributeValue{"k": s("c"), "v": n(1)})
			e.put(t, map[string]types.AttributeValue{"k": s("d"), "v": n(1)})
			vals := map[string]types.AttributeValue{":two": n(2)}
			_, err := e.db.TransactWriteItems(t.Context(), &dynamodb.TransactWriteItemsInput{TransactItems: []types.TransactWriteItem{
				{Put: &types.Put{TableName: &e.table, Item: map[string]types.AttributeValue{"k": s("a"), "v": n(9)}}},
				{Update: &types.Update{TableName: &e.table, Key: key("b"), UpdateExpression: aws.String("SET v = :two"),
					ConditionExpression: aws.String("v = :two"), ExpressionAttributeValues: vals,
					ReturnValuesOnConditionCheckFailure: types.ReturnValuesOnConditionCheckFailureAllOld}},
				{Delete: &types.Delete{TableName: &e.table, Key: key("c"), ConditionExpression: aws.String("attribute_not_exists(k)"),
					ReturnValuesOnConditionCheckFailure: types.ReturnValuesOnConditionCheckFailureAllOld}},
				{ConditionCheck: &types.ConditionCheck{TableName: &e.table, Key: key("d"), ConditionExpression: aws.String("v = :two"),
					ExpressionAttributeValues: vals}},
			}})
			var tce *types.TransactionCanceledException
			if !errors.As(err, &tce) {
				t.Fatalf("err = %v, want TransactionCanceledException", err)
			}
			var codes []string
			for _, r := range tce.CancellationReasons {
				codes = append(codes, aws.ToString(r.Code))
			}
			if want := []string{"None", "ConditionalCheckFailed", "ConditionalCheckFailed", "ConditionalCheckFailed"}; !slices.Equal(codes, want) {
				t.Fatalf("reasons %v, want %v", codes, want)
			}
			if str(tce.CancellationReasons[1].Item, "v") != "1" || str(tce.CancellationReasons[2].Item, "k") != "c" || tce.CancellationReasons[3].Item != nil {
				t.Errorf("reason items %+v", tce.CancellationReasons)
			}
			if e.get(t, "a") != nil {
				t.Error("the transaction's put was applied")
			}
		},
		"a committed transaction applies every action and leaves a condition check's item as it was": func(t *testing.T, e env) {
			e.put(t, map[string]types.AttributeValue{"k": s("b"), "v": n(1), "g": s("x"), "r": n(1)})
			e.put(t, map[string]types.AttributeValue{"k": s("c"), "v": n(1)})
			_, err := e.db.TransactWriteItems(t.Context(), &dynamodb.TransactWriteItemsInput{TransactItems: []types.TransactWriteItem{
				{Put: &types.Put{TableName: &e.table, Item: map[string]types.AttributeValue{"k": s("a"), "v": n(9)}, ConditionExpression: aws.String("attribute_not_exists(k)")}},
				{ConditionCheck: &types.ConditionCheck{TableName: &e.table, Key: key("b"), ConditionExpression: aws.String("attribute_exists(k)")}},
				{Update: &types.Update{TableName: &e.table, Key: key("c"), UpdateExpression: aws.String("SET w = :w REMOVE v"),
					ExpressionAttributeValues: map[string]types.AttributeValue{":w": n(3)}}},
			}})
			if err != nil {
				t.Fatal(err)
			}
			if str(e.get(t, "a"), "v") != "9" || str(e.get(t, "b"), "v") != "1" || str(e.get(t, "c"), "v") != "<absent>" || str(e.get(t, "c"), "w") != "3" {
				t.Errorf("after: a %v, b %v, c %v", e.get(t, "a"), e.get(t, "b"), e.get(t, "c"))
			}
			if got := e.queryG(t, "x"); !slices.Equal(got, []string{"b"}) {
				t.Errorf("index after the check: %v, want [b]", got)
			}
		},
		"two actions on one item are refused": func(t *testing.T, e env) {
			_, err := e.db.TransactWriteItems(t.Context(), &dynamodb.TransactWriteItemsInput{TransactItems: []types.TransactWriteItem{
				{Put: &types.Put{TableName: &e.table, Item: map[string]types.AttributeValue{"k": s("a")}}},
				{Delete: &types.Delete{TableName: &e.table, Key: key("a")}},
			}})
			var api smithy.APIError
			if !errors.As(err, &api) || api.ErrorCode() != "ValidationException" {
				t.Fatalf("err = %v, want ValidationException", err)
			}
		},
		"REMOVE after SET removes, and ReturnValues say so": func(t *testing.T, e env) {
			e.put(t, map[string]types.AttributeValue{"k": s("a"), "v": n(1), "x": s("old"), "y": s("y")})
			out, err := e.db.UpdateItem(t.Context(), &dynamodb.UpdateItemInput{TableName: &e.table, Key: key("a"),
				UpdateExpression:         aws.String("SET v = :v ADD n :one REMOVE #x, y"),
				ExpressionAttributeNames: map[string]string{"#x": "x"}, ExpressionAttributeValues: map[string]types.AttributeValue{":v": n(2), ":one": n(1)},
				ReturnValues: types.ReturnValueUpdatedOld})
			if err != nil {
				t.Fatal(err)
			}
			if str(out.Attributes, "v") != "1" || str(out.Attributes, "x") != "old" || str(out.Attributes, "n") != "<absent>" || str(out.Attributes, "k") != "<absent>" {
				t.Errorf("UPDATED_OLD = %v", out.Attributes)
			}
			got := e.get(t, "a")
			if str(got, "v") != "2" || str(got, "n") != "1" || str(got, "x") != "<absent>" || str(got, "y") != "<absent>" {
				t.Errorf("item = %v", got)
			}
		},
		"REMOVE of nested paths, and of an absent item's attribute, as DynamoDB": func(t *testing.T, e env) {
			e.put(t, map[string]types.AttributeValue{"k": s("a"), "m": &types.AttributeValueMemberM{Value: map[string]types.AttributeValue{"x": n(1), "y": n(2)}},
				"l": &types.AttributeValueMemberL{Value: []types.AttributeValue{s("p"), s("q")}}})
			if _, err := e.db.UpdateItem(t.Context(), &dynamodb.UpdateItemInput{TableName: &e.table, Key: key("a"),
				UpdateExpression: aws.String("SET v = :v REMOVE m.x, l[0]"), ExpressionAttributeValues: map[string]types.AttributeValue{":v": n(1)}}); err != nil {
				t.Fatal(err)
			}
			got := e.get(t, "a")
			m, _ := got["m"].(*types.AttributeValueMemberM)
			l, _ := got["l"].(*types.AttributeValueMemberL)
			if m == nil || len(m.Value) != 1 || str(m.Value, "y") != "2" || l == nil || len(l.Value) != 1 || str(got, "v") != "1" {
				t.Errorf("item = %v", got)
			}
			out, err := e.db.UpdateItem(t.Context(), &dynamodb.UpdateItemInput{TableName: &e.table, Key: key("new"),
				UpdateExpression: aws.String("REMOVE w"), ReturnValues: types.ReturnValueAllNew})
			if err != nil {
				t.Fatal(err)
			}
			if len(out.Attributes) != 1 || str(out.Attributes, "k") != "new" || len(e.get(t, "new")) != 1 {
				t.Errorf("ALL_NEW %v, item %v; want the key alone", out.Attributes, e.get(t, "new"))
			}
			var ccf *types.ConditionalCheckFailedException
			_, err = e.db.UpdateItem(t.Context(), &dynamodb.UpdateItemInput{TableName: &e.table, Key: key("a"),
				UpdateExpression: aws.String("REMOVE v"), ConditionExpression: aws.String("v = :two"),
				ExpressionAttributeValues:           map[string]types.AttributeValue{":two": n(2)},
				ReturnValuesOnConditionCheckFailure: types.ReturnValuesOnConditionCheckFailureAllOld})
			if !errors.As(err, &ccf) || str(ccf.Item, "v") != "1" || str(e.get(t, "a"), "v") != "1" {
				t.Errorf("a REMOVE whose condition fails: %v (item %v); want the failure with the item, v kept", err, ccf)
			}
		},
		"REMOVE of an index key takes the item out of the sparse index": func(t *testing.T, e env) {
			e.put(t, map[string]types.AttributeValue{"k": s("a"), "g": s("x"), "r": n(1)})
			e.put(t, map[string]types.AttributeValue{"k": s("b"), "g": s("x"), "r": n(2)})
			if _, err := e.db.UpdateItem(t.Context(), &dynamodb.UpdateItemInput{TableName: &e.table, Key: key("a"),
				UpdateExpression: aws.String("REMOVE g")}); err != nil {
				t.Fatal(err)
			}
			if got := e.queryG(t, "x"); !slices.Equal(got, []string{"b"}) {
				t.Errorf("index: %v, want [b]", got)
			}
		},
		"contains and size of an absent attribute are false, not an error": func(t *testing.T, e env) {
			e.put(t, map[string]types.AttributeValue{"k": s("a")})
			for _, cond := range []string{"attribute_not_exists(w) OR NOT contains(w, :t)", "NOT contains(w, :t)", "attribute_not_exists(w) OR size(w) = :n"} {
				vals := pick(map[string]types.AttributeValue{":n": n(0)}, cond)
				vals[":t"] = s("tok")
				if _, err := e.db.UpdateItem(t.Context(), &dynamodb.UpdateItemInput{TableName: &e.table, Key: key("a"),
					UpdateExpression: aws.String("SET z = :t"), ConditionExpression: aws.String(cond), ExpressionAttributeValues: vals}); err != nil {
					t.Errorf("%s: %v", cond, err)
				}
			}
			var ccf *types.ConditionalCheckFailedException
			_, err := e.db.UpdateItem(t.Context(), &dynamodb.UpdateItemInput{TableName: &e.table, Key: key("a"),
				UpdateExpression: aws.String("SET z = :t"), ConditionExpression: aws.String("contains(w, :t)"),
				ExpressionAttributeValues: map[string]types.AttributeValue{":t": s("tok")}})
			if !errors.As(err, &ccf) {
				t.Errorf("contains of an absent attribute: %v, want a failed condition", err)
			}
		},
		"a failed put's condition returns the item it saw": func(t *testing.T, e env) {
			e.put(t, map[string]types.AttributeValue{"k": s("a"), "v": n(1)})
			_, err := e.db.PutItem(t.Context(), &dynamodb.PutItemInput{TableName: &e.table, Item: key("a"),
				ConditionExpression:                 aws.String("attribute_not_exists(k)"),
				ReturnValuesOnConditionCheckFailure: types.ReturnValuesOnConditionCheckFailureAllOld})
			var ccf *types.ConditionalCheckFailedException
			if !errors.As(err, &ccf) || str(ccf.Item, "v") != "1" {
				t.Fatalf("err = %v, want a failed condition with the item", err)
			}
		},
		"Select COUNT counts without items, and an index pages by its LastEvaluatedKey": func(t *testing.T, e env) {
			for i := range 5 {
				e.put(t, map[string]types.AttributeValue{"k": s("i" + strconv.Itoa(i)), "g": s("x"), "r": n(i)})
			}
			in := &dynamodb.QueryInput{TableName: &e.table, IndexName: aws.String("by-g"), KeyConditionExpression: aws.String("g = :g"),
				ExpressionAttributeValues: map[string]types.AttributeValue{":g": s("x")}, Select: types.SelectCount}
			out, err := e.db.Query(t.Context(), in)
			if err != nil || out.Count != 5 || len(out.Items) != 0 {
				t.Fatalf("count: %+v, %v", out, err)
			}
			in.Select, in.Limit, in.ScanIndexForward = types.SelectAllAttributes, aws.Int32(2), aws.Bool(false)
			var got []string
			for p := dynamodb.NewQueryPaginator(e.db, in); p.HasMorePages(); {
				page, err := p.NextPage(t.Context())
				if err != nil {
					t.Fatal(err)
				}
				for _, it := range page.Items {
					got = append(got, str(it, "k"))
				}
			}
			if want := []string{"i4", "i3", "i2", "i1", "i0"}; !slices.Equal(got, want) {
				t.Errorf("pages %v, want %v", got, want)
			}
		},
		"TTL is recorded and described; ListTables lists the table": func(t *testing.T, e env) {
			if _, err := e.db.UpdateTimeToLive(t.Context(), &dynamodb.UpdateTimeToLiveInput{TableName: &e.table,
				TimeToLiveSpecification: &types.TimeToLiveSpecification{AttributeName: aws.String("expires_at"), Enabled: aws.Bool(true)}}); err != nil {
				t.Fatal(err)
			}
			d, err := e.db.DescribeTimeToLive(t.Context(), &dynamodb.DescribeTimeToLiveInput{TableName: &e.table})
			if err != nil || d.TimeToLiveDescription.TimeToLiveStatus != types.TimeToLiveStatusEnabled || aws.ToString(d.TimeToLiveDescription.AttributeName) != "expires_at" {
				t.Errorf("DescribeTimeToLive = %+v, %v", d, err)
			}
			var names []string
			for p := dynamodb.NewListTablesPaginator(e.db, &dynamodb.ListTablesInput{Limit: aws.Int32(1)}); p.HasMorePages(); {
				page, err := p.NextPage(t.Context())
				if err != nil {
					t.Fatal(err)
				}
				names = append(names, page.TableNames...)
			}
			if !slices.Contains(names, e.table) {
				t.Errorf("ListTables %v lacks %s", names, e.table)
			}
			desc, err := e.db.DescribeTable(t.Context(), &dynamodb.DescribeTableInput{TableName: &e.table})
			if err != nil || desc.Table.TableStatus != types.TableStatusActive || desc.Table.BillingModeSummary == nil || len(desc.Table.AttributeDefinitions) != 3 {
				t.Errorf("DescribeTable = %+v, %v", desc, err)
			}
		},
		"a missing table is ResourceNotFoundException": func(t *testing.T, e env) {
			_, err := e.db.GetItem(t.Context(), &dynamodb.GetItemInput{TableName: aws.String("no-such-table"), Key: key("a")})
			var rnf *types.ResourceNotFoundException
			if !errors.As(err, &rnf) {
				t.Errorf("err = %v, want ResourceNotFoundException", err)
			}
		},
	}
	for target, url := range targets(t) {
		t.Run(target, func(t *testing.T) {
			t.Parallel()
			for name, tc := range cases {
				t.Run(name, func(t *testing.T) {
					t.Parallel()
					tc(t, setup(t, url))
				})
			}
		})
	}
}

// pick keeps the values cond names.
func pick(vals map[string]types.AttributeValue, cond string) map[string]types.AttributeValue {
	out := map[string]types.AttributeValue{}
	for k, v := range vals {
		for i := 0; i+len(k) <= len(cond); i++ {
			if cond[i:i+len(k)] == k {
				out[k] = v
			}
		}
	}
	return out
}

// TestUnknownOperation: an operation neither the handler nor minidyn
// implements is refused in DynamoDB's error shape, which the SDK decodes.
func TestUnknownOperation(t *testing.T) {
	t.Parallel()
	srv := httptest.NewServer(dynamo.New(dynamo.Options{}))
	defer srv.Close()
	cfg, err := moto.Config(context.Background(), srv.URL)
	if err != nil {
		t.Fatal(err)
	}
	_, err = dynamodb.NewFromConfig(cfg).ListBackups(t.Context(), &dynamodb.ListBackupsInput{})
	var api smithy.APIError
	if !errors.As(err, &api) || api.ErrorCode() != "UnknownOperationException" {
		t.Fatalf("err = %v, want UnknownOperationException", err)
	}
}

// TestKnownDifferences holds the list of docs/performance.md, "The local
// DynamoDB": what the local DynamoDB still answers differently from
// DynamoDB (and moto), each case asserting that it still does, so the list
// stays true. None is on a path the project's code takes.
func TestKnownDifferences(t *testing.T) {
	t.Parallel()
	answer := func(err error) string {
		var api smithy.APIError
		if errors.As(err, &api) {
			return api.ErrorCode()
		}
		if err != nil {
			return err.Error()
		}
		return "no error"
	}
	for name, tc := range map[string]struct {
		run         func(t *testing.T, e env) error
		local, moto string
	}{
		"a filter's contains on an absent attribute fails the query (DynamoDB: the item is filtered out)": {func(t *testing.T, e env) error {
			e.put(t, map[string]types.AttributeValue{"k": s("a"), "g": s("x"), "r": n(1)})
			_, err := e.db.Query(t.Context(), &dynamodb.QueryInput{TableName: &e.table, IndexName: aws.String("by-g"),
				KeyConditionExpression: aws.String("g = :g"), FilterExpression: aws.String("contains(w, :t)"),
				ExpressionAttributeValues: map[string]types.AttributeValue{":g": s("x"), ":t": s("tok")}})
			return err
		}, "ValidationException", "no error"},
		"an update naming a value it does not define is applied (DynamoDB: ValidationException)": {func(t *testing.T, e env) error {
			_, err := e.db.UpdateItem(t.Context(), &dynamodb.UpdateItemInput{TableName: &e.table, Key: key("a"),
				UpdateExpression: aws.String("SET z = :undefined, y = :y"), ExpressionAttributeValues: map[string]types.AttributeValue{":y": n(1)}})
			return err
		}, "no error", "ValidationException"},
	} {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			tg := targets(t)
			local, ref := answer(tc.run(t, setup(t, tg["local"]))), answer(tc.run(t, setup(t, tg["moto"])))
			if local != tc.local || ref != tc.moto {
				t.Errorf("local: %s, moto: %s; the list says local %s, moto %s: correct docs/performance.md, \"The local DynamoDB\"", local, ref, tc.local, tc.moto)
			}
		})
	}
}
