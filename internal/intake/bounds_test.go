package intake_test

import (
	"context"
	"testing"
	"time"

	"github.com/triagehq/triage/internal/store"
)

// TestTheLargestSpecFitsTheItemStore: a spec with every field at its
// limit — four-byte characters where characters are counted — is valid,
// the store creates its item, and the item stays small.
func TestTheLargestSpecFitsTheItemStore(t *testing.T) {
	t.Parallel()
	spec := largestSpec()
	spec.Kind = store.KindAction
	if err := spec.Validate(); err != nil {
		t.Fatalf("the largest spec is invalid: %v", err)
	}
	it, err := store.NewMemory().Create(context.Background(), spec.NewItem("m#1", time.Unix(1_800_000_000, 0)))
	if err != nil {
		t.Fatalf("the store refuses the largest valid spec: %v", err)
	}
	if n, err := store.StoredSize(it); err != nil || n > 64<<10 {
		t.Fatalf("the largest created item is %d bytes (%v)", n, err)
	}
}
