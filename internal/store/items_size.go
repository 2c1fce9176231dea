package store

import (
	"strings"

	"github.com/aws/aws-sdk-go-v2/feature/dynamodb/attributevalue"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
)

// ItemSize is the size DynamoDB bills an item by, by its documented rules
// ("DynamoDB item sizes and formats"): the UTF-8 length of every attribute
// name plus its value — a string its UTF-8 bytes, a number one byte per two
// significant digits plus one, a binary its raw bytes, a boolean or null one
// byte, a list or map 3 bytes plus its elements and one byte per element (a
// map element's name counts too), a set the sum of its members. A write
// costs one WRU per started KB of the larger of the item before and after.
func ItemSize(av map[string]types.AttributeValue) int {
	n := 0
	for name, v := range av {
		n += len(name) + valueSize(v)
	}
	return n
}

func valueSize(v types.AttributeValue) int {
	switch t := v.(type) {
	case *types.AttributeValueMemberS:
		return len(t.Value)
	case *types.AttributeValueMemberN:
		return numberSize(t.Value)
	case *types.AttributeValueMemberB:
		return len(t.Value)
	case *types.AttributeValueMemberBOOL, *types.AttributeValueMemberNULL:
		return 1
	case *types.AttributeValueMemberL:
		n := 3
		for _, e := range t.Value {
			n += valueSize(e) + 1
		}
		return n
	case *types.AttributeValueMemberM:
		n := 3
		for k, e := range t.Value {
			n += len(k) + valueSize(e) + 1
		}
		return n
	case *types.AttributeValueMemberSS:
		return lenSum(t.Value)
	case *types.AttributeValueMemberNS:
		n := 0
		for _, s := range t.Value {
			n += numberSize(s)
		}
		return n
	case *types.AttributeValueMemberBS:
		return lenSum(t.Value)
	}
	return 0
}

// lenSum is the size of a string or binary set: its members' lengths.
func lenSum[T string | []byte](members []T) int {
	n := 0
	for _, m := range members {
		n += len(m)
	}
	return n
}

// numberSize is one byte per two significant digits, plus one.
func numberSize(s string) int {
	s = strings.TrimLeft(s, "+-")
	if i := strings.IndexAny(s, "eE"); i >= 0 {
		s = s[:i]
	}
	// Leading and trailing zeroes are not significant (DynamoDB stores a
	// mantissa and an exponent).
	digits := strings.Trim(strings.Replace(s, ".", "", 1), "0")
	return (len(digits)+1)/2 + 1
}

// StoredSize is it's size as the item store writes it (ItemSize of its
// record).
func StoredSize(it Item) (int, error) {
	av, err := attributevalue.MarshalMap((&Items{}).record(it))
	if err != nil {
		return 0, err
	}
	return ItemSize(av), nil
}
