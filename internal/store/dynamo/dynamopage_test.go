package dynamo_test

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"testing"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/triagehq/triage/internal/store/dynamo"
)

// pages serves n items, two per page, and records the start keys it saw.
type pages struct {
	n      int
	starts []string
}

func (p *pages) Scan(_ context.Context, in *dynamodb.ScanInput, _ ...func(*dynamodb.Options)) (*dynamodb.ScanOutput, error) {
	from := 0
	if k, ok := in.ExclusiveStartKey["id"].(*types.AttributeValueMemberN); ok {
		from, _ = strconv.Atoi(k.Value)
		from++
	}
	p.starts = append(p.starts, strconv.Itoa(from))
	out := &dynamodb.ScanOutput{}
	for i := from; i < min(from+2, p.n); i++ {
		out.Items = append(out.Items, map[string]types.AttributeValue{"id": &types.AttributeValueMemberN{Value: strconv.Itoa(i)}})
	}
	if from+2 < p.n {
		out.LastEvaluatedKey = map[string]types.AttributeValue{"id": &types.AttributeValueMemberN{Value: strconv.Itoa(from + 1)}}
	}
	return out, nil
}

func TestScan(t *testing.T) {
	t.Parallel()
	collect := func(db *pages, max int) ([]string, error) {
		var got []string
		in := &dynamodb.ScanInput{}
		err := dynamo.Scan(context.Background(), db, in, max, func(it map[string]types.AttributeValue) error {
			got = append(got, it["id"].(*types.AttributeValueMemberN).Value)
			return nil
		})
		if in.ExclusiveStartKey != nil {
			t.Fatal("Scan modified the caller's input")
		}
		return got, err
	}
	t.Run("every page", func(t *testing.T) {
		got, err := collect(&pages{n: 5}, 10)
		if err != nil || len(got) != 5 || got[0] != "0" || got[4] != "4" {
			t.Fatalf("got %v, %v", got, err)
		}
	})
	t.Run("an empty table", func(t *testing.T) {
		if got, err := collect(&pages{}, 10); err != nil || len(got) != 0 {
			t.Fatalf("got %v, %v", got, err)
		}
	})
	t.Run("more pages than allowed", func(t *testing.T) {
		db := &pages{n: 7}
		got, err := collect(db, 3)
		if !errors.Is(err, dynamo.ErrTooManyPages) || len(got) != 6 || len(db.starts) != 3 {
			t.Fatalf("got %v after %d pages, err %v", got, len(db.starts), err)
		}
	})
	t.Run("fn's error stops the scan", func(t *testing.T) {
		stop := errors.New("stop")
		n := 0
		err := dynamo.Scan(context.Background(), &pages{n: 5}, &dynamodb.ScanInput{}, 10,
			func(map[string]types.AttributeValue) error { n++; return stop })
		if !errors.Is(err, stop) || n != 1 {
			t.Fatalf("err %v after %d items", err, n)
		}
	})
}

func TestListDecodesAndSorts(t *testing.T) {
	t.Parallel()
	decode := func(av map[string]types.AttributeValue) (int, error) {
		return strconv.Atoi(av["id"].(*types.AttributeValueMemberN).Value)
	}
	got, err := dynamo.ScanAll(context.Background(), &pages{n: 5}, &dynamodb.ScanInput{}, 10, decode,
		func(a, b int) int { return b - a })
	if err != nil || fmt.Sprint(got) != "[4 3 2 1 0]" {
		t.Fatalf("List = %v, %v; want every item, largest first", got, err)
	}
	boom := errors.New("boom")
	if _, err := dynamo.ScanAll(context.Background(), &pages{n: 5}, &dynamodb.ScanInput{}, 10,
		func(map[string]types.AttributeValue) (int, error) { return 0, boom }, func(a, b int) int { return a - b }); !errors.Is(err, boom) {
		t.Fatalf("a decode error: %v", err)
	}
}
