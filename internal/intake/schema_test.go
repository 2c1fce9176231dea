package intake_test

import (
	"encoding/json"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/santhosh-tekuri/jsonschema/v6"

	"github.com/triagehq/triage/dev/schematest"
	"github.com/triagehq/triage/internal/intake"
)

// schemaPath is the published contract.
var schemaPath = filepath.Join("..", "..", "docs", "item-message.schema.json")

// schemaValid validates body with the schema; a body that is not JSON is
// invalid.
func schemaValid(sch *jsonschema.Schema, body string) (bool, error) {
	inst, err := jsonschema.UnmarshalJSON(strings.NewReader(body))
	if err != nil {
		return false, err
	}
	err = sch.Validate(inst)
	return err == nil, err
}

const (
	src  = `"source_url":"https://news.example.com/a/42"`
	hook = `"webhook_url":"https://hooks.example.com/triage"`
)

// corpus is every message the schema and the code must judge alike.
var corpus = map[string]struct {
	body  string
	valid bool
}{
	"minimal":                         {`{"item_id":"story-1",` + src + `,` + hook + `}`, true},
	"every field":                     {`{"item_id":"story-1","kind":"action",` + src + `,` + hook + `,"metadata":{"team":"ops","tenant.id":"t-9"},"correlation_id":"req-7f3a"}`, true},
	"correlation_id of 256":           {`{"item_id":"s",` + src + `,` + hook + `,"correlation_id":"` + strings.Repeat("c", 256) + `"}`, true},
	"unknown fields are accepted":     {`{"item_id":"story-1",` + src + `,` + hook + `,"priority":"high","extra":{"a":[1,2]}}`, true},
	"http source, query and fragment": {`{"item_id":"s",` + `"source_url":"http://127.0.0.1:8080/a?x=1#f",` + hook + `}`, true},
	"ipv6 host":                       {`{"item_id":"s",` + `"source_url":"http://[::1]:9000/a",` + hook + `}`, true},
	"empty metadata":                  {`{"item_id":"s",` + src + `,` + hook + `,"metadata":{}}`, true},
	"colons and slashes in the id":    {`{"item_id":"task:daily/2026-11-21T06:00:00Z",` + src + `,` + hook + `}`, true},
	"id of 256":                       {`{"item_id":"` + strings.Repeat("a", 256) + `",` + src + `,` + hook + `}`, true},
	"metadata value of 256 runes":     {`{"item_id":"s",` + src + `,` + hook + `,"metadata":{"k":"` + strings.Repeat("é", 256) + `"}}`, true},
	"notices, both":                   {`{"item_id":"s","kind":"action",` + src + `,` + hook + `,"notices":{"failed":false,"retry_scheduled":true}}`, true},
	"notices, empty":                  {`{"item_id":"s",` + src + `,` + hook + `,"notices":{}}`, true},
	"notices, an unknown one":         {`{"item_id":"s",` + src + `,` + hook + `,"notices":{"failed":true,"succeeded":true}}`, true},

	"missing item_id":             {`{` + src + `,` + hook + `}`, false},
	"missing source_url":          {`{"item_id":"s",` + hook + `}`, false},
	"missing webhook_url":         {`{"item_id":"s",` + src + `}`, false},
	"empty item_id":               {`{"item_id":"",` + src + `,` + hook + `}`, false},
	"id of 257":                   {`{"item_id":"` + strings.Repeat("a", 257) + `",` + src + `,` + hook + `}`, false},
	"space in the id":             {`{"item_id":"my story",` + src + `,` + hook + `}`, false},
	"non-ASCII id":                {`{"item_id":"stóry",` + src + `,` + hook + `}`, false},
	"numeric id":                  {`{"item_id":42,` + src + `,` + hook + `}`, false},
	"null id":                     {`{"item_id":null,` + src + `,` + hook + `}`, false},
	"unknown kind":                {`{"item_id":"s","kind":"video",` + src + `,` + hook + `}`, false},
	"empty kind":                  {`{"item_id":"s","kind":"",` + src + `,` + hook + `}`, false},
	"null kind":                   {`{"item_id":"s","kind":null,` + src + `,` + hook + `}`, false},
	"ftp source":                  {`{"item_id":"s","source_url":"ftp://files.example.org/a",` + hook + `}`, false},
	"relative source":             {`{"item_id":"s","source_url":"/articles/1",` + hook + `}`, false},
	"upper-case scheme":           {`{"item_id":"s","source_url":"HTTPS://news.example.com/a",` + hook + `}`, false},
	"space in the URL":            {`{"item_id":"s","source_url":"https://news.example.com/a b",` + hook + `}`, false},
	"non-ASCII URL":               {`{"item_id":"s","source_url":"https://news.example.com/é",` + hook + `}`, false},
	"bad port":                    {`{"item_id":"s","source_url":"https://news.example.com:port/a",` + hook + `}`, false},
	"URL of 2049":                 {`{"item_id":"s","source_url":"https://news.example.com/` + strings.Repeat("a", 2049-len("https://news.example.com/")) + `",` + hook + `}`, false},
	"metadata not an object":      {`{"item_id":"s",` + src + `,` + hook + `,"metadata":["a"]}`, false},
	"metadata number value":       {`{"item_id":"s",` + src + `,` + hook + `,"metadata":{"n":1}}`, false},
	"metadata key with a space":   {`{"item_id":"s",` + src + `,` + hook + `,"metadata":{"a b":"x"}}`, false},
	"metadata value of 257 runes": {`{"item_id":"s",` + src + `,` + hook + `,"metadata":{"k":"` + strings.Repeat("é", 257) + `"}}`, false},
	"33 metadata keys":            {`{"item_id":"s",` + src + `,` + hook + `,"metadata":{` + manyKeys(33) + `}}`, false},
	"empty correlation_id":        {`{"item_id":"s",` + src + `,` + hook + `,"correlation_id":""}`, false},
	"correlation_id of 257":       {`{"item_id":"s",` + src + `,` + hook + `,"correlation_id":"` + strings.Repeat("c", 257) + `"}`, false},
	"notices not an object":       {`{"item_id":"s",` + src + `,` + hook + `,"notices":true}`, false},
	"notices null":                {`{"item_id":"s",` + src + `,` + hook + `,"notices":null}`, false},
	"notice as a string":          {`{"item_id":"s",` + src + `,` + hook + `,"notices":{"failed":"yes"}}`, false},
	"notice null":                 {`{"item_id":"s",` + src + `,` + hook + `,"notices":{"retry_scheduled":null}}`, false},
	"notice as a number":          {`{"item_id":"s",` + src + `,` + hook + `,"notices":{"failed":1}}`, false},
	"a stage: an envelope":        {`{"item_id":"s","stage":"fetch","correlation_id":"c",` + src + `,` + hook + `}`, false},
	"an array":                    {`[{"item_id":"s"}]`, false},
	"a string":                    {`"item_id"`, false},
	"null":                        {`null`, false},
	"not JSON":                    {`item_id=s`, false},
}

