package policycheck_test

import (
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/triagehq/triage/dev/local/localtest"
	"github.com/triagehq/triage/dev/local/template"
	"github.com/triagehq/triage/dev/policycheck"
)

// reach is the intended topology: what each function's role may name. A
// stage reaches its own queue and DLQ, the next stage's queue, the item
// tables, the gates it parks behind, its breakers and the notice queue (the
// llm and notify stages the audit table too); the scheduler the stage
// queues, the parked waits and their gates, and the breakers and model
// health those gates are; every function the SSM parameter holding the
// operator's classification rules (read once at start, docs/design.md
// "Operator rules"); nothing else.
var reach = map[string][]string{
	"FetchFunc": {"FetchQueue", "FetchDLQ", "LLMQueue", "ItemsTable", "ErrorLogTable", "ParkedTable", "GatesTable", "BreakersTable",
		"BodiesTable", "BodiesBucket", "NoticeQueue", "ClassificationRulesParameter"},
	"LLMFunc": {"LLMQueue", "LLMDLQ", "NotifyQueue", "ItemsTable", "ErrorLogTable", "ParkedTable", "GatesTable", "BreakersTable",
		"ModelsTable", "BudgetTable", "LLMApiKeyParameter", "AnthropicApiKeyParameter", "GeminiApiKeyParameter",
		"VertexApiKeyParameter", "BodiesTable", "BodiesBucket",
		"NoticeQueue", "AuditTable", "ClassificationRulesParameter",
		// the Bedrock models of the chain (bedrock:InvokeModel on exactly those)
		"LLMModels", "LLMEscalationModel"},
	"NotifyFunc": {"NotifyQueue", "NotifyDLQ", "ItemsTable", "ErrorLogTable", "ParkedTable", "GatesTable", "BreakersTable",
		"WebhookSecretParameter", "BodiesTable", "BodiesBucket", "NoticeQueue", "AuditTable", "ClassificationRulesParameter"},
	"RedriveFunc": {"FetchQueue", "LLMQueue", "NotifyQueue", "FetchDLQ", "LLMDLQ", "NotifyDLQ", "ItemsTable", "ErrorLogTable",
		"NoticeQueue", "ClassificationRulesParameter"},
	"SchedulerFunc": {"FetchQueue", "LLMQueue", "NotifyQueue", "ParkedTable", "GatesTable", "BreakersTable", "ModelsTable",
		"ClassificationRulesParameter"},
	"RecoveryFunc": {"ModelsTable", "ClassificationRulesParameter"},
}

func root(t *testing.T) string {
	t.Helper()
	dir, err := localtest.ModuleRoot()
	if err != nil {
		t.Fatal(err)
	}
	return dir
}

func fromTemplate(tpl *template.Template) map[string]policycheck.Resource {
	out := map[string]policycheck.Resource{}
	for id, r := range tpl.Resources {
		out[id] = policycheck.Resource{Type: r.Type, Properties: r.Properties}
	}
	return out
}

