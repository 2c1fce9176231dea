package dynamo

import (
	"encoding/json"
	"fmt"
	"net/http"
	"strings"
)

// maxTransactItems is DynamoDB's limit on the actions of one transaction.
const maxTransactItems = 100

// action is one member of TransactItems, resolved.
type action struct {
	kind  string // Put, Update, Delete or ConditionCheck
	table string
	key   json.RawMessage
	in    map[string]json.RawMessage
	old   json.RawMessage // the item before the transaction; nil if absent
	tried bool            // a request was made for it (it may have written)
}

// transactWrite runs a TransactWriteItems on minidyn's single-item
// operations, all or nothing: each action's item is read first, the
// actions run in order (a ConditionCheck as a conditional DeleteItem), and
// when any condition fails or an action is refused every item tried is put
// back as it was. s.mu is held, so nobody sees the items in between.
// DynamoDB evaluates every condition and names each failure, so a failed
// condition does not stop the others from being evaluated.
func (s *Server) transactWrite(in map[string]json.RawMessage) result {
	actions, bad := s.transactActions(in)
	if actions == nil {
		return bad
	}
	reasons := make([]map[string]any, len(actions))
	failed := false
	for i := range actions {
		a := &actions[i]
		a.old = s.getItem(a.table, a.key)
		a.tried = true
		res := s.write(a.request())
		switch {
		case res.ok():
			reasons[i] = map[string]any{"Code": "None"}
		case res.errorType() == "ConditionalCheckFailedException":
			failed = true
			reasons[i] = map[string]any{"Code": "ConditionalCheckFailed", "Message": "The conditional request failed"}
			if str(a.in["ReturnValuesOnConditionCheckFailure"]) == "ALL_OLD" && a.old != nil {
				reasons[i]["Item"] = a.old
			}
		default:
			s.restore(actions, func(*action) bool { return true })
			return res
		}
	}
	if failed {
		s.restore(actions, func(*action) bool { return true })
		codes := make([]string, len(reasons))
		for i, r := range reasons {
			codes[i] = r["Code"].(string)
		}
		b, _ := json.Marshal(map[string]any{
			"__type":              "com.amazonaws.dynamodb.v20120810#TransactionCanceledException",
			"message":             "Transaction cancelled, please refer cancellation reasons for specific reasons [" + strings.Join(codes, ", ") + "]",
			"CancellationReasons": reasons,
		})
		return result{status: http.StatusBadRequest, body: b}
	}
	// A ConditionCheck ran as a conditional delete: its item goes back.
	s.restore(actions, func(a *action) bool { return a.kind == "ConditionCheck" })
	return jsonResult(map[string]any{})
}

// transactActions validates a TransactWriteItems request as DynamoDB does
// before it evaluates anything; nil and the error when it is refused.
func (s *Server) transactActions(in map[string]json.RawMessage) ([]action, result) {
	var items []map[string]map[string]json.RawMessage
	if err := json.Unmarshal(in["TransactItems"], &items); err != nil {
		return nil, errorResult(http.StatusBadRequest, "SerializationException", "TransactItems: "+err.Error())
	}
	if len(items) == 0 || len(items) > maxTransactItems {
		return nil, errorResult(http.StatusBadRequest, "ValidationException",
			fmt.Sprintf("1 validation error detected: Value at 'transactItems' failed to satisfy constraint: Member must have length less than or equal to %d and greater than or equal to 1", maxTransactItems))
	}
	seen := map[string]bool{}
	actions := make([]action, 0, len(items))
	for _, item := range items {
		if len(item) != 1 {
			return nil, errorResult(http.StatusBadRequest, "ValidationException", "TransactItems can only contain one of Check, Put, Update or Delete")
		}
		var a action
		for kind, body := range item {
			a = action{kind: kind, in: body, table: str(body["TableName"])}
		}
		if s.tables[a.table] == nil {
			_, missing := s.tableOrMissing(a.table)
			return nil, missing
		}
		switch a.kind {
		case "Put":
			a.key = s.keyOf(a.table, a.in["Item"])
		case "Update", "Delete", "ConditionCheck":
			a.key = s.keyOf(a.table, a.in["Key"])
		default:
			return nil, errorResult(http.StatusBadRequest, "ValidationException", "TransactItems can only contain one of Check, Put, Update or Delete")
		}
		if a.key == nil {
			return nil, errorResult(http.StatusBadRequest, "ValidationException", "The provided key element does not match the schema")
		}
		id := a.table + "\x00" + canonical(a.key)
		if seen[id] {
			return nil, errorResult(http.StatusBadRequest, "ValidationException", "Transaction request cannot include multiple operations on one item")
		}
		seen[id] = true
		actions = append(actions, a)
	}
	return actions, result{}
}

// request is the single-item operation that applies a: its own members
// less those a transaction's action has and the operation does not take.
func (a *action) request() (string, map[string]json.RawMessage) {
	req := map[string]json.RawMessage{}
	for k, v := range a.in {
		if k != "ReturnValuesOnConditionCheckFailure" {
			req[k] = v
		}
	}
	switch a.kind {
	case "Put":
		return "PutItem", req
	case "Update":
		return "UpdateItem", req
	}
	return "DeleteItem", req
}

// restore puts back, in reverse order, the items of the tried actions that
// pick selects.
func (s *Server) restore(actions []action, pick func(*action) bool) {
	for i := len(actions) - 1; i >= 0; i-- {
		a := &actions[i]
		if !a.tried || !pick(a) {
			continue
		}
		if a.old != nil {
			// A delete first: minidyn's put keeps an item in a sparse index
			// whose key attribute it no longer has.
			s.callJSON("DeleteItem", map[string]any{"TableName": a.table, "Key": a.key})
			s.callJSON("PutItem", map[string]any{"TableName": a.table, "Item": a.old})
		} else {
			s.callJSON("DeleteItem", map[string]any{"TableName": a.table, "Key": a.key})
		}
	}
}

// canonical is a JSON value re-encoded with its object keys sorted, so
// two spellings of one key compare equal.
func canonical(raw json.RawMessage) string {
	var v any
	if err := json.Unmarshal(raw, &v); err != nil {
		return string(raw)
	}
	b, _ := json.Marshal(v)
	return string(b)
}
