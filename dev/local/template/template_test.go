package template_test

import (
	"errors"
	"maps"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/triagehq/triage/dev/local/localtest"
	"github.com/triagehq/triage/dev/local/template"
)

func realTemplate(t *testing.T) *template.Template {
	t.Helper()
	tpl, err := template.ParseFile(filepath.Join("..", "..", "..", "template.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	return tpl
}

func TestParseRealTemplate(t *testing.T) {
	t.Parallel()
	tpl := realTemplate(t)

	if got := tpl.Transform; !slices.Equal(got, []string{"AWS::Serverless-2016-10-31"}) {
		t.Errorf("Transform = %v", got)
	}
	if p := tpl.Parameters["BackstopMaxReceiveCount"]; p.Type != "Number" || p.Default != "50" || !p.HasDefault {
		t.Errorf("BackstopMaxReceiveCount = %+v", p)
	}
	if p := tpl.Parameters["BlockPrivateNetworks"]; p.Default != "true" || !slices.Equal(p.AllowedValues, []string{"true", "false"}) {
		t.Errorf("BlockPrivateNetworks = %+v", p)
	}

	common := []string{"BACKSTOP_MAX_RECEIVE_COUNT", "DLQ_URL", "ERRORLOG_TABLE", "GATES_TABLE", "ITEMS_TABLE", "LOG_LEVEL",
		"PARKED_TABLE", "PROFILE", "QUEUE_URL", "STAGE"}
	want := map[string]struct {
		timeout     time.Duration
		queue       string
		concurrency int
		env         []string
	}{
		"FetchFunc":  {30 * time.Second, "FetchQueue", 20, append([]string{"BLOCK_PRIVATE_NETWORKS", "NEXT_QUEUE_URL"}, common...)},
		"LLMFunc":    {90 * time.Second, "LLMQueue", 10, append([]string{"LLM_API_KEY_PARAMETER", "LLM_BASE_URL", "LLM_MODELS", "LLM_PROVIDER", "NEXT_QUEUE_URL"}, common...)},
		"NotifyFunc": {30 * time.Second, "NotifyQueue", 20, append([]string{"WEBHOOK_SECRET_PARAMETER"}, common...)},
	}
	fns := tpl.Functions()
	var ids []string
	for _, f := range fns {
		ids = append(ids, f.LogicalID)
	}
	for id := range want {
		if !slices.Contains(ids, id) {
			t.Fatalf("functions = %v, want %s among them", ids, id)
		}
	}
	for _, f := range fns {
		w, ok := want[f.LogicalID]
		if !ok {
			continue
		}
		t.Run(f.LogicalID, func(t *testing.T) {
			t.Parallel()
			if f.Timeout != w.timeout {
				t.Errorf("Timeout = %v, want %v", f.Timeout, w.timeout)
			}
			if f.MemorySize != 256 || f.Runtime != "provided.al2023" || f.Handler != "bootstrap" || f.CodeURI != "." || f.BuildMethod != "makefile" {
				t.Errorf("globals/metadata not applied: %+v", f)
			}
			if !slices.Equal(f.Architectures, []string{"arm64"}) {
				t.Errorf("Architectures = %v", f.Architectures)
			}
			// At least these (the template grows variables as the stages do).
			for _, k := range w.env {
				if _, ok := f.Environment[k]; !ok {
					t.Errorf("env lacks %s (has %v)", k, slices.Sorted(maps.Keys(f.Environment)))
				}
			}
			// Every stage's own queue; the notify function also delivers the
			// owners' notices from the notice queue.
			wantEvents := map[string]struct {
				queue       string
				concurrency int
			}{"Queue": {w.queue, w.concurrency}}
			if f.LogicalID == "NotifyFunc" {
				wantEvents["Notices"] = struct {
					queue       string
					concurrency int
				}{"NoticeQueue", 2}
			}
			if len(f.Events) != len(wantEvents) {
				t.Fatalf("events = %+v", f.Events)
			}
			for _, ev := range f.Events {
				we, ok := wantEvents[ev.Name]
				if !ok || ev.Type != template.EventSQS || ev.BatchSize != 10 || ev.MaximumBatchingWindowInSeconds != 1 ||
					ev.BatchingWindow() != time.Second || !ev.ReportsBatchItemFailures() || ev.MaximumConcurrency != we.concurrency || !ev.Enabled {
					t.Errorf("event = %+v", ev)
				}
				if wantQ := map[string]any{"Fn::GetAtt": []any{we.queue, "Arn"}}; !reflect.DeepEqual(ev.Queue, wantQ) {
					t.Errorf("%s: Queue = %#v, want %#v", ev.Name, ev.Queue, wantQ)
				}
			}
		})
	}
}

func TestResolveEnvRealTemplate(t *testing.T) {
	t.Parallel()
	tpl := realTemplate(t)
	r, err := template.NewResolver(tpl, template.ResolverConfig{
		Parameters: map[string]string{"BlockPrivateNetworks": "false", "LLMBaseUrl": "http://127.0.0.1:9/v1"},
		Pseudo:     template.Pseudo{StackName: "s"},
		Physical:   localtest.PlaceholderPhysical(tpl),
	})
	if err != nil {
		t.Fatal(err)
	}
	fetch, _ := tpl.Function("FetchFunc")
	env, err := r.ResolveEnv(fetch)
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]string{
		"STAGE":                      "fetch",
		"QUEUE_URL":                  "https://sqs.us-east-1.amazonaws.com/123456789012/s-FetchQueue-ABCDEFGHIJKL",
		"DLQ_URL":                    "https://sqs.us-east-1.amazonaws.com/123456789012/s-FetchDLQ-ABCDEFGHIJKL",
		"NEXT_QUEUE_URL":             "https://sqs.us-east-1.amazonaws.com/123456789012/s-LLMQueue-ABCDEFGHIJKL",
		"ITEMS_TABLE":                "s-ItemsTable-ABCDEFGHIJKL",
		"ERRORLOG_TABLE":             "s-ErrorLogTable-ABCDEFGHIJKL",
		"PARKED_TABLE":               "s-ParkedTable-ABCDEFGHIJKL",
		"GATES_TABLE":                "s-GatesTable-ABCDEFGHIJKL",
		"PROFILE":                    "standard",
		"BACKSTOP_MAX_RECEIVE_COUNT": "50",
		"BLOCK_PRIVATE_NETWORKS":     "false",
		"LOG_LEVEL":                  "info",
		"BODIES_TABLE":               "s-BodiesTable-ABCDEFGHIJKL",
		"BODIES_BUCKET":              "s-bodiesbucket-abcdefghijkl",
		"BODY_THRESHOLD_BYTES":       "3072",
		"BODY_RETENTION_DAYS":        "30",
	}
	for k, v := range want {
		if env[k] != v {
			t.Errorf("env %s = %q, want %q", k, env[k], v)
		}
	}

	url, arn, err := r.QueueOf(fetch.Events[0])
	if err != nil || url != want["QUEUE_URL"] || arn != "arn:aws:sqs:us-east-1:123456789012:s-FetchQueue-ABCDEFGHIJKL" {
		t.Errorf("QueueOf = %q, %q, %v", url, arn, err)
	}

	role := tpl.Resources["LLMFuncRole"].Properties["Policies"].([]any)[0].(map[string]any)["PolicyDocument"].(map[string]any)
	var keyStmt map[string]any
	for _, s := range role["Statement"].([]any) {
		if st := s.(map[string]any); st["Sid"] == "LLMApiKey" {
			keyStmt = st
		}
	}
	if keyStmt == nil {
		t.Fatal("LLMFuncRole has no LLMApiKey statement")
	}
	res, err := r.String(keyStmt["Resource"])
	if err != nil || res != "arn:aws:ssm:us-east-1:123456789012:parameter/triage/llm-api-key" {
		t.Errorf("LLMApiKey policy resource = %q, %v", res, err)
	}
}

func TestResolveEnvUnresolvable(t *testing.T) {
	t.Parallel()
	tpl := parse(t, `
Resources:
  Q: {Type: AWS::SQS::Queue}
  Other: {Type: AWS::Serverless::Function, Properties: {Handler: bootstrap, Runtime: provided.al2023}}
  F:
    Type: AWS::Serverless::Function
    Properties:
      Handler: bootstrap
      Runtime: provided.al2023
      Environment:
        Variables:
          GOOD: !Ref Q
          OTHER_ARN: !GetAtt Other.Arn
          IMPORTED: !ImportValue shared-thing
          DROPPED: !Ref AWS::NoValue
`)
	r := resolver(t, tpl, nil)
	f, _ := tpl.Function("F")
	_, err := r.ResolveEnv(f)
	if err == nil {
		t.Fatal("no error")
	}
	var ee *template.EnvError
	if !errors.As(err, &ee) || ee.Function != "F" {
		t.Fatalf("err = %v, want an *EnvError", err)
	}
	for _, name := range []string{"OTHER_ARN", "IMPORTED"} {
		if !strings.Contains(err.Error(), name) {
			t.Errorf("error %q does not name %s", err, name)
		}
	}
	for _, name := range []string{"GOOD", "DROPPED"} {
		if strings.Contains(err.Error(), name) {
			t.Errorf("error %q names %s", err, name)
		}
	}
	if !errors.Is(err, template.ErrUnresolved) {
		t.Errorf("errors.Is(%v, ErrUnresolved) = false", err)
	}
}

func parse(t *testing.T, src string) *template.Template {
	t.Helper()
	tpl, err := template.Parse([]byte(src))
	if err != nil {
		t.Fatal(err)
	}
	return tpl
}

func resolver(t *testing.T, tpl *template.Template, params map[string]string) *template.Resolver {
	t.Helper()
	r, err := template.NewResolver(tpl, template.ResolverConfig{
		Parameters: params,
		Pseudo:     template.Pseudo{StackName: "s", StackID: "arn:aws:cloudformation:us-east-1:123456789012:stack/s/1"},
		Physical: map[string]string{
			"Q":     "https://sqs.us-east-1.amazonaws.com/123456789012/s-Q-X",
			"T":     "s-T-X",
			"Topic": "arn:aws:sns:us-east-1:123456789012:s-Topic-X",
		},
	})
	if err != nil {
		t.Fatal(err)
	}
	return r
}

// intrinsicsTemplate declares what the inline intrinsic cases refer to.
const intrinsicsTemplate = `
Parameters:
  Name: {Type: String, Default: alpha}
  Count: {Type: Number, Default: 7}
  Models: {Type: CommaDelimitedList, Default: "a,b,c"}
  Env: {Type: String, Default: prod, AllowedValues: [prod, dev]}
Mappings:
  Sizes:
    prod: {Memory: 512}
Conditions:
  IsProd: !Equals [!Ref Env, prod]
  IsDev: {"Fn::Not": [{"Condition": IsProd}]}
  Both: !And [!Condition IsProd, !Or [!Condition IsDev, !Equals [a, a]]]
Resources:
  Q: {Type: AWS::SQS::Queue}
  T: {Type: AWS::DynamoDB::Table}
  Topic: {Type: AWS::SNS::Topic}
  F:
    Type: AWS::Serverless::Function
    Properties:
      Handler: bootstrap
      Runtime: provided.al2023
      Environment:
        Variables:
          V: %s
`

func TestIntrinsics(t *testing.T) {
	t.Parallel()
	const queueURL = "https://sqs.us-east-1.amazonaws.com/123456789012/s-Q-X"
	const queueARN = "arn:aws:sqs:us-east-1:123456789012:s-Q-X"
	tests := []struct {
		name string
		expr string
		want string
	}{
		{"literal string", `plain`, "plain"},
		{"literal number", `30`, "30"},
		{"literal bool", `true`, "true"},
		{"!Ref parameter", `!Ref Name`, "alpha"},
		{"Ref parameter long", `{Ref: Count}`, "7"},
		{"!Ref queue is the URL", `!Ref Q`, queueURL},
		{"!Ref table is the name", `!Ref T`, "s-T-X"},
		{"!Ref topic is the ARN", `!Ref Topic`, "arn:aws:sns:us-east-1:123456789012:s-Topic-X"},
		{"!Ref AWS::Region", `!Ref AWS::Region`, "us-east-1"},
		{"!Ref AWS::AccountId", `!Ref AWS::AccountId`, "123456789012"},
		{"!Ref AWS::Partition", `!Ref AWS::Partition`, "aws"},
		{"!Ref AWS::StackName", `!Ref AWS::StackName`, "s"},
		{"!Ref AWS::StackId", `!Ref AWS::StackId`, "arn:aws:cloudformation:us-east-1:123456789012:stack/s/1"},
		{"!Ref AWS::URLSuffix", `!Ref AWS::URLSuffix`, "amazonaws.com"},
		{"!GetAtt queue Arn", `!GetAtt Q.Arn`, queueARN},
		{"!GetAtt queue QueueName", `!GetAtt Q.QueueName`, "s-Q-X"},
		{"!GetAtt queue QueueUrl", `!GetAtt Q.QueueUrl`, queueURL},
		{"!GetAtt list form", `!GetAtt [T, Arn]`, "arn:aws:dynamodb:us-east-1:123456789012:table/s-T-X"},
		{"Fn::GetAtt long list", `{"Fn::GetAtt": [Q, Arn]}`, queueARN},
		{"Fn::GetAtt long string", `{"Fn::GetAtt": Q.Arn}`, queueARN},
		{"!GetAtt topic name", `!GetAtt Topic.TopicName`, "s-Topic-X"},
		{"!Sub pseudo, parameter, attribute, literal", `!Sub "arn:${AWS::Partition}:x:${AWS::Region}:${Name}/${Q.Arn}/${!Literal}"`,
			"arn:aws:x:us-east-1:alpha/" + queueARN + "/${Literal}"},
		{"!Sub resource ref", `!Sub "${Q}?n=${Count}"`, queueURL + "?n=7"},
		{"Fn::Sub long", `{"Fn::Sub": "${T}-x"}`, "s-T-X-x"},
		{"Fn::Sub two-element list", `{"Fn::Sub": ["${Greeting}, ${Who}! ${AWS::AccountId}", {Greeting: hello, Who: !Ref Name}]}`,
			"hello, alpha! 123456789012"},
		{"!Sub list with intrinsic variable", `!Sub ["${A}", {A: !GetAtt T.Arn}]`, "arn:aws:dynamodb:us-east-1:123456789012:table/s-T-X"},
		{"!Join", `!Join [",", [a, !Ref Name, 3]]`, "a,alpha,3"},
		{"Fn::Join long", `{"Fn::Join": ["", [x, {Ref: AWS::Region}]]}`, "xus-east-1"},
		{"!Join list parameter", `!Join ["|", !Ref Models]`, "a|b|c"},
		{"!Select with !Split", `!Select [1, !Split ["/", "a/b/c"]]`, "b"},
		{"!Select string index", `!Select ["2", !Ref Models]`, "c"},
		{"!Select GetAZs", `!Select [0, !GetAZs ""]`, "us-east-1a"},
		{"!If true", `!If [IsProd, yes, no]`, "yes"},
		{"!If false", `!If [IsDev, yes, no]`, "no"},
		{"!If nested conditions", `!If [Both, both, not]`, "both"},
		{"Fn::If long", `{"Fn::If": [IsProd, {Ref: Name}, x]}`, "alpha"},
		{"!FindInMap", `!FindInMap [Sizes, !Ref Env, Memory]`, "512"},
		{"!Base64", `!Base64 hi`, "aGk="},
		{"Fn::ToJsonString", `{"Fn::ToJsonString": {a: !Ref Name}}`, `{"a":"alpha"}`},
		{"Fn::Length", `{"Fn::Length": !Ref Models}`, "3"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			tpl := parse(t, strings.Replace(intrinsicsTemplate, "%s", tc.expr, 1))
			r := resolver(t, tpl, nil)
			f, _ := tpl.Function("F")
			got, err := r.String(f.Environment["V"])
			if err != nil {
				t.Fatalf("%s: %v", tc.expr, err)
			}
			if got != tc.want {
				t.Errorf("%s = %q, want %q", tc.expr, got, tc.want)
			}
		})
	}
}

