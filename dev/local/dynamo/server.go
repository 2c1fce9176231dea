package dynamo

import (
	"bytes"
	"encoding/json"
	"fmt"
	"hash/crc32"
	"io"
	"maps"
	"net/http"
	"slices"
	"sort"
	"strconv"
	"strings"
	"sync"
	"time"

	minidyn "github.com/truora/minidyn/server"
)

// Options configure New.
type Options struct {
	// Region and AccountID name the tables' ARNs; defaults "us-east-1" and
	// "123456789012".
	Region, AccountID string
}

// Server is the local DynamoDB: an http.Handler for the DynamoDB JSON
// protocol (POST, X-Amz-Target "DynamoDB_20120810.<Operation>").
type Server struct {
	opts Options

	// mu runs one request at a time (see the package doc).
	mu     sync.Mutex
	engine *minidyn.Server
	tables map[string]*table
}

// table is what the handler records of a table minidyn holds: what minidyn
// does not keep or does not describe.
type table struct {
	keys      []string // the primary key's attribute names, hash first
	indexKeys []string // the key attributes of its secondary indexes
	attrDefs  json.RawMessage
	billing   string
	created   time.Time
	ttlAttr   string
	ttlOn     bool
	pitrOn    bool
	streamArn string
}

// New returns an empty local DynamoDB.
func New(opts Options) *Server {
	if opts.Region == "" {
		opts.Region = "us-east-1"
	}
	if opts.AccountID == "" {
		opts.AccountID = "123456789012"
	}
	return &Server{opts: opts, engine: minidyn.NewServer(), tables: map[string]*table{}}
}

// Reset drops every table.
func (s *Server) Reset() {
	s.mu.Lock()
	defer s.mu.Unlock()
	_ = s.engine.Reset()
	s.tables = map[string]*table{}
}

// TargetPrefix starts the X-Amz-Target of every DynamoDB request.
const TargetPrefix = "DynamoDB_20120810."

// ServeHTTP answers one DynamoDB request.
func (s *Server) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	op, ok := strings.CutPrefix(r.Header.Get("X-Amz-Target"), TargetPrefix)
	if r.Method != http.MethodPost || !ok {
		writeError(w, http.StatusBadRequest, "UnknownOperationException", "the local DynamoDB takes POST with X-Amz-Target "+TargetPrefix+"<Operation>")
		return
	}
	body, err := io.ReadAll(r.Body)
	if err != nil {
		writeError(w, http.StatusBadRequest, "SerializationException", "read body: "+err.Error())
		return
	}
	var in map[string]json.RawMessage
	if err := json.Unmarshal(body, &in); err != nil {
		writeError(w, http.StatusBadRequest, "SerializationException", "body is not a JSON object: "+err.Error())
		return
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	s.serve(op, body, in).write(w)
}

// write sends r with the headers DynamoDB sends: the SDK checks the body
// against X-Amz-Crc32.
func (r result) write(w http.ResponseWriter) {
	w.Header().Set("Content-Type", "application/x-amz-json-1.0")
	w.Header().Set("X-Amz-Crc32", strconv.FormatUint(uint64(crc32.ChecksumIEEE(r.body)), 10))
	w.WriteHeader(r.status)
	_, _ = w.Write(r.body)
}

// result is a DynamoDB answer: its HTTP status and JSON body.
type result struct {
	status int
	body   []byte
}

func (r result) ok() bool { return r.status == http.StatusOK }

// errorType is the exception an error result names, without the
// "com.amazonaws.dynamodb.v20120810#" namespace; "" for a success.
func (r result) errorType() string {
	if r.ok() {
		return ""
	}
	var e struct {
		Type string `json:"__type"`
	}
	_ = json.Unmarshal(r.body, &e)
	_, name, found := strings.Cut(e.Type, "#")
	if !found {
		name = e.Type
	}
	return name
}

