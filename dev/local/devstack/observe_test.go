package devstack

import (
	"maps"
	"sync"
	"testing"
)

func TestAWSCallsSumsTheRunnersLines(t *testing.T) {
	t.Parallel()
	var c AWSCalls
	lines := []string{
		`{"level":"INFO","msg":"aws calls","aws_calls":{"DynamoDB.UpdateItem":2,"SQS.SendMessageBatch":1},"aws_calls_total":3}`,
		`{"level":"INFO","msg":"stage succeeded","item_id":"a"}`,
		`{"msg":"aws calls","aws_calls":{"DynamoDB.UpdateItem":3}}`,
		`not json but mentions "aws_calls"`,
		`2026/11/22 03:25:31 failed to GET http://127.0.0.1/2018-06-01/runtime/invocation/next`,
	}
	var wg sync.WaitGroup
	for range 4 { // concurrent observers, as the Lambda service's log readers are
		wg.Go(func() {
			for _, l := range lines {
				c.Observe("FetchFunc", l)
			}
		})
	}
	wg.Wait()
	want := map[string]int64{"DynamoDB.UpdateItem": 20, "SQS.SendMessageBatch": 4}
	if got := c.Snapshot(); !maps.Equal(got, want) {
		t.Fatalf("got %v, want %v", got, want)
	}
	var empty AWSCalls
	if got := empty.Snapshot(); len(got) != 0 {
		t.Fatalf("zero value: %v", got)
	}
}
