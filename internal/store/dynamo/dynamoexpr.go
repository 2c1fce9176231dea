package dynamo

import (
	"strconv"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
)

// Builder accumulates expression attribute names and values. The zero value
// is not ready; use New. It is not safe for concurrent use (build one per
// request).
type Builder struct {
	// Names maps "#name" placeholders to attribute names.
	Names map[string]string
	// Values maps ":vN" placeholders to values.
	Values map[string]types.AttributeValue
}

// New returns an empty Builder.
func New() *Builder {
	return &Builder{Names: map[string]string{}, Values: map[string]types.AttributeValue{}}
}

// Name returns the placeholder for attribute n ("#n"); the same name always
// gets the same placeholder.
func (b *Builder) Name(n string) string {
	p := "#" + n
	b.Names[p] = n
	return p
}

// Value returns a new placeholder for v.
func (b *Builder) Value(v types.AttributeValue) string {
	p := ":v" + strconv.Itoa(len(b.Values))
	b.Values[p] = v
	return p
}

// Str returns a placeholder for the string s.
func (b *Builder) Str(s string) string { return b.Value(&types.AttributeValueMemberS{Value: s}) }

// Num returns a placeholder for the number n.
func (b *Builder) Num(n int64) string {
	return b.Value(&types.AttributeValueMemberN{Value: strconv.FormatInt(n, 10)})
}

// Bool returns a placeholder for the boolean v.
func (b *Builder) Bool(v bool) string { return b.Value(&types.AttributeValueMemberBOOL{Value: v}) }

// Below is the condition "the count in attr is below limit", an absent
// attribute counting as 0 (below any positive limit): a failure streak's
// counting update holds it, the update that trips the record holds its NOT.
func (b *Builder) Below(attr string, limit int) string {
	below := b.Name(attr) + " < " + b.Num(int64(limit))
	if limit > 0 {
		below = "(attribute_not_exists(" + b.Name(attr) + ") OR " + below + ")"
	}
	return below
}