func errorResult(status int, typ, msg string) result {
	b, _ := json.Marshal(map[string]string{"__type": "com.amazonaws.dynamodb.v20120810#" + typ, "message": msg})
	return result{status: status, body: b}
}

func writeError(w http.ResponseWriter, status int, typ, msg string) {
	errorResult(status, typ, msg).write(w)
}

func jsonResult(v any) result {
	b, err := json.Marshal(v)
	if err != nil {
		return errorResult(http.StatusInternalServerError, "InternalServerError", err.Error())
	}
	return result{status: http.StatusOK, body: b}
}

// serve answers op; s.mu is held.
func (s *Server) serve(op string, body []byte, in map[string]json.RawMessage) result {
	switch op {
	case "CreateTable":
		return s.createTable(body, in)
	case "DeleteTable":
		res := s.call(op, body)
		if res.ok() {
			delete(s.tables, str(in["TableName"]))
		}
		return res
	case "DescribeTable":
		return s.describeTable(body, in)
	case "ListTables":
		return s.listTables(in)
	case "UpdateTimeToLive", "DescribeTimeToLive":
		return s.timeToLive(op, in)
	case "UpdateContinuousBackups", "DescribeContinuousBackups":
		return s.continuousBackups(op, in)
	case "TransactWriteItems":
		return s.transactWrite(in)
	case "PutItem", "DeleteItem", "UpdateItem":
		return s.write(op, in)
	case "Query", "Scan":
		return s.search(op, body, in)
	case "UpdateTable", "GetItem", "BatchGetItem", "BatchWriteItem", "TransactGetItems":
		return s.call(op, body)
	}
	return errorResult(http.StatusBadRequest, "UnknownOperationException", "the local DynamoDB does not implement "+op)
}

// call hands one request to minidyn and returns its answer.
func (s *Server) call(op string, body []byte) result {
	req, _ := http.NewRequest(http.MethodPost, "/", bytes.NewReader(body))
	req.Header.Set("X-Amz-Target", TargetPrefix+op)
	rec := &recorder{header: http.Header{}, status: http.StatusOK}
	s.engine.ServeHTTP(rec, req)
	if rec.status == http.StatusOK || json.Valid(bytes.TrimSpace(rec.buf.Bytes())) {
		return result{status: rec.status, body: bytes.TrimSpace(rec.buf.Bytes())}
	}
	// minidyn answers some refusals in plain text ("unsupported
	// operation"); the SDK reads only DynamoDB's JSON error shape.
	return errorResult(rec.status, "ValidationException", strings.TrimSpace(rec.buf.String()))
}

// callJSON marshals in and calls op.
func (s *Server) callJSON(op string, in any) result {
	b, err := json.Marshal(in)
	if err != nil {
		return errorResult(http.StatusInternalServerError, "InternalServerError", err.Error())
	}
	return s.call(op, b)
}

// recorder is the http.ResponseWriter minidyn writes an answer into.
type recorder struct {
	header http.Header
	status int
	wrote  bool
	buf    bytes.Buffer
}

func (r *recorder) Header() http.Header { return r.header }
func (r *recorder) Write(p []byte) (int, error) {
	r.wrote = true
	return r.buf.Write(p)
}
func (r *recorder) WriteHeader(code int) {
	if !r.wrote {
		r.status, r.wrote = code, true
	}
}

// str decodes a JSON string, "" when raw is not one.
func str(raw json.RawMessage) string {
	var v string
	_ = json.Unmarshal(raw, &v)
	return v
}

func (s *Server) arn(name string) string {
	return fmt.Sprintf("arn:aws:dynamodb:%s:%s:table/%s", s.opts.Region, s.opts.AccountID, name)
}

