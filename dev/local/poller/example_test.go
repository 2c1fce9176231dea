package poller_test

import (
	"errors"
	"fmt"
	"maps"
	"slices"
	"testing"

	"github.com/triagehq/triage/dev/local/poller"
)

func ExampleParseBatchResponse() {
	batch := map[string]bool{"m1": true, "m2": true, "m3": true}

	failed, err := poller.ParseBatchResponse([]byte(`{"batchItemFailures":[{"itemIdentifier":"m2"}]}`), batch)
	fmt.Println(slices.Sorted(maps.Keys(failed)), err)

	failed, err = poller.ParseBatchResponse([]byte(`{"batchItemFailures":[]}`), batch)
	fmt.Println(len(failed), err)

	_, err = poller.ParseBatchResponse([]byte(`{"batchItemFailures":[{"itemIdentifier":"m9"}]}`), batch)
	fmt.Println(errors.Is(err, poller.ErrInvalidResponse))
	// Output:
	// [m2] <nil>
	// 0 <nil>
	// true
}

// FuzzParseBatchResponse checks that any function response either fails
// the whole batch or names only records of the batch.
func FuzzParseBatchResponse(f *testing.F) {
	for _, s := range []string{``, `null`, `{}`, `{"batchItemFailures":[{"itemIdentifier":"a"}]}`,
		`{"batchItemFailures":[{"itemIdentifier":""}]}`, `[1]`, `{"batchItemFailures":[null,{"itemIdentifier":7}]}`} {
		f.Add([]byte(s))
	}
	ids := map[string]bool{"a": true, "b": true}
	f.Fuzz(func(t *testing.T, payload []byte) {
		failed, err := poller.ParseBatchResponse(payload, ids)
		if err != nil {
			if !errors.Is(err, poller.ErrInvalidResponse) || failed != nil {
				t.Fatalf("err %v with failed %v", err, failed)
			}
			return
		}
		for id := range failed {
			if !ids[id] {
				t.Fatalf("failed id %q is not in the batch", id)
			}
		}
	})
}