func TestIntrinsicsShortAndLongFormsParseAlike(t *testing.T) {
	t.Parallel()
	tests := map[string]struct{ short, long string }{
		"Ref":    {`!Ref X`, `{Ref: X}`},
		"GetAtt": {`!GetAtt A.Arn`, `{"Fn::GetAtt": [A, Arn]}`},
		"Sub":    {`!Sub "${A}"`, `{"Fn::Sub": "${A}"}`},
		"Join":   {`!Join [",", [a, b]]`, `{"Fn::Join": [",", [a, b]]}`},
		"Select": {`!Select [0, !Split [",", "a,b"]]`, `{"Fn::Select": [0, {"Fn::Split": [",", "a,b"]}]}`},
		"If":     {`!If [C, a, !Ref AWS::NoValue]`, `{"Fn::If": [C, a, {Ref: AWS::NoValue}]}`},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			short := parse(t, "Resources: {R: {Type: X, Properties: {V: "+tc.short+"}}}")
			long := parse(t, "Resources: {R: {Type: X, Properties: {V: "+tc.long+"}}}")
			if s, l := short.Resources["R"].Properties["V"], long.Resources["R"].Properties["V"]; !reflect.DeepEqual(s, l) {
				t.Errorf("short %#v != long %#v", s, l)
			}
		})
	}
}

