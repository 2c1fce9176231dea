//go:build unix

package moto_test

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"strings"
	"testing"

	"github.com/triagehq/triage/dev/local/moto"
)

// ddb sends one DynamoDB JSON request to a moto_server, signed as the SDK
// signs it (moto checks only the service in the credential scope), and
// returns the status and the body with the fields that differ between two
// servers by time alone taken out.
func ddb(t *testing.T, url, op, body string) (int, string) {
	t.Helper()
	req, err := http.NewRequestWithContext(t.Context(), http.MethodPost, url, strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Content-Type", "application/x-amz-json-1.0")
	req.Header.Set("X-Amz-Target", "DynamoDB_20120810."+op)
	req.Header.Set("Authorization", "AWS4-HMAC-SHA256 Credential=test/20261127/us-east-1/dynamodb/aws4_request, "+
		"SignedHeaders=host;x-amz-date;x-amz-target, Signature=0")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	raw, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	var v any
	if err := json.Unmarshal(raw, &v); err != nil {
		return resp.StatusCode, string(raw)
	}
	scrub(v)
	out, _ := json.Marshal(v) // sorted keys: a canonical form
	return resp.StatusCode, string(out)
}

// scrub drops the timestamps a table description carries.
func scrub(v any) {
	switch x := v.(type) {
	case map[string]any:
		for k, e := range x {
			if strings.HasSuffix(k, "DateTime") || k == "LatestStreamLabel" || k == "LatestStreamArn" {
				delete(x, k)
				continue
			}
			scrub(e)
		}
	case []any:
		for _, e := range x {
			scrub(e)
		}
	}
}

// exprScript is the conversation both servers have: every kind of update
// expression moto parses (SET with functions, arithmetic and nested paths,
// REMOVE, ADD, DELETE, list indexes), each return-values choice, the
// errors the patched passes raise (two clauses of a kind, overlapping
// paths, a key attribute, an unused or missing placeholder, a syntax error —
// each twice, since a failed parse is not kept), expressions repeated on
// other items (the kept parse), conditions that pass and fail with the old
// item returned, transactions that commit and that are cancelled, and the
// reads that see the result: GetItem, Query on the table and on both
// indexes forward and backward in pages of two, Scan.
func exprScript() [][2]string {
	var steps [][2]string
	add := func(op, body string) { steps = append(steps, [2]string{op, body}) }
	add("CreateTable", `{"TableName":"items","BillingMode":"PAY_PER_REQUEST",
		"AttributeDefinitions":[{"AttributeName":"id","AttributeType":"S"},{"AttributeName":"part","AttributeType":"S"},
			{"AttributeName":"list_key","AttributeType":"S"},{"AttributeName":"list_at","AttributeType":"N"}],
		"KeySchema":[{"AttributeName":"id","KeyType":"HASH"},{"AttributeName":"part","KeyType":"RANGE"}],
		"GlobalSecondaryIndexes":[
			{"IndexName":"by-state","KeySchema":[{"AttributeName":"list_key","KeyType":"HASH"},{"AttributeName":"list_at","KeyType":"RANGE"}],
				"Projection":{"ProjectionType":"KEYS_ONLY"}},
			{"IndexName":"by-state-all","KeySchema":[{"AttributeName":"list_key","KeyType":"HASH"},{"AttributeName":"list_at","KeyType":"RANGE"}],
				"Projection":{"ProjectionType":"ALL"}}]}`)
	for i := range 12 {
		add("PutItem", fmt.Sprintf(`{"TableName":"items","Item":{"id":{"S":"i%d"},"part":{"S":"state"},"n":{"N":"%d"},
			"list_key":{"S":"queued#%d"},"list_at":{"N":"%d"},"m":{"M":{"a":{"S":"x"},"b":{"L":[{"N":"1"},{"S":"y"}]}}},
			"ss":{"SS":["a","b","c"]},"l":{"L":[{"S":"first"}]},"attempts":{"M":{"fetch":{"N":"1"}}},"bin":{"B":"aGVsbG8="},"bs":{"BS":["aGk=","eW8="]},"mb":{"M":{"b":{"B":"aGk="},"t":{"BOOL":false}}}}}`, i, i, i%2, 100-i))
	}
	// The pipeline's shape: a long SET with a condition on a token, as a
	// claim is, repeated on every item (the parse is kept), one condition
	// failing with the old item returned.
	claim := `"UpdateExpression":"SET #st = :working, lease_owner = :owner, lease_until = :until, attempts.#stage = if_not_exists(attempts.#stage, :zero), n = n + :one, list_key = :lk, list_at = :at, last_write = :tok, carrier = :owner, history = list_append(if_not_exists(history, :empty), :h) REMOVE not_before, parked",
		"ConditionExpression":"attribute_exists(id) AND (attribute_not_exists(lease_until) OR lease_until < :now) AND n < :limit",
		"ExpressionAttributeNames":{"#st":"state","#stage":"llm"}`
	for i := range 7 {
		for _, rv := range []string{"ALL_NEW", "ALL_OLD", "UPDATED_OLD", "UPDATED_NEW", "NONE"} {
			add("UpdateItem", fmt.Sprintf(`{"TableName":"items","Key":{"id":{"S":"i%d"},"part":{"S":"state"}},%s,
				"ExpressionAttributeValues":{":working":{"S":"working"},":owner":{"S":"m%d#%s"},":until":{"N":"%d"},":zero":{"N":"0"},
					":one":{"N":"1"},":lk":{"S":"working#%d"},":at":{"N":"%d"},":tok":{"S":"tok-%d-%s"},":empty":{"L":[]},
					":h":{"L":[{"S":"%s"}]},":now":{"N":"50"},":limit":{"N":"9"}},
				"ReturnValues":"%s","ReturnValuesOnConditionCheckFailure":"ALL_OLD"}`, i, claim, i, rv, 40+i, i%2, 200+i, i, rv, rv, rv))
		}
	}
	for _, e := range []struct{ expr, names, values string }{
		{"SET m.a = :v, m.b[1] = :w, m.c = :map, l[0] = :v ADD n :one, ss :more DELETE ss :less", ``,
			`":v":{"S":"v"},":w":{"N":"7"},":map":{"M":{"k":{"BOOL":true}}},":one":{"N":"1"},":more":{"SS":["d"]},":less":{"SS":["a"]}`},
		{"SET #a = :v REMOVE m.b[0], l[0]", `"#a":"new"`, `":v":{"NULL":true}`},
		{"SET n = n - :one, nn = if_not_exists(nn, :one) + :one", ``, `":one":{"N":"1"}`},
		{"ADD newset :s, newn :one", ``, `":s":{"NS":["1","2"]},":one":{"N":"1"}`},
		{"SET a = :v SET b = :v", ``, `":v":{"S":"v"}`},                  // two SET clauses
		{"ADD n :one ADD n2 :one", ``, `":one":{"N":"1"}`},               // two ADD clauses
		{"REMOVE a REMOVE b", ``, ``},                                    // two REMOVE clauses
		{"SET m.a = :v, m = :map", ``, `":v":{"S":"v"},":map":{"M":{}}`}, // overlapping paths
		{"SET part = :v", ``, `":v":{"S":"v"}`},                          // a key attribute
		{"SET a = :v", ``, `":v":{"S":"v"},":unused":{"S":"u"}`},         // an unused value
		{"SET a = :missing", ``, `":v":{"S":"v"}`},                       // a missing value
		{"SET a = = :v", ``, `":v":{"S":"v"}`},                           // a syntax error
		{"SET a = :v, b = size(m)", ``, `":v":{"S":"v"}`},                // a function the update grammar lacks
		{"SET ss = list_append(ss, :v)", ``, `":v":{"L":[{"S":"v"}]}`},   // a type mismatch
	} {
		for _, id := range []string{"i1", "i2", "new"} {
			body := fmt.Sprintf(`{"TableName":"items","Key":{"id":{"S":%q},"part":{"S":"state"}},"UpdateExpression":%q,"ReturnValues":"ALL_NEW"`, id, e.expr)
			if e.names != "" {
				body += `,"ExpressionAttributeNames":{` + e.names + `}`
			}
			if e.values != "" {
				body += `,"ExpressionAttributeValues":{` + e.values + `}`
			}
			add("UpdateItem", body+"}")
		}
	}
	// Conditions of every form the lexer reads, each against two items (the
	// kept tokens) and, for the failing ones, twice: functions, IN,
	// BETWEEN, NOT, nested paths and list indexes, a syntax error, a
	// reserved word, a placeholder left undefined.
	for _, c := range []struct{ cond, names, values string }{
		{"begins_with(list_key, :q) AND size(l) < :n AND contains(ss, :a) AND NOT attribute_exists(nope)", ``,
			`":q":{"S":"queued"},":n":{"N":"9"},":a":{"S":"a"}`},
		{"n IN (:n, :one, :two) OR n BETWEEN :one AND :n", ``, `":n":{"N":"9"},":one":{"N":"1"},":two":{"N":"2"}`},
		{"m.a = :x AND m.b[1] = :y AND (attempts.#f >= :one)", `"#f":"fetch"`, `":y":{"S":"y"},":one":{"N":"1"}`},
		{"attribute_type(m, :mtype) AND #n <> :n", `"#n":"n"`, `":mtype":{"S":"M"},":n":{"N":"9"}`},
		{"attribute_exists(id) AND", ``, ``},
		{"size = :n", ``, `":n":{"N":"9"}`},
		{"n = :undefined", ``, ``},
	} {
		for _, id := range []string{"i8", "i9", "i8"} {
			body := fmt.Sprintf(`{"TableName":"items","Key":{"id":{"S":%q},"part":{"S":"state"}},"UpdateExpression":"SET c = :x",
				"ConditionExpression":%q,"ReturnValues":"UPDATED_NEW","ReturnValuesOnConditionCheckFailure":"ALL_OLD",
				"ExpressionAttributeValues":{":x":{"S":"x"}`, id, c.cond)
			if c.values != "" {
				body += "," + c.values
			}
			body += "}"
			if c.names != "" {
				body += `,"ExpressionAttributeNames":{` + c.names + "}"
			}
			add("UpdateItem", body+"}")
		}
	}
	// Transactions: one that commits, one cancelled by its condition check
	// (the update before it undone), one naming an item twice.
	txUpdate := `{"Update":{"TableName":"items","Key":{"id":{"S":"i3"},"part":{"S":"state"}},"UpdateExpression":"SET #st = :done, list_key = :lk ADD n :one REMOVE lease_owner",
		"ExpressionAttributeNames":{"#st":"state"},"ExpressionAttributeValues":{":done":{"S":"done"},":lk":{"S":"done#0"},":one":{"N":"1"}}}}`
	add("TransactWriteItems", `{"TransactItems":[`+txUpdate+`,
		{"Put":{"TableName":"items","Item":{"id":{"S":"i3"},"part":{"S":"body"},"text":{"S":"an enrichment"}},"ConditionExpression":"attribute_not_exists(id)"}}]}`)
	add("TransactWriteItems", `{"TransactItems":[`+strings.Replace(txUpdate, `"i3"`, `"i4"`, 1)+`,
		{"ConditionCheck":{"TableName":"items","Key":{"id":{"S":"i5"},"part":{"S":"state"}},"ConditionExpression":"n > :big",
			"ExpressionAttributeValues":{":big":{"N":"1000"}},"ReturnValuesOnConditionCheckFailure":"ALL_OLD"}}]}`)
	add("TransactWriteItems", `{"TransactItems":[`+txUpdate+`,`+txUpdate+`]}`)
	add("DeleteItem", `{"TableName":"items","Key":{"id":{"S":"i6"},"part":{"S":"state"}},"ConditionExpression":"n = :n",
		"ExpressionAttributeValues":{":n":{"N":"-1"}},"ReturnValuesOnConditionCheckFailure":"ALL_OLD"}`)
	// The reads.
	for i := range 7 {
		add("GetItem", fmt.Sprintf(`{"TableName":"items","Key":{"id":{"S":"i%d"},"part":{"S":"state"}},"ConsistentRead":true}`, i))
	}
	add("GetItem", `{"TableName":"items","Key":{"id":{"S":"new"},"part":{"S":"state"}}}`)
	for _, index := range []string{"by-state", "by-state-all"} {
		for _, key := range []string{"working#0", "working#1", "done#0", "queued#1"} {
			for _, forward := range []string{"true", "false"} {
				start := ""
				for range 5 { // pages of two, each from the previous answer's LastEvaluatedKey
					add("Query", fmt.Sprintf(`{"TableName":"items","IndexName":%q,"KeyConditionExpression":"list_key = :k AND list_at > :lo",
						"ExpressionAttributeValues":{":k":{"S":%q},":lo":{"N":"0"}},"ScanIndexForward":%s,"Limit":2%s}`, index, key, forward, start))
					start = "@page"
				}
			}
		}
	}
	add("Query", `{"TableName":"items","KeyConditionExpression":"id = :id","ExpressionAttributeValues":{":id":{"S":"i3"}},"ScanIndexForward":false}`)
	add("Query", `{"TableName":"items","KeyConditionExpression":"id = :id","FilterExpression":"n > :n","ExpressionAttributeValues":{":id":{"S":"i1"},":n":{"N":"0"}}}`)
	add("Scan", `{"TableName":"items"}`)
	return steps
}

// TestExpressionPatchesAnswerAsInstalled: the patches to moto's update
// expressions (python/sitecustomize.py, 5) change its cost, never its
// answers — every request of exprScript gets the same status and body from
// the patched moto as from moto as installed, and the patched one says it
// is patched.
func TestExpressionPatchesAnswerAsInstalled(t *testing.T) {
	t.Parallel()
	patched, installed := start(t, moto.Options{DynamoDB: moto.DynamoDBMoto}), start(t, moto.Options{Unpatched: true, DynamoDB: moto.DynamoDBMoto})
	if !strings.Contains(patched.Log(), moto.ExpressionsPatchedLine) {
		t.Fatalf("moto's log does not say the expressions are patched:\n%s", patched.Log())
	}
	if strings.Contains(installed.Log(), moto.ExpressionsPatchedLine) {
		t.Fatalf("moto as installed says it is patched:\n%s", installed.Log())
	}
	last := map[string]string{} // server -> the previous answer's LastEvaluatedKey
	var failures, errorsSeen, pages int
	for i, step := range exprScript() {
		op, body := step[0], step[1]
		var got [2]string
		var status [2]int
		for j, srv := range []*moto.Server{patched, installed} {
			b := body
			if strings.Contains(body, "@page") {
				if last[srv.URL] == "" {
					continue // the previous page was the last
				}
				b = strings.Replace(body, "@page", `,"ExclusiveStartKey":`+last[srv.URL], 1)
				pages++
			}
			status[j], got[j] = ddb(t, srv.URL, op, b)
			if op == "Query" {
				var out struct{ LastEvaluatedKey json.RawMessage }
				_ = json.Unmarshal([]byte(got[j]), &out)
				last[srv.URL] = string(out.LastEvaluatedKey)
			}
		}
		if testing.Verbose() {
			t.Logf("%d %s %d %.300s", i, op, status[0], got[0])
		}
		if status != [2]int{} && status[0] >= 400 {
			errorsSeen++
		}
		if status[0] != status[1] || got[0] != got[1] {
			failures++
			t.Errorf("step %d %s %s:\npatched      %d %s\nas installed %d %s", i, op, body, status[0], got[0], status[1], got[1])
			if failures > 5 {
				t.FailNow()
			}
		}
	}
	// The script must reach what it means to test: errors and paging.
	if errorsSeen < 15 || pages < 10 {
		t.Fatalf("the script reached %d errors and %d follow-up pages; it is meant to reach both", errorsSeen, pages)
	}
}
