package dynamo_test

import (
	"context"
	"errors"
	"reflect"
	"strings"
	"testing"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/triagehq/triage/internal/store/dynamo"
)

type rec struct {
	ID string `dynamodbav:"id"`
	N  int    `dynamodbav:"n"`
}

// fakeDB answers UpdateItem with update and GetItem with item; it counts
// consistent reads.
type fakeDB struct {
	dynamo.API
	update   func() (*dynamodb.UpdateItemOutput, error)
	item     map[string]types.AttributeValue
	reads    int
	lastCond *string
	seen     func(*dynamodb.UpdateItemInput)
}

func (f *fakeDB) UpdateItem(_ context.Context, in *dynamodb.UpdateItemInput, _ ...func(*dynamodb.Options)) (*dynamodb.UpdateItemOutput, error) {
	f.lastCond = in.ConditionExpression
	if f.seen != nil {
		f.seen(in)
	}
	return f.update()
}

func (f *fakeDB) GetItem(_ context.Context, in *dynamodb.GetItemInput, _ ...func(*dynamodb.Options)) (*dynamodb.GetItemOutput, error) {
	if in.ConsistentRead != nil && *in.ConsistentRead {
		f.reads++
	}
	return &dynamodb.GetItemOutput{Item: f.item}, nil
}

func item(n string) map[string]types.AttributeValue {
	return map[string]types.AttributeValue{"id": &types.AttributeValueMemberS{Value: "a"}, "n": &types.AttributeValueMemberN{Value: n}}
}

func TestApply(t *testing.T) {
	t.Parallel()
	ccf := func(it map[string]types.AttributeValue) func() (*dynamodb.UpdateItemOutput, error) {
		return func() (*dynamodb.UpdateItemOutput, error) {
			return nil, &types.ConditionalCheckFailedException{Item: it}
		}
	}
	boom := errors.New("boom")
	cases := map[string]struct {
		update    func() (*dynamodb.UpdateItemOutput, error)
		stored    map[string]types.AttributeValue
		want      dynamo.Outcome[rec]
		wantReads int
		wantErr   error
	}{
		"applied": {update: func() (*dynamodb.UpdateItemOutput, error) {
			return &dynamodb.UpdateItemOutput{Attributes: item("2")}, nil
		},
			want: dynamo.Outcome[rec]{Record: rec{"a", 2}, Applied: true, Exists: true}},
		"condition failed, old record in the error": {update: ccf(item("1")),
			want: dynamo.Outcome[rec]{Record: rec{"a", 1}, Exists: true}},
		"condition failed, no record in the error": {update: ccf(nil), stored: item("3"), wantReads: 1,
			want: dynamo.Outcome[rec]{Record: rec{"a", 3}, Exists: true}},
		"condition failed, no record": {update: ccf(nil), wantReads: 1},
		"other error":                 {update: func() (*dynamodb.UpdateItemOutput, error) { return nil, boom }, wantErr: boom},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			db := &fakeDB{update: tc.update, item: tc.stored}
			tbl := dynamo.Table[rec]{DB: db, Name: "t", Key: "id", What: "rec"}
			got, err := tbl.Apply(context.Background(), "a", tbl.Update("a", "SET n = n + 1", "n < 3", dynamo.New()))
			if !errors.Is(err, tc.wantErr) || got != tc.want || db.reads != tc.wantReads {
				t.Fatalf("Apply = %+v, %v after %d reads; want %+v, %v after %d", got, err, db.reads, tc.want, tc.wantErr, tc.wantReads)
			}
			if db.lastCond == nil || !dynamo.ConditionFailed(&types.ConditionalCheckFailedException{}) {
				t.Fatal("the update lost its condition")
			}
		})
	}
}

func TestTry(t *testing.T) {
	t.Parallel()
	boom := errors.New("boom")
	cases := map[string]struct {
		err     error
		wantOK  bool
		wantErr error
	}{
		"applied":          {wantOK: true},
		"condition failed": {err: &types.ConditionalCheckFailedException{}},
		"other error":      {err: boom, wantErr: boom},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			var in *dynamodb.UpdateItemInput
			db := &fakeDB{update: func() (*dynamodb.UpdateItemOutput, error) { return &dynamodb.UpdateItemOutput{}, tc.err }}
			db.seen = func(got *dynamodb.UpdateItemInput) { in = got }
			tbl := dynamo.Table[rec]{DB: db, Name: "t", Key: "id", What: "rec"}
			ok, err := tbl.Try(context.Background(), "a", "SET n = :v0", "n > :v0", dynamo.New())
			if ok != tc.wantOK || !errors.Is(err, tc.wantErr) || db.reads != 0 {
				t.Fatalf("Try = %t, %v after %d reads; want %t, %v after none", ok, err, db.reads, tc.wantOK, tc.wantErr)
			}
			if in.ReturnValues != types.ReturnValueNone || in.ReturnValuesOnConditionCheckFailure != types.ReturnValuesOnConditionCheckFailureNone ||
				in.ConditionExpression == nil || *in.ConditionExpression != "n > :v0" {
				t.Fatalf("Try sent %+v; want a conditional update that returns nothing", in)
			}
		})
	}
}