func TestNoValueDropsEntries(t *testing.T) {
	t.Parallel()
	tpl := parse(t, `
Conditions:
  Never: !Equals [a, b]
Resources:
  R:
    Type: X
    Properties:
      Keep: 1
      Drop: !Ref AWS::NoValue
      List: [a, !If [Never, b, !Ref AWS::NoValue], c]
`)
	r := resolver(t, tpl, nil)
	got, err := r.Resolve(tpl.Resources["R"].Properties)
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]any{"Keep": 1, "List": []any{"a", "c"}}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("got %#v, want %#v", got, want)
	}
}

func TestResolveErrors(t *testing.T) {
	t.Parallel()
	tests := map[string]string{
		"function has no physical id": `!GetAtt F.Arn`,
		"Ref function":                `!Ref F`,
		"unknown name":                `!Ref Nope`,
		"unknown attribute":           `!GetAtt T.StreamArn`,
		"import":                      `!ImportValue x`,
		"select out of range":         `!Select [5, [a]]`,
		"list is not a string":        `!Ref Models`,
		"unknown condition":           `!If [Nope, a, b]`,
		"unterminated sub":            `!Sub "${Name"`,
		"malformed join":              `!Join [","]`,
	}
	for name, expr := range tests {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			tpl := parse(t, strings.Replace(intrinsicsTemplate, "%s", expr, 1))
			r := resolver(t, tpl, nil)
			f, _ := tpl.Function("F")
			_, err := r.String(f.Environment["V"])
			var ue *template.UnresolvedError
			if !errors.As(err, &ue) || !errors.Is(err, template.ErrUnresolved) {
				t.Fatalf("%s: err = %v, want an *UnresolvedError", expr, err)
			}
			if errors.Is(err, template.ErrParameter) {
				t.Errorf("%v matches ErrParameter", err)
			}
		})
	}
}