func (s *Server) createTable(body []byte, in map[string]json.RawMessage) result {
	var spec struct {
		TableName string
		KeySchema []struct {
			AttributeName string
			KeyType       string
		}
		BillingMode            string
		GlobalSecondaryIndexes []struct {
			KeySchema []struct{ AttributeName string }
		}
		LocalSecondaryIndexes []struct {
			KeySchema []struct{ AttributeName string }
		}
	}
	if err := json.Unmarshal(body, &spec); err != nil {
		return errorResult(http.StatusBadRequest, "SerializationException", err.Error())
	}
	res := s.call("CreateTable", body)
	if !res.ok() {
		return res
	}
	t := &table{attrDefs: in["AttributeDefinitions"], billing: spec.BillingMode, created: time.Now()}
	if t.billing == "" {
		t.billing = "PROVISIONED"
	}
	for _, k := range spec.KeySchema {
		if k.KeyType == "HASH" {
			t.keys = append([]string{k.AttributeName}, t.keys...)
		} else {
			t.keys = append(t.keys, k.AttributeName)
		}
	}
	for _, idx := range append(spec.GlobalSecondaryIndexes, spec.LocalSecondaryIndexes...) {
		for _, k := range idx.KeySchema {
			t.indexKeys = append(t.indexKeys, k.AttributeName)
		}
	}
	s.tables[spec.TableName] = t
	return s.described(res, "TableDescription", spec.TableName)
}

func (s *Server) describeTable(body []byte, in map[string]json.RawMessage) result {
	return s.described(s.call("DescribeTable", body), "Table", str(in["TableName"]))
}

// described adds to minidyn's description of a table what it leaves out:
// the status (a local table is ACTIVE at once), the ARN, the attribute
// definitions, the billing mode and the creation time.
func (s *Server) described(res result, member, name string) result {
	t := s.tables[name]
	if !res.ok() || t == nil {
		return res
	}
	var out map[string]map[string]any
	if err := json.Unmarshal(res.body, &out); err != nil || out[member] == nil {
		return res
	}
	d := out[member]
	d["TableStatus"] = "ACTIVE"
	d["TableArn"] = s.arn(name)
	d["CreationDateTime"] = float64(t.created.UnixMilli()) / 1000
	if len(t.attrDefs) > 0 {
		d["AttributeDefinitions"] = t.attrDefs
	}
	d["BillingModeSummary"] = map[string]string{"BillingMode": t.billing}
	if idx, ok := d["GlobalSecondaryIndexes"].([]any); ok {
		for _, g := range idx {
			if g, ok := g.(map[string]any); ok {
				g["IndexStatus"] = "ACTIVE"
				g["IndexArn"] = s.arn(name) + "/index/" + fmt.Sprint(g["IndexName"])
			}
		}
	}
	return jsonResult(out)
}

func (s *Server) listTables(in map[string]json.RawMessage) result {
	var limit int
	_ = json.Unmarshal(in["Limit"], &limit)
	if limit <= 0 || limit > 100 {
		limit = 100
	}
	start := str(in["ExclusiveStartTableName"])
	names := make([]string, 0, len(s.tables))
	for n := range s.tables {
		if n > start {
			names = append(names, n)
		}
	}
	sort.Strings(names)
	out := map[string]any{}
	if len(names) > limit {
		names = names[:limit]
		out["LastEvaluatedTableName"] = names[limit-1]
	}
	out["TableNames"] = names
	return jsonResult(out)
}

func (s *Server) tableOrMissing(name string) (*table, result) {
	t := s.tables[name]
	if t == nil {
		return nil, errorResult(http.StatusBadRequest, "ResourceNotFoundException", "Requested resource not found: Table: "+name+" not found")
	}
	return t, result{}
}