func manyKeys(n int) string {
	parts := make([]string, n)
	for i := range parts {
		parts[i] = `"k` + strings.Repeat("x", i) + `":"v"`
	}
	return strings.Join(parts, ",")
}

// The schema in docs/ and Decode are two statements of one contract: an
// independent validator (santhosh-tekuri/jsonschema, which passes the JSON
// Schema test suite) and the code must accept and reject the same messages.
func TestSchemaAndDecodeAgree(t *testing.T) {
	t.Parallel()
	sch := schematest.Compile(t, schemaPath)
	for name, tc := range corpus {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			bySchema, serr := schemaValid(sch, tc.body)
			_, _, derr := intake.Decode(tc.body)
			if bySchema != tc.valid {
				t.Errorf("schema says valid=%v (%v), want %v", bySchema, serr, tc.valid)
			}
			if byCode := derr == nil; byCode != tc.valid {
				t.Errorf("Decode says valid=%v (%v), want %v", byCode, derr, tc.valid)
			}
		})
	}
}

// Where the schema cannot say what the code checks, the code is stricter,
// never looser: these pass the schema and fail Decode.
func TestDecodeIsStricterOnlyWhereTheSchemaCannotSay(t *testing.T) {
	t.Parallel()
	sch := schematest.Compile(t, schemaPath)
	for name, body := range map[string]string{
		// format "uri" accepts an absolute URL with an empty host.
		"userinfo without a host": `{"item_id":"s","source_url":"https://user@/a",` + hook + `}`,
		"port without a host":     `{"item_id":"s","source_url":"https://:443/a",` + hook + `}`,
		// JSON Schema judges the decoded string, in which a JSON decoder has
		// made bytes that are not UTF-8, and an escape of half a surrogate
		// pair, into U+FFFD: a value other than the one sent.
		"metadata bytes that are not UTF-8":  `{"item_id":"s","source_url":"https://a.example/a",` + hook + `,"metadata":{"k":"caf` + "\xe9" + `"}}`,
		"metadata escaping half a surrogate": `{"item_id":"s","source_url":"https://a.example/a",` + hook + `,"metadata":{"k":"ops\ud800"}}`,
	} {
		if ok, err := schemaValid(sch, body); !ok {
			t.Errorf("%s: the schema rejects it (%v); move it to the corpus", name, err)
		}
		if _, _, err := intake.Decode(body); err == nil {
			t.Errorf("%s: Decode accepts it", name)
		}
	}
}