func TestParameterErrors(t *testing.T) {
	t.Parallel()
	tpl := parse(t, `
Parameters:
  Env: {Type: String, Default: prod, AllowedValues: [prod, dev]}
  Path: {Type: String, Default: /a, AllowedPattern: "^/[a-z/]+$"}
  Required: {Type: String}
Resources:
  Q: {Type: AWS::SQS::Queue}
`)
	tests := map[string]struct {
		params map[string]string
		want   string // parameter named in the error; "" for success
	}{
		"ok":                 {map[string]string{"Required": "x"}, ""},
		"missing required":   {nil, "Required"},
		"not allowed":        {map[string]string{"Required": "x", "Env": "qa"}, "Env"},
		"pattern mismatch":   {map[string]string{"Required": "x", "Path": "nope"}, "Path"},
		"undeclared":         {map[string]string{"Required": "x", "Typo": "1"}, "Typo"},
		"pattern is matched": {map[string]string{"Required": "x", "Path": "/a/b"}, ""},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			r, err := template.NewResolver(tpl, template.ResolverConfig{Parameters: tc.params})
			if tc.want == "" {
				if err != nil {
					t.Fatal(err)
				}
				if got := r.Parameters()["Env"]; got != "prod" {
					t.Errorf("Env = %q, want the default", got)
				}
				return
			}
			var pe *template.ParameterError
			if !errors.As(err, &pe) || pe.Name != tc.want || !errors.Is(err, template.ErrParameter) {
				t.Errorf("err = %v, want a *ParameterError for %s", err, tc.want)
			}
		})
	}
}