// timeToLive records a table's TTL setting and describes it. Nothing
// expires: the local stack, like moto, keeps every item.
func (s *Server) timeToLive(op string, in map[string]json.RawMessage) result {
	t, missing := s.tableOrMissing(str(in["TableName"]))
	if t == nil {
		return missing
	}
	if op == "DescribeTimeToLive" {
		d := map[string]string{"TimeToLiveStatus": "DISABLED"}
		if t.ttlOn {
			d = map[string]string{"TimeToLiveStatus": "ENABLED", "AttributeName": t.ttlAttr}
		}
		return jsonResult(map[string]any{"TimeToLiveDescription": d})
	}
	var spec struct {
		AttributeName string
		Enabled       *bool
	}
	if err := json.Unmarshal(in["TimeToLiveSpecification"], &spec); err != nil || spec.AttributeName == "" || spec.Enabled == nil {
		return errorResult(http.StatusBadRequest, "ValidationException", "TimeToLiveSpecification needs AttributeName and Enabled")
	}
	switch {
	case *spec.Enabled && t.ttlOn:
		return errorResult(http.StatusBadRequest, "ValidationException", "TimeToLive is already enabled")
	case !*spec.Enabled && !t.ttlOn:
		return errorResult(http.StatusBadRequest, "ValidationException", "TimeToLive is already disabled")
	}
	t.ttlOn, t.ttlAttr = *spec.Enabled, spec.AttributeName
	return jsonResult(map[string]any{"TimeToLiveSpecification": map[string]any{"AttributeName": spec.AttributeName, "Enabled": *spec.Enabled}})
}

// continuousBackups records a table's point-in-time recovery setting.
func (s *Server) continuousBackups(op string, in map[string]json.RawMessage) result {
	t, missing := s.tableOrMissing(str(in["TableName"]))
	if t == nil {
		return missing
	}
	if op == "UpdateContinuousBackups" {
		var spec struct{ PointInTimeRecoveryEnabled *bool }
		if err := json.Unmarshal(in["PointInTimeRecoverySpecification"], &spec); err != nil || spec.PointInTimeRecoveryEnabled == nil {
			return errorResult(http.StatusBadRequest, "ValidationException", "PointInTimeRecoverySpecification needs PointInTimeRecoveryEnabled")
		}
		t.pitrOn = *spec.PointInTimeRecoveryEnabled
	}
	status := "DISABLED"
	if t.pitrOn {
		status = "ENABLED"
	}
	return jsonResult(map[string]any{"ContinuousBackupsDescription": map[string]any{
		"ContinuousBackupsStatus":        "ENABLED",
		"PointInTimeRecoveryDescription": map[string]string{"PointInTimeRecoveryStatus": status},
	}})
}

// write runs a PutItem, UpdateItem or DeleteItem, correcting minidyn where
// it answers differently from DynamoDB (see the package doc): the item a
// failed condition saw, contains on an absent attribute, REMOVE of a
// top-level attribute.
func (s *Server) write(op string, in map[string]json.RawMessage) result {
	tableName := str(in["TableName"])
	keySource := in["Key"]
	if op == "PutItem" {
		keySource = in["Item"]
	}
	key := s.keyOf(tableName, keySource)
	cond := str(in["ConditionExpression"])
	update, removed := "", []string(nil)
	if op == "UpdateItem" {
		update, removed = splitRemove(str(in["UpdateExpression"]))
	}
	oldOnFailure := op != "UpdateItem" && str(in["ReturnValuesOnConditionCheckFailure"]) == "ALL_OLD"
	if lower := strings.ToLower(cond); key == nil || len(removed) == 0 && !oldOnFailure && !strings.Contains(lower, "contains") && !strings.Contains(lower, "size") {
		return s.callJSON(op, in)
	}
	old := s.getItem(tableName, key)
	req := maps.Clone(in)
	var names map[string]string
	_ = json.Unmarshal(in["ExpressionAttributeNames"], &names)
	if cond != "" {
		var item map[string]map[string]any
		_ = json.Unmarshal(old, &item)
		var dropped []string
		cond, dropped = onAbsent(cond, names, item)
		req["ConditionExpression"] = jsonString(cond)
		var values map[string]json.RawMessage
		if json.Unmarshal(in["ExpressionAttributeValues"], &values) == nil && len(dropped) > 0 {
			for _, v := range dropped {
				if !mentions(v, cond, str(in["UpdateExpression"])) {
					delete(values, v)
				}
			}
			req["ExpressionAttributeValues"] = mustJSON(values)
			if len(values) == 0 {
				delete(req, "ExpressionAttributeValues")
			}
		}
	}
	if len(removed) == 0 {
		res := s.callJSON(op, req)
		if oldOnFailure && old != nil && res.errorType() == "ConditionalCheckFailedException" {
			var e map[string]json.RawMessage
			if json.Unmarshal(res.body, &e) == nil && e["Item"] == nil {
				e["Item"] = old
				res.body = mustJSON(e)
			}
		}
		return res
	}
	return s.updateRemoving(req, tableName, key, old, update, removed, names)
}

