package dynamo_test

import (
	"fmt"

	"github.com/triagehq/triage/internal/store/dynamo"
)

func Example() {
	b := dynamo.New()
	cond := b.Name("state") + " = " + b.Str("working") + " AND attempts < " + b.Num(5) + " AND " + b.Name("state") + " <> " + b.Str("done")
	fmt.Println(cond)
	fmt.Println(len(b.Names), len(b.Values))
	// Output:
	// #state = :v0 AND attempts < :v1 AND #state <> :v2
	// 1 3
}

func ExampleBuilder_Below() {
	b := dynamo.New()
	fmt.Println(b.Below("consecutive_failures", 4))
	fmt.Println(b.Below("consecutive_failures", 0))
	// Output:
	// (attribute_not_exists(#consecutive_failures) OR #consecutive_failures < :v0)
	// #consecutive_failures < :v1
}
