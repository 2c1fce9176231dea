package store_test

import (
	"testing"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/triagehq/triage/internal/store"
)

// TestItemSizeRules pins ItemSize to DynamoDB's documented sizes, one
// attribute type a row: the attribute's name counts, then its value.
func TestItemSizeRules(t *testing.T) {
	t.Parallel()
	tests := map[string]struct {
		v    types.AttributeValue
		want int
	}{
		"string, UTF-8 bytes":        {&types.AttributeValueMemberS{Value: "héllo"}, 6},
		"number, two digits a byte":  {&types.AttributeValueMemberN{Value: "123.45"}, 4},
		"number, zeroes not counted": {&types.AttributeValueMemberN{Value: "-0.00100"}, 2},
		"binary, raw bytes":          {&types.AttributeValueMemberB{Value: []byte{1, 2, 3}}, 3},
		"boolean":                    {&types.AttributeValueMemberBOOL{Value: true}, 1},
		"null":                       {&types.AttributeValueMemberNULL{Value: true}, 1},
		"list, 3 plus a byte each": {&types.AttributeValueMemberL{Value: []types.AttributeValue{
			&types.AttributeValueMemberS{Value: "ab"}, &types.AttributeValueMemberN{Value: "7"}}}, 3 + 3 + 3},
		"map, names count": {&types.AttributeValueMemberM{Value: map[string]types.AttributeValue{
			"key": &types.AttributeValueMemberS{Value: "v"}}}, 3 + 3 + 1 + 1},
		"string set": {&types.AttributeValueMemberSS{Value: []string{"ab", "cde"}}, 5},
		"number set": {&types.AttributeValueMemberNS{Value: []string{"1", "100", "12345"}}, 2 + 2 + 4},
		"binary set": {&types.AttributeValueMemberBS{Value: [][]byte{{1}, {2, 3}}}, 3},
		"empty set":  {&types.AttributeValueMemberSS{}, 0},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			if got := store.ItemSize(map[string]types.AttributeValue{"attr": tc.v}); got != len("attr")+tc.want {
				t.Fatalf("ItemSize = %d, want %d (name 4 + value %d)", got, len("attr")+tc.want, tc.want)
			}
		})
	}
}