func TestGlobalsMerge(t *testing.T) {
	t.Parallel()
	tpl := parse(t, `
Globals:
  Function:
    Runtime: provided.al2023
    Timeout: 10
    Architectures: [arm64]
    Layers: [g1]
    Environment:
      Variables:
        SHARED: global
        OVERRIDDEN: global
        INTRINSIC: !Ref AWS::Region
Resources:
  F:
    Type: AWS::Serverless::Function
    Properties:
      Handler: bootstrap
      Timeout: 20
      Architectures: [x86_64]
      Layers: [l1]
      Environment:
        Variables:
          OVERRIDDEN: local
          OWN: local
          INTRINSIC: !Ref AWS::AccountId
  G:
    Type: AWS::Serverless::Function
    Properties:
      Handler: bootstrap
      Events:
        Q:
          Type: SQS
          Properties: {Queue: arn:aws:sqs:us-east-1:123456789012:q}
        Tick:
          Type: Schedule
          Properties: {Schedule: rate(5 minutes), Enabled: false, Input: '{"note":"n"}'}
  H:
    Type: AWS::Serverless::Function
    Properties: {Handler: bootstrap, Runtime: go1.x, MemorySize: 1024}
`)
	f, _ := tpl.Function("F")
	wantEnv := map[string]any{"SHARED": "global", "OVERRIDDEN": "local", "OWN": "local",
		"INTRINSIC": map[string]any{"Ref": "AWS::AccountId"}}
	if !reflect.DeepEqual(f.Environment, wantEnv) {
		t.Errorf("env = %#v, want %#v", f.Environment, wantEnv)
	}
	if f.Timeout != 20*time.Second || f.Runtime != "provided.al2023" {
		t.Errorf("Timeout %v Runtime %q", f.Timeout, f.Runtime)
	}
	if !slices.Equal(f.Architectures, []string{"x86_64"}) {
		t.Errorf("Architectures = %v, want the function's (replaced)", f.Architectures)
	}
	if got := f.Properties["Layers"]; !reflect.DeepEqual(got, []any{"g1", "l1"}) {
		t.Errorf("Layers = %v, want globals first, concatenated", got)
	}

	g, _ := tpl.Function("G")
	if g.Timeout != 10*time.Second || g.MemorySize != template.DefaultMemorySize {
		t.Errorf("G Timeout %v Memory %d", g.Timeout, g.MemorySize)
	}
	if len(g.Events) != 2 {
		t.Fatalf("G events = %+v", g.Events)
	}
	q, tick := g.Events[0], g.Events[1]
	if q.BatchSize != 10 || q.MaximumBatchingWindowInSeconds != 0 || q.ReportsBatchItemFailures() || q.MaximumConcurrency != 0 || !q.Enabled {
		t.Errorf("SQS defaults not applied: %+v", q)
	}
	if tick.Type != template.EventSchedule || tick.Schedule != "rate(5 minutes)" || tick.Enabled || tick.Input != `{"note":"n"}` {
		t.Errorf("schedule = %+v", tick)
	}

	h, _ := tpl.Function("H")
	if h.Timeout != 10*time.Second || h.MemorySize != 1024 || h.Runtime != "go1.x" ||
		!slices.Equal(h.Architectures, []string{"arm64"}) {
		t.Errorf("H = %+v", h)
	}

	bare, _ := parse(t, "Resources: {F: {Type: AWS::Serverless::Function, Properties: {Handler: bootstrap}}}").Function("F")
	if bare.Timeout != template.DefaultTimeout || bare.MemorySize != template.DefaultMemorySize ||
		!slices.Equal(bare.Architectures, []string{template.DefaultArchitecture}) || bare.Environment == nil {
		t.Errorf("Lambda defaults not applied: %+v", bare)
	}
}