func TestTimes(t *testing.T) {
	t.Parallel()
	if !dynamo.ParseTime("").IsZero() || !dynamo.ParseTime("yesterday").IsZero() || !dynamo.FromMillis(0).IsZero() {
		t.Fatal("empty or unreadable times are not zero")
	}
	if got := dynamo.ParseTime("2026-11-21T10:00:00+01:00"); got.Location().String() != "UTC" || got.Hour() != 9 {
		t.Fatalf("ParseTime = %v", got)
	}
	if got := dynamo.FromMillis(1000); got.Unix() != 1 || got.Location().String() != "UTC" {
		t.Fatalf("FromMillis = %v", got)
	}
	if a, b := dynamo.NewToken(), dynamo.NewToken(); len(a) != 24 || a == b {
		t.Fatalf("tokens %q, %q", a, b)
	}
}

func TestBuilderUpdate(t *testing.T) {
	t.Parallel()
	b := dynamo.New()
	in := b.Update("t", map[string]types.AttributeValue{"id": &types.AttributeValueMemberS{Value: "a"}}, "SET n = n + 1", "")
	if in.ConditionExpression != nil || in.ExpressionAttributeNames != nil || in.ExpressionAttributeValues != nil {
		t.Fatalf("an update with no condition, names or values sent some: %+v", in)
	}
	in = b.Update("t", nil, "SET "+b.Name("n")+" = "+b.Num(1), b.Name("n")+" < "+b.Num(1))
	if in.ConditionExpression == nil || *in.ConditionExpression != "#n < :v1" || len(in.ExpressionAttributeNames) != 1 ||
		len(in.ExpressionAttributeValues) != 2 || in.ReturnValuesOnConditionCheckFailure != types.ReturnValuesOnConditionCheckFailureAllOld {
		t.Fatalf("conditional update = %+v", in)
	}
	in.ReturnValuesOnConditionCheckFailure = types.ReturnValuesOnConditionCheckFailureNone
	tu := dynamo.InTransaction(in)
	if tu.UpdateExpression != in.UpdateExpression || tu.ConditionExpression != in.ConditionExpression ||
		tu.ReturnValuesOnConditionCheckFailure != types.ReturnValuesOnConditionCheckFailureAllOld {
		t.Fatalf("transaction update = %+v", tu)
	}
}

// unmarshalable is a record attributevalue cannot marshal.
type unmarshalable struct{}

func (unmarshalable) MarshalDynamoDBAttributeValue() (types.AttributeValue, error) {
	return nil, errors.New("no attribute value")
}

// putter records the PutItem it is sent and answers with err.
type putter struct {
	in  *dynamodb.PutItemInput
	err error
}

func (p *putter) PutItem(_ context.Context, in *dynamodb.PutItemInput, _ ...func(*dynamodb.Options)) (*dynamodb.PutItemOutput, error) {
	p.in = in
	return &dynamodb.PutItemOutput{}, p.err
}

func TestPut(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	p := &putter{}
	if err := dynamo.Put(ctx, p, "Records", rec{ID: "a", N: 7}); err != nil {
		t.Fatal(err)
	}
	if p.in == nil || *p.in.TableName != "Records" || p.in.ConditionExpression != nil || !reflect.DeepEqual(p.in.Item, item("7")) {
		t.Fatalf("PutItem = %+v, want record a at 7 in Records, unconditional", p.in)
	}
	boom := errors.New("boom")
	if err := dynamo.Put(ctx, &putter{err: boom}, "Records", rec{ID: "a"}); err != boom {
		t.Fatalf("a failed write = %v, want the SDK's error", err)
	}
	unsent := &putter{}
	if err := dynamo.Put(ctx, unsent, "Records", unmarshalable{}); err == nil || !strings.HasPrefix(err.Error(), "encode: ") || unsent.in != nil {
		t.Fatalf("a record that does not marshal = %v (sent %v), want an encode error and no write", err, unsent.in != nil)
	}
}