// updateRemoving applies an UpdateItem whose expression removes whole
// top-level attributes: the rest of the expression through minidyn (or,
// when nothing is left, its condition alone through a conditional delete),
// then the attributes taken out of the item and the item written back. s.mu
// is held, so nobody sees it in between. It answers the ReturnValues the
// request asked for.
func (s *Server) updateRemoving(req map[string]json.RawMessage, tableName string, key, old json.RawMessage, update string, removed []string, names map[string]string) result {
	original := str(req["UpdateExpression"])
	cond := str(req["ConditionExpression"])
	for name := range names {
		if !mentions(name, original, cond) {
			return errorResult(http.StatusBadRequest, "ValidationException", "Value provided in ExpressionAttributeNames unused in expressions: keys: {"+name+"}")
		}
	}
	attrs := make([]string, len(removed))
	for i, p := range removed {
		attrs[i] = p
		if strings.HasPrefix(p, "#") {
			if attrs[i] = names[p]; attrs[i] == "" {
				return errorResult(http.StatusBadRequest, "ValidationException", "An expression attribute name used in the document path is not defined; attribute name: "+p)
			}
		}
		if slices.Contains(s.tables[tableName].keys, attrs[i]) {
			return errorResult(http.StatusBadRequest, "ValidationException", "Cannot update attribute "+attrs[i]+". This attribute is part of the key")
		}
	}
	rv := str(req["ReturnValues"])
	delete(req, "ReturnValues")
	if update != "" {
		req["UpdateExpression"] = jsonString(update)
		req["ExpressionAttributeNames"] = namesMentioned(names, update, cond)
		if res := s.callJSON("UpdateItem", req); !res.ok() {
			return res
		}
	} else if cond != "" {
		check := map[string]json.RawMessage{"TableName": req["TableName"], "Key": key, "ConditionExpression": req["ConditionExpression"],
			"ExpressionAttributeNames": namesMentioned(names, cond)}
		for _, m := range []string{"ExpressionAttributeValues", "ReturnValuesOnConditionCheckFailure"} {
			if req[m] != nil {
				check[m] = req[m]
			}
		}
		if res := s.write("DeleteItem", check); !res.ok() { // write: the item on a failure
			return res
		}
	}
	base := old
	if update != "" {
		base = s.getItem(tableName, key)
	}
	if base == nil {
		base = key
	}
	var item map[string]json.RawMessage
	_ = json.Unmarshal(base, &item)
	for _, a := range attrs {
		delete(item, a)
	}
	newItem := mustJSON(item)
	// minidyn's put keeps an item in a sparse index whose key attribute it
	// no longer has, so an item that loses one is deleted first. Not
	// always: a new key costs minidyn a sort of the table's keys.
	for _, a := range attrs {
		if slices.Contains(s.tables[tableName].indexKeys, a) {
			s.callJSON("DeleteItem", map[string]any{"TableName": tableName, "Key": key})
			break
		}
	}
	if res := s.callJSON("PutItem", map[string]any{"TableName": tableName, "Item": newItem}); !res.ok() {
		return res
	}
	return returnValues(rv, old, newItem, touched(original, names))
}