func TestParseErrors(t *testing.T) {
	t.Parallel()
	tests := map[string]string{
		"not yaml":          "Resources: [",
		"not a mapping":     "- a",
		"no resources":      "Description: x",
		"unknown tag":       "Resources: {R: {Type: X, Properties: {V: !Nope x}}}",
		"duplicate key":     "Resources: {R: {Type: X}, R: {Type: Y}}",
		"resource no type":  "Resources: {R: {Properties: {}}}",
		"bad getatt":        "Resources: {R: {Type: X, Properties: {V: !GetAtt NoDot}}}",
		"timeout intrinsic": "Resources: {F: {Type: AWS::Serverless::Function, Properties: {Timeout: !Ref T}}}",
		"timeout too long":  "Resources: {F: {Type: AWS::Serverless::Function, Properties: {Timeout: 901}}}",
		"batch over 10 without window": `Resources: {F: {Type: AWS::Serverless::Function, Properties: {Events: {Q: {Type: SQS,
  Properties: {Queue: q, BatchSize: 100}}}}}}`,
		"concurrency below 2": `Resources: {F: {Type: AWS::Serverless::Function, Properties: {Events: {Q: {Type: SQS,
  Properties: {Queue: q, ScalingConfig: {MaximumConcurrency: 1}}}}}}}`,
		"sqs without queue": `Resources: {F: {Type: AWS::Serverless::Function, Properties: {Events: {Q: {Type: SQS}}}}}`,
	}
	for name, src := range tests {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			_, err := template.Parse([]byte(src))
			if !errors.Is(err, template.ErrSyntax) {
				t.Errorf("err = %v, want ErrSyntax", err)
			}
		})
	}
}