// The schema's fields and limits are the code's.
func TestSchemaStatesTheCodesLimits(t *testing.T) {
	t.Parallel()
	b, err := os.ReadFile(schemaPath)
	if err != nil {
		t.Fatal(err)
	}
	var doc struct {
		Required   []string `json:"required"`
		Properties map[string]struct {
			MaxLength     int             `json:"maxLength"`
			MaxProperties int             `json:"maxProperties"`
			Enum          []string        `json:"enum"`
			Additional    json.RawMessage `json:"additionalProperties"`
		} `json:"properties"`
		Defs map[string]struct {
			MaxLength int `json:"maxLength"`
		} `json:"$defs"`
	}
	if err := json.Unmarshal(b, &doc); err != nil {
		t.Fatal(err)
	}
	var metaValue struct {
		MaxLength int `json:"maxLength"`
	}
	if err := json.Unmarshal(doc.Properties["metadata"].Additional, &metaValue); err != nil {
		t.Fatalf("metadata additionalProperties: %v", err)
	}
	var props []string
	for k := range doc.Properties {
		props = append(props, k)
	}
	slices.Sort(props)
	fields := slices.Sorted(slices.Values(intake.Fields()))
	if !slices.Equal(props, fields) {
		t.Errorf("schema properties %v, code fields %v", props, fields)
	}
	if want := []string{intake.FieldItemID, intake.FieldSourceURL, intake.FieldWebhookURL}; !slices.Equal(doc.Required, want) {
		t.Errorf("required %v, want %v", doc.Required, want)
	}
	for name, got := range map[string][2]int{
		"item_id maxLength":        {doc.Properties["item_id"].MaxLength, intake.MaxItemIDLen},
		"correlation_id maxLength": {doc.Properties["correlation_id"].MaxLength, intake.MaxCorrelationIDLen},
		"metadata maxProperties":   {doc.Properties["metadata"].MaxProperties, intake.MaxMetadataKeys},
		"metadata value maxLength": {metaValue.MaxLength, intake.MaxMetadataValueLen},
		"URL maxLength":            {doc.Defs["httpURL"].MaxLength, intake.MaxURLLen},
	} {
		if got[0] != got[1] {
			t.Errorf("%s: schema %d, code %d", name, got[0], got[1])
		}
	}
	var notices struct {
		Properties map[string]struct {
			Type string `json:"type"`
		} `json:"properties"`
	}
	var raw struct {
		Properties map[string]json.RawMessage `json:"properties"`
	}
	if err := json.Unmarshal(b, &raw); err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(raw.Properties[intake.FieldNotices], &notices); err != nil {
		t.Fatal(err)
	}
	if got := slices.Sorted(maps.Keys(notices.Properties)); !slices.Equal(got, slices.Sorted(slices.Values(intake.NoticeFields()))) {
		t.Errorf("schema notices %v, code %v", got, intake.NoticeFields())
	}
	for k, p := range notices.Properties {
		if p.Type != "boolean" {
			t.Errorf("notices.%s is %q, want boolean", k, p.Type)
		}
	}
	if got := doc.Properties["kind"].Enum; len(got) != 3 {
		t.Errorf("kind enum %v", got)
	}
}

// FuzzDecodeAgreesWithSchema mutates messages and requires the schema and
// Decode to agree, except where Decode is documented as stricter (a URL
// without a host, a metadata value that is not UTF-8 as sent).
func FuzzDecodeAgreesWithSchema(f *testing.F) {
	for _, tc := range corpus {
		f.Add(tc.body)
	}
	sch := schematest.Compile(f, schemaPath)
	f.Fuzz(func(t *testing.T, body string) {
		bySchema, serr := schemaValid(sch, body)
		_, _, derr := intake.Decode(body)
		byCode := derr == nil
		if bySchema == byCode {
			return
		}
		if bySchema && !byCode && (strings.Contains(derr.Error(), "has no host") ||
			strings.Contains(derr.Error(), "must be valid UTF-8") || strings.Contains(derr.Error(), "half a surrogate pair")) {
			return
		}
		t.Fatalf("schema valid=%v (%v), Decode valid=%v (%v) for %q", bySchema, serr, byCode, derr, body)
	})
}