func TestTemplate(t *testing.T) {
	t.Parallel()
	tpl, err := template.ParseFile(filepath.Join(root(t), "template.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	res := fromTemplate(tpl)
	for _, f := range policycheck.Check(res, reach) {
		t.Error(f)
	}
	for fn := range reach {
		if _, ok := res[fn]; !ok {
			t.Errorf("the allowlist names %s, which the template lacks", fn)
		}
	}
	for id, r := range res {
		if r.Type == "AWS::Serverless::Function" {
			if _, ok := reach[id]; !ok {
				t.Errorf("function %s has no entry in the reach allowlist", id)
			}
		}
	}
}

// TestTransformedTemplate checks what CloudFormation deploys: the template
// after SAM's transform, where SAM would have added its own roles and
// managed policies.
func TestTransformedTemplate(t *testing.T) {
	t.Parallel()
	if _, err := exec.LookPath("python3"); err != nil {
		localtest.Require(t, "python3", "install Python 3 and pip install aws-sam-translator")
	}
	const script = `
import json, sys
from samtranslator.translator.transform import transform
from samtranslator.yaml_helper import yaml_parse
tpl = yaml_parse(open(sys.argv[1]).read())
for k, v in tpl.get("Resources", {}).items():
    if v.get("Type") == "AWS::Serverless::Function":
        v.setdefault("Properties", {})["CodeUri"] = "s3://policy-check/" + k + ".zip"
class Loader:
    def load(self): return {}
json.dump(transform(tpl, {}, Loader()), sys.stdout)
`
	cmd := exec.Command("python3", "-c", script, filepath.Join(root(t), "template.yaml"))
	cmd.Env = append(os.Environ(), "AWS_DEFAULT_REGION=us-east-1")
	out, err := cmd.Output()
	if err != nil {
		var stderr string
		if ee, ok := err.(*exec.ExitError); ok {
			stderr = string(ee.Stderr)
		}
		if strings.Contains(stderr, "No module named 'samtranslator'") {
			localtest.Require(t, "aws-sam-translator", "pip install aws-sam-translator")
		}
		t.Fatalf("SAM transform: %v\n%s", err, stderr)
	}
	var doc struct {
		Resources map[string]struct {
			Type       string         `json:"Type"`
			Properties map[string]any `json:"Properties"`
		} `json:"Resources"`
	}
	if err := json.Unmarshal(out, &doc); err != nil {
		t.Fatal(err)
	}
	raw, err := template.ParseFile(filepath.Join(root(t), "template.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	res := map[string]policycheck.Resource{}
	for id, r := range doc.Resources {
		res[id] = policycheck.Resource{Type: r.Type, Properties: r.Properties}
		if _, declared := raw.Resources[id]; r.Type == "AWS::IAM::Role" && !declared {
			t.Errorf("the transformed template has a role %s that template.yaml does not declare: SAM generated its own", id)
		}
	}
	for _, f := range policycheck.Check(res, reach) {
		t.Error(f)
	}
}

// TestRulesCatchViolations shows each rule failing on a bad resource.
func TestRulesCatchViolations(t *testing.T) {
	t.Parallel()
	stmt := func(action any, resource any) map[string]any {
		return map[string]any{"Effect": "Allow", "Action": action, "Resource": resource}
	}
	role := func(sts ...map[string]any) policycheck.Resource {
		list := make([]any, len(sts))
		for i, s := range sts {
			list[i] = s
		}
		return policycheck.Resource{Type: "AWS::IAM::Role", Properties: map[string]any{
			"Policies": []any{map[string]any{"PolicyName": "p", "PolicyDocument": map[string]any{"Statement": list}}}}}
	}
	tests := map[string]struct {
		res  map[string]policycheck.Resource
		rule string
	}{
		"service wildcard action": {map[string]policycheck.Resource{"R": role(stmt("dynamodb:*", map[string]any{"Fn::GetAtt": []any{"T", "Arn"}}))}, "wildcard-action"},
		"star resource":           {map[string]policycheck.Resource{"R": role(stmt([]any{"sqs:SendMessage"}, "*"))}, "wildcard-resource"},
		"index wildcard": {map[string]policycheck.Resource{"R": role(stmt("dynamodb:Query",
			map[string]any{"Fn::Sub": "${T.Arn}/index/*"}))}, "wildcard-resource"},
		"stream wildcard on a data-plane action": {map[string]policycheck.Resource{"R": role(stmt("sqs:SendMessage",
			map[string]any{"Fn::Sub": "arn:aws:logs:r:a:log-group:/aws/lambda/x:log-stream:*"}))}, "wildcard-resource"},
		"managed policy": {map[string]policycheck.Resource{"R": {Type: "AWS::IAM::Role", Properties: map[string]any{
			"ManagedPolicyArns": []any{"arn:aws:iam::aws:policy/service-role/AWSLambdaSQSQueueExecutionRole"}}}}, "managed-policy"},
		"function policies": {map[string]policycheck.Resource{"F": {Type: "AWS::Serverless::Function", Properties: map[string]any{
			"Policies": []any{"AWSLambdaBasicExecutionRole"}}}}, "inline-function-policy"},
		"queue without sse": {map[string]policycheck.Resource{"Q": {Type: "AWS::SQS::Queue", Properties: map[string]any{}}}, "sse"},
		"table without sse": {map[string]policycheck.Resource{"T": {Type: "AWS::DynamoDB::Table", Properties: map[string]any{
			"SSESpecification": map[string]any{"SSEEnabled": false}}}}, "sse"},
		"bucket without sse":        {map[string]policycheck.Resource{"B": bucket("BucketEncryption")}, "sse"},
		"bucket without a block":    {map[string]policycheck.Resource{"B": bucket("PublicAccessBlockConfiguration")}, "public-bucket"},
		"bucket that never forgets": {map[string]policycheck.Resource{"B": bucket("LifecycleConfiguration")}, "lifecycle"},
		"public bucket policy": {map[string]policycheck.Resource{"P": {Type: "AWS::S3::BucketPolicy", Properties: map[string]any{
			"PolicyDocument": map[string]any{"Statement": []any{map[string]any{"Effect": "Allow", "Principal": "*", "Action": "s3:GetObject"}}}}}},
			"public-bucket"},
		"object wildcard on a bucket action": {map[string]policycheck.Resource{"B": bucket(""), "R": role(stmt("s3:DeleteBucket",
			map[string]any{"Fn::Sub": "${B.Arn}/document/*"}))}, "wildcard-resource"},
		"object wildcard on every key": {map[string]policycheck.Resource{"B": bucket(""), "R": role(stmt("s3:GetObject",
			map[string]any{"Fn::Sub": "${B.Arn}/*"}))}, "wildcard-resource"},
		"object wildcard on a table": {map[string]policycheck.Resource{"T": {Type: "AWS::DynamoDB::Table"}, "R": role(stmt("s3:GetObject",
			map[string]any{"Fn::Sub": "${T.Arn}/document/*"}))}, "wildcard-resource"},
		"every bedrock model": {map[string]policycheck.Resource{"R": role(stmt("bedrock:InvokeModel",
			map[string]any{"Fn::Sub": "arn:${AWS::Partition}:bedrock:*::foundation-model/*"}))}, "wildcard-resource"},
		"bedrock region wildcard for another action": {map[string]policycheck.Resource{"R": role(stmt("bedrock:InvokeModelWithResponseStream",
			map[string]any{"Fn::Join": []any{"", []any{"arn:aws:bedrock:*::foundation-model/", map[string]any{"Ref": "M"}}}}))}, "wildcard-resource"},
		"a wildcard inside a conditional statement": {map[string]policycheck.Resource{"R": role(map[string]any{"Fn::If": []any{"C",
			stmt("sqs:SendMessage", "*"), map[string]any{"Ref": "AWS::NoValue"}}})}, "wildcard-resource"},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			fs := policycheck.Check(tc.res, nil)
			for _, f := range fs {
				if f.Rule == tc.rule {
					return
				}
			}
			t.Fatalf("findings %v lack rule %s", fs, tc.rule)
		})
	}
	t.Run("reach", func(t *testing.T) {
		t.Parallel()
		res := map[string]policycheck.Resource{
			"F":     {Type: "AWS::Serverless::Function", Properties: map[string]any{"Role": map[string]any{"Fn::GetAtt": []any{"FRole", "Arn"}}}},
			"FRole": role(stmt("sqs:SendMessage", []any{map[string]any{"Fn::GetAtt": []any{"OwnQueue", "Arn"}}, map[string]any{"Fn::GetAtt": []any{"OtherDLQ", "Arn"}}})),
		}
		fs := policycheck.Check(res, map[string][]string{"F": {"OwnQueue"}})
		if len(fs) != 1 || fs[0].Rule != "reach" || !strings.Contains(fs[0].Detail, "OtherDLQ") {
			t.Fatalf("findings %v, want one reach finding naming OtherDLQ", fs)
		}
	})
	t.Run("object actions on one prefix of the template's bucket are allowed", func(t *testing.T) {
		t.Parallel()
		res := map[string]policycheck.Resource{"B": bucket(""), "R": role(stmt([]any{"s3:GetObject", "s3:PutObject"},
			map[string]any{"Fn::Sub": "${B.Arn}/document/*"}))}
		if fs := policycheck.Check(res, nil); len(fs) != 0 {
			t.Fatalf("findings %v", fs)
		}
	})
	t.Run("the chain's bedrock models in any region are allowed", func(t *testing.T) {
		t.Parallel()
		res := map[string]policycheck.Resource{"R": role(stmt([]any{"bedrock:InvokeModel"}, map[string]any{"Fn::Split": []any{",",
			map[string]any{"Fn::Join": []any{"", []any{"arn:aws:bedrock:*::foundation-model/",
				map[string]any{"Fn::Join": []any{",arn:aws:bedrock:*::foundation-model/", map[string]any{"Fn::Split": []any{",", map[string]any{"Ref": "M"}}}}}}}}}}))}
		if fs := policycheck.Check(res, nil); len(fs) != 0 {
			t.Fatalf("findings %v", fs)
		}
	})
	t.Run("the own log group's streams are allowed", func(t *testing.T) {
		t.Parallel()
		res := map[string]policycheck.Resource{"R": role(stmt([]any{"logs:CreateLogStream", "logs:PutLogEvents"},
			map[string]any{"Fn::Sub": "arn:${AWS::Partition}:logs:${AWS::Region}:${AWS::AccountId}:log-group:/aws/lambda/${AWS::StackName}-x:log-stream:*"}))}
		if fs := policycheck.Check(res, nil); len(fs) != 0 {
			t.Fatalf("findings %v", fs)
		}
	})
}

// bucket is a bucket as the template declares one, without the property
// named by missing.
func bucket(missing string) policycheck.Resource {
	props := map[string]any{
		"BucketEncryption": map[string]any{"ServerSideEncryptionConfiguration": []any{
			map[string]any{"ServerSideEncryptionByDefault": map[string]any{"SSEAlgorithm": "AES256"}}}},
		"PublicAccessBlockConfiguration": map[string]any{"BlockPublicAcls": true, "BlockPublicPolicy": true,
			"IgnorePublicAcls": true, "RestrictPublicBuckets": true},
		"LifecycleConfiguration": map[string]any{"Rules": []any{map[string]any{"Status": "Enabled", "ExpirationInDays": 30}}},
	}
	delete(props, missing)
	return policycheck.Resource{Type: "AWS::S3::Bucket", Properties: props}
}

// TestBedrockGrantIsTheChainsModels resolves the llm role's conditional
// statements as CloudFormation would for several chains: bedrock:InvokeModel
// lands on exactly the Bedrock models named (escalation model included), in
// the stack's partition, with nothing for a chain without Bedrock; the
// Anthropic key is readable only when the chain names Anthropic.
func TestBedrockGrantIsTheChainsModels(t *testing.T) {
	t.Parallel()
	tpl, err := template.ParseFile(filepath.Join(root(t), "template.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	role := policycheck.Resource{Type: tpl.Resources["LLMFuncRole"].Type, Properties: tpl.Resources["LLMFuncRole"].Properties}
	arn := func(partition, id string) string { return "arn:" + partition + ":bedrock:*::foundation-model/" + id }
	tests := []struct {
		name          string
		params        map[string]string
		partition     string
		wantBedrock   []string // nil: no Bedrock statement
		wantAnthropic bool
		wantGoogle    []string // the Gemini and Vertex AI key statements
	}{
		{name: "no bedrock, no anthropic", params: map[string]string{"LLMModels": "gpt-4o-mini,gpt-4o"}},
		{name: "a bedrock model and an openai one",
			params:      map[string]string{"LLMModels": "bedrock:anthropic.claude-3-5-haiku-20241022-v1:0,openai:gpt-4o-mini"},
			wantBedrock: []string{arn("aws", "anthropic.claude-3-5-haiku-20241022-v1:0"), arn("aws", "openai:gpt-4o-mini")}},
		{name: "the escalation model counts",
			params: map[string]string{"LLMModels": "anthropic:claude-3-5-haiku-latest",
				"LLMEscalationModel": "bedrock:anthropic.claude-3-5-sonnet-20241022-v2:0"},
			wantBedrock:   []string{arn("aws", "anthropic:claude-3-5-haiku-latest"), arn("aws", "anthropic.claude-3-5-sonnet-20241022-v2:0")},
			wantAnthropic: true},
		{name: "gemini and vertex keys only when named",
			params:     map[string]string{"LLMModels": "gemini:gemini-2.0-flash,openai:gpt-4o-mini", "LLMEscalationModel": "vertex:gemini-2.5-pro"},
			wantGoogle: []string{"GeminiApiKey", "VertexApiKey"}},
		{name: "govcloud", partition: "aws-us-gov",
			params:      map[string]string{"LLMModels": "bedrock:amazon.nova-lite-v1:0,bedrock:meta.llama3-8b-instruct-v1:0"},
			wantBedrock: []string{arn("aws-us-gov", "amazon.nova-lite-v1:0"), arn("aws-us-gov", "meta.llama3-8b-instruct-v1:0")}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			r, err := template.NewResolver(tpl, template.ResolverConfig{Parameters: tc.params,
				Pseudo: template.Pseudo{Partition: tc.partition, StackName: "s"}})
			if err != nil {
				t.Fatal(err)
			}
			var gotBedrock, gotGoogle []string
			gotAnthropic := false
			pols, _ := role.Properties["Policies"].([]any)
			doc, _ := pols[0].(map[string]any)["PolicyDocument"].(map[string]any)
			for _, st := range doc["Statement"].([]any) {
				m, _ := st.(map[string]any)
				if _, conditional := m["Fn::If"]; !conditional {
					continue
				}
				v, err := r.Resolve(st)
				if err != nil {
					t.Fatal(err)
				}
				res, ok := v.(map[string]any)
				if !ok {
					continue // AWS::NoValue
				}
				switch res["Sid"] {
				case "BedrockChainModels":
					for _, a := range res["Resource"].([]any) {
						gotBedrock = append(gotBedrock, a.(string))
					}
					if fmt.Sprint(res["Action"]) != "[bedrock:InvokeModel]" {
						t.Errorf("actions = %v", res["Action"])
					}
				case "AnthropicApiKey":
					gotAnthropic = true
				case "GeminiApiKey", "VertexApiKey":
					gotGoogle = append(gotGoogle, res["Sid"].(string))
				}
			}
			if fmt.Sprint(gotBedrock) != fmt.Sprint(tc.wantBedrock) {
				t.Errorf("bedrock:InvokeModel on %v, want %v", gotBedrock, tc.wantBedrock)
			}
			if gotAnthropic != tc.wantAnthropic {
				t.Errorf("anthropic key statement = %v, want %v", gotAnthropic, tc.wantAnthropic)
			}
			if fmt.Sprint(gotGoogle) != fmt.Sprint(tc.wantGoogle) {
				t.Errorf("google key statements = %v, want %v", gotGoogle, tc.wantGoogle)
			}
			// Every entry that is not a Bedrock model becomes an ARN no
			// Bedrock model can have: model ids are vendor.name, never
			// "provider:".
			for _, a := range gotBedrock {
				id := strings.TrimPrefix(a[strings.Index(a, "foundation-model/"):], "foundation-model/")
				if strings.Contains(id, "*") || id == "" {
					t.Errorf("resource %q is not one model", a)
				}
			}
		})
	}
}