func TestIntrinsic(t *testing.T) {
	t.Parallel()
	tests := []struct {
		v    any
		name string
		ok   bool
	}{
		{map[string]any{"Ref": "X"}, "Ref", true},
		{map[string]any{"Fn::GetAtt": []any{"A", "Arn"}}, "Fn::GetAtt", true},
		{map[string]any{"Condition": "C"}, "Condition", true},
		{map[string]any{"Ref": "X", "Other": 1}, "", false},
		{map[string]any{"Variables": map[string]any{}}, "", false},
		{"Ref", "", false},
	}
	for _, tc := range tests {
		name, _, ok := template.Intrinsic(tc.v)
		if name != tc.name || ok != tc.ok {
			t.Errorf("Intrinsic(%v) = %q, %v; want %q, %v", tc.v, name, ok, tc.name, tc.ok)
		}
	}
}

func TestEventRate(t *testing.T) {
	t.Parallel()
	for expr, want := range map[string]time.Duration{"rate(1 minute)": time.Minute, "rate(5 minutes)": 5 * time.Minute,
		"rate(2 hours)": 2 * time.Hour, "cron(0 * * * ? *)": 0, "rate(0 minutes)": 0} {
		if got, _ := (template.Event{Type: template.EventSchedule, Schedule: expr}).Rate(); got != want {
			t.Errorf("rate(%q) = %v, want %v", expr, got, want)
		}
	}
	if got, ok := (template.Event{Type: template.EventSQS, Schedule: "rate(1 minute)"}).Rate(); ok {
		t.Errorf("an SQS event's rate = %v, want none", got)
	}
}