// returnValues is an UpdateItem's answer for ReturnValues rv.
func returnValues(rv string, old, updated json.RawMessage, attrs []string) result {
	pick := func(raw json.RawMessage, only []string) json.RawMessage {
		var item map[string]json.RawMessage
		if json.Unmarshal(raw, &item) != nil || item == nil {
			return nil
		}
		if only != nil {
			kept := map[string]json.RawMessage{}
			for _, a := range only {
				if v, ok := item[a]; ok {
					kept[a] = v
				}
			}
			item = kept
		}
		if len(item) == 0 {
			return nil
		}
		return mustJSON(item)
	}
	var attributes json.RawMessage
	switch rv {
	case "ALL_OLD":
		attributes = pick(old, nil)
	case "ALL_NEW":
		attributes = pick(updated, nil)
	case "UPDATED_OLD":
		attributes = pick(old, attrs)
	case "UPDATED_NEW":
		attributes = pick(updated, attrs)
	}
	if attributes == nil {
		return jsonResult(map[string]any{})
	}
	return jsonResult(map[string]json.RawMessage{"Attributes": attributes})
}

// namesMentioned is the JSON of the names of names that exprs mention;
// null when none, which minidyn reads as absent.
func namesMentioned(names map[string]string, exprs ...string) json.RawMessage {
	kept := map[string]string{}
	for n, v := range names {
		if mentions(n, exprs...) {
			kept[n] = v
		}
	}
	if len(kept) == 0 {
		return json.RawMessage("null")
	}
	return mustJSON(kept)
}

func jsonString(v string) json.RawMessage { return mustJSON(v) }

func mustJSON(v any) json.RawMessage {
	b, err := json.Marshal(v)
	if err != nil {
		panic(fmt.Sprintf("dynamo: encode %T: %v", v, err)) // only maps and strings of JSON come here
	}
	return b
}

// search runs a Query or Scan; with Select COUNT the answer carries the
// count and no items, as DynamoDB's does (minidyn ignores Select).
func (s *Server) search(op string, body []byte, in map[string]json.RawMessage) result {
	res := s.call(op, body)
	if !res.ok() {
		return res
	}
	var out map[string]json.RawMessage
	if err := json.Unmarshal(res.body, &out); err != nil {
		return res
	}
	if str(in["Select"]) == "COUNT" {
		delete(out, "Items")
	}
	if _, ok := out["Count"]; !ok {
		out["Count"] = json.RawMessage("0")
	}
	if _, ok := out["ScannedCount"]; !ok && in["FilterExpression"] == nil {
		out["ScannedCount"] = out["Count"]
	}
	return jsonResult(out)
}

// keyOf picks the primary key's attributes out of item; nil when the table
// is unknown or item lacks one.
func (s *Server) keyOf(tableName string, item json.RawMessage) json.RawMessage {
	t := s.tables[tableName]
	var attrs map[string]json.RawMessage
	if t == nil || json.Unmarshal(item, &attrs) != nil {
		return nil
	}
	key := map[string]json.RawMessage{}
	for _, k := range t.keys {
		v, ok := attrs[k]
		if !ok {
			return nil
		}
		key[k] = v
	}
	b, _ := json.Marshal(key)
	return b
}

// getItem reads an item by key (strongly), nil when it is absent.
func (s *Server) getItem(tableName string, key json.RawMessage) json.RawMessage {
	if key == nil {
		return nil
	}
	res := s.callJSON("GetItem", map[string]any{"TableName": tableName, "Key": key, "ConsistentRead": true})
	var out struct{ Item json.RawMessage }
	if !res.ok() || json.Unmarshal(res.body, &out) != nil || len(out.Item) == 0 || string(out.Item) == "null" {
		return nil
	}
	return out.Item
}
