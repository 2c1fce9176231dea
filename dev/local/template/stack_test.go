package template_test

import (
	"fmt"
	"maps"
	"slices"
	"testing"

	"github.com/aws/aws-sdk-go-v2/service/cloudformation"

	"github.com/triagehq/triage/dev/local/localtest"
	"github.com/triagehq/triage/dev/local/template"
	"github.com/triagehq/triage/internal/cfnstack"
	"github.com/triagehq/triage/internal/work"
)

func TestMain(m *testing.M) { localtest.Main(m) }

// TestDescribeStackMoto checks the Resolver against what moto's
// CloudFormation itself computed: every output of template.yaml resolves to
// the value describe-stacks reports, and the stage functions' environments
// point at the stack's queues and tables.
func TestDescribeStackMoto(t *testing.T) {
	t.Parallel()
	env := localtest.Stack(t, map[string]string{"BlockPrivateNetworks": "false"})
	info, err := cfnstack.DescribeResources(t.Context(), cloudformation.NewFromConfig(env.AWS), env.Stack.Name)
	if err != nil {
		t.Fatal(err)
	}
	tpl := realTemplate(t)

	// moto lists the skipped functions without ids; queues by URL, tables by name.
	for id, r := range tpl.Resources {
		phys, ok := info.Physical[id]
		switch r.Type {
		case template.TypeFunction:
			if ok {
				t.Errorf("function %s has physical id %q in moto", id, phys)
			}
		case template.TypeQueue, template.TypeTable:
			if !ok {
				t.Errorf("%s %s has no physical id", r.Type, id)
			}
		}
	}
	if got := info.Physical["FetchQueue"]; got != env.Stack.QueueURL(work.Fetch) {
		t.Errorf("FetchQueue physical id = %q, want the queue URL %q", got, env.Stack.QueueURL(work.Fetch))
	}
	if got := info.Physical["ItemsTable"]; got != env.Stack.ItemsTable() {
		t.Errorf("ItemsTable physical id = %q, want the table name %q", got, env.Stack.ItemsTable())
	}

	r, err := template.StackResolver(tpl, info)
	if err != nil {
		t.Fatal(err)
	}
	if p := r.Pseudo(); p.StackName != env.Stack.Name || p.Region != "us-east-1" || p.AccountID != "123456789012" {
		t.Errorf("pseudo = %+v", p)
	}
	for _, key := range slices.Sorted(maps.Keys(tpl.Outputs)) {
		got, err := r.String(tpl.Outputs[key].Value)
		if err != nil {
			t.Errorf("output %s: %v", key, err)
			continue
		}
		if want := info.Outputs[key]; got != want {
			t.Errorf("output %s resolves to %q, moto says %q", key, got, want)
		}
	}

	for _, fn := range tpl.Functions() {
		vars, err := r.ResolveEnv(fn)
		if err != nil {
			t.Errorf("%s: %v", fn.LogicalID, err)
			continue
		}
		stage, err := work.ParseStage(vars["STAGE"])
		if err != nil {
			continue // not a stage function (recovery, scheduler)
		}
		want := map[string]string{
			"QUEUE_URL":      env.Stack.QueueURL(stage),
			"DLQ_URL":        env.Stack.DLQURL(stage),
			"ITEMS_TABLE":    env.Stack.ItemsTable(),
			"ERRORLOG_TABLE": env.Stack.ErrorLogTable(),
			"PARKED_TABLE":   env.Stack.ParkedTable(),
			"GATES_TABLE":    env.Stack.GatesTable(),
		}
		if next, ok := stage.Next(); ok {
			want["NEXT_QUEUE_URL"] = env.Stack.QueueURL(next)
		}
		if stage == work.Fetch {
			want["BLOCK_PRIVATE_NETWORKS"] = "false"
		}
		for k, w := range want {
			if vars[k] != w {
				t.Errorf("%s %s = %q, want %q", fn.LogicalID, k, vars[k], w)
			}
		}
		for _, ev := range fn.Events {
			if ev.Type != template.EventSQS {
				continue
			}
			wantURL, wantARN := env.Stack.QueueURL(stage), env.Stack.QueueARN(stage)
			if ev.Name == "Notices" {
				wantURL, wantARN = env.Stack.NoticeQueueURL(), env.Stack.Outputs["NoticeQueueArn"]
			}
			url, arn, err := r.QueueOf(ev)
			if err != nil || url != wantURL || arn != wantARN {
				t.Errorf("%s %s QueueOf = %q, %q, %v", fn.LogicalID, ev.Name, url, arn, err)
			}
		}
	}
}

func ExampleResolver_ResolveEnv() {
	tpl, err := template.Parse([]byte(`
Parameters:
  LogLevel: {Type: String, Default: info}
Globals:
  Function:
    Environment:
      Variables:
        LOG_LEVEL: !Ref LogLevel
Resources:
  Queue: {Type: AWS::SQS::Queue}
  Func:
    Type: AWS::Serverless::Function
    Properties:
      Handler: bootstrap
      Environment:
        Variables:
          QUEUE_URL: !Ref Queue
          QUEUE_ARN: !GetAtt Queue.Arn
`))
	if err != nil {
		panic(err)
	}
	r, err := template.NewResolver(tpl, template.ResolverConfig{
		Parameters: map[string]string{"LogLevel": "debug"},
		Physical:   map[string]string{"Queue": "https://sqs.us-east-1.amazonaws.com/123456789012/s-Queue-X"},
	})
	if err != nil {
		panic(err)
	}
	fn, _ := tpl.Function("Func")
	env, err := r.ResolveEnv(fn)
	if err != nil {
		panic(err)
	}
	for _, k := range slices.Sorted(maps.Keys(env)) {
		fmt.Printf("%s=%s\n", k, env[k])
	}
	// Output:
	// LOG_LEVEL=debug
	// QUEUE_ARN=arn:aws:sqs:us-east-1:123456789012:s-Queue-X
	// QUEUE_URL=https://sqs.us-east-1.amazonaws.com/123456789012/s-Queue-X
}
