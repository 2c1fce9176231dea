package stack_test

import (
	"encoding/json"
	"errors"
	"maps"
	"os"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/cloudformation"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	ddbtypes "github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"github.com/aws/aws-sdk-go-v2/service/s3"
	s3types "github.com/aws/aws-sdk-go-v2/service/s3/types"
	"github.com/aws/aws-sdk-go-v2/service/sqs"
	sqstypes "github.com/aws/aws-sdk-go-v2/service/sqs/types"
	"github.com/aws/aws-sdk-go-v2/service/ssm"
	ssmtypes "github.com/aws/aws-sdk-go-v2/service/ssm/types"

	"github.com/triagehq/triage/dev/local/localtest"
	"github.com/triagehq/triage/dev/local/moto"
	"github.com/triagehq/triage/dev/local/stack"
	"github.com/triagehq/triage/dev/local/template"
	"github.com/triagehq/triage/internal/cfnstack"
	"github.com/triagehq/triage/internal/intake"
	"github.com/triagehq/triage/internal/store"
	"github.com/triagehq/triage/internal/work"
)

func TestMain(m *testing.M) { localtest.Main(m) }

func TestCreate(t *testing.T) {
	t.Parallel()
	env := localtest.Stack(t, nil)
	st := env.Stack

	t.Run("outputs", func(t *testing.T) {
		t.Parallel()
		for _, k := range stack.RequiredOutputs() {
			if v, err := st.Output(k); err != nil || v == "" {
				t.Errorf("output %s = %q, %v", k, v, err)
			}
		}
		// moto hands back AWS-shaped queue URLs, and queue/table names of the
		// form <stack>-<LogicalId>-<12 random>.
		queueURL := regexp.MustCompile(`^https://sqs\.us-east-1\.amazonaws\.com/` + moto.AccountID + `/` + st.Name + `-[A-Za-z]+-[0-9A-Z]{12}$`)
		for _, stage := range work.Stages() {
			for url, arn := range map[string]string{st.QueueURL(stage): st.QueueARN(stage), st.DLQURL(stage): st.DLQARN(stage)} {
				if !queueURL.MatchString(url) {
					t.Errorf("%s queue URL %q does not match %s", stage, url, queueURL)
				}
				name := url[strings.LastIndex(url, "/")+1:]
				if want := "arn:aws:sqs:us-east-1:" + moto.AccountID + ":" + name; arn != want {
					t.Errorf("%s queue ARN = %q, want %q", stage, arn, want)
				}
			}
		}
		for _, table := range []string{st.ItemsTable(), st.ErrorLogTable(), st.ParkedTable()} {
			if !strings.HasPrefix(table, st.Name+"-") {
				t.Errorf("table %q does not carry the stack name", table)
			}
		}
	})

	t.Run("queues", func(t *testing.T) {
		t.Parallel()
		client := sqs.NewFromConfig(env.AWS)
		visibility := map[work.Stage]string{work.Fetch: "180", work.LLM: "540", work.Notify: "180"}
		for _, stage := range work.Stages() {
			main := queueAttributes(t, client, st.QueueURL(stage))
			dlq := queueAttributes(t, client, st.DLQURL(stage))
			for name, attrs := range map[string]map[string]string{"queue": main, "DLQ": dlq} {
				if attrs["SqsManagedSseEnabled"] != "true" {
					t.Errorf("%s %s: SqsManagedSseEnabled = %q", stage, name, attrs["SqsManagedSseEnabled"])
				}
				if attrs["MessageRetentionPeriod"] != "1209600" {
					t.Errorf("%s %s: MessageRetentionPeriod = %q, want 14 days", stage, name, attrs["MessageRetentionPeriod"])
				}
			}
			if main["VisibilityTimeout"] != visibility[stage] {
				t.Errorf("%s queue: VisibilityTimeout = %q, want %s", stage, main["VisibilityTimeout"], visibility[stage])
			}
			var redrive struct {
				DeadLetterTargetArn string `json:"deadLetterTargetArn"`
				MaxReceiveCount     int    `json:"maxReceiveCount"`
			}
			if err := json.Unmarshal([]byte(main["RedrivePolicy"]), &redrive); err != nil {
				t.Fatalf("%s queue: RedrivePolicy %q: %v", stage, main["RedrivePolicy"], err)
			}
			if redrive.DeadLetterTargetArn != st.DLQARN(stage) || redrive.MaxReceiveCount != 50 {
				t.Errorf("%s queue: RedrivePolicy = %+v, want DLQ %s and the backstop 50", stage, redrive, st.DLQARN(stage))
			}
			if _, ok := dlq["RedrivePolicy"]; ok {
				t.Errorf("%s DLQ has a RedrivePolicy", stage)
			}
		}
	})

	t.Run("tables", func(t *testing.T) {
		t.Parallel()
		client := dynamodb.NewFromConfig(env.AWS)
		type index struct{ name, hash, rng, projection string }
		for _, tc := range []struct {
			table, hash, rng string
			gsis             []index
			ttl              string
			pitr             bool
		}{
			{st.ItemsTable(), "item_id", "", []index{{"by-listed-state", "list_key", "list_at", "KEYS_ONLY"}}, "", true},
			{st.ErrorLogTable(), "item_id", "occurred_at", []index{{"by-class-shard", "class_shard", "occurred_at", "ALL"}, {"by-unrecognised", "unrecognised_shard", "occurred_at", "ALL"}}, "expires_at", false},
			{st.ParkedTable(), "item_id", "", []index{{"by-due", "shard", "due_at", "ALL"}, {"by-gate", "gate", "parked_at", "ALL"}}, "expires_at", false},
			{st.GatesTable(), "gate", "", nil, "", false},
		} {
			out, err := client.DescribeTable(t.Context(), &dynamodb.DescribeTableInput{TableName: aws.String(tc.table)})
			if err != nil {
				t.Fatalf("DescribeTable %s: %v", tc.table, err)
			}
			d := out.Table
			if d.BillingModeSummary == nil || d.BillingModeSummary.BillingMode != ddbtypes.BillingModePayPerRequest {
				t.Errorf("%s: billing mode %+v, want PAY_PER_REQUEST", tc.table, d.BillingModeSummary)
			}
			if h, r := keys(d.KeySchema); h != tc.hash || r != tc.rng {
				t.Errorf("%s: key (%s, %s), want (%s, %s)", tc.table, h, r, tc.hash, tc.rng)
			}
			if len(d.GlobalSecondaryIndexes) != len(tc.gsis) {
				t.Fatalf("%s: %d GSIs, want %d", tc.table, len(d.GlobalSecondaryIndexes), len(tc.gsis))
			}
			for _, g := range d.GlobalSecondaryIndexes {
				h, r := keys(g.KeySchema)
				got := index{aws.ToString(g.IndexName), h, r, ""}
				if g.Projection != nil {
					got.projection = string(g.Projection.ProjectionType)
				}
				if !slices.Contains(tc.gsis, got) {
					t.Errorf("%s: GSI %+v, want one of %+v", tc.table, got, tc.gsis)
				}
			}

			ttl, err := client.DescribeTimeToLive(t.Context(), &dynamodb.DescribeTimeToLiveInput{TableName: aws.String(tc.table)})
			if err != nil {
				t.Fatalf("DescribeTimeToLive %s: %v", tc.table, err)
			}
			d2 := ttl.TimeToLiveDescription
			switch {
			case tc.ttl == "" && d2.TimeToLiveStatus == ddbtypes.TimeToLiveStatusEnabled:
				t.Errorf("%s: TTL enabled on %s, want none", tc.table, aws.ToString(d2.AttributeName))
			case tc.ttl != "" && (d2.TimeToLiveStatus != ddbtypes.TimeToLiveStatusEnabled || aws.ToString(d2.AttributeName) != tc.ttl):
				t.Errorf("%s: TTL %s on %q, want ENABLED on %s", tc.table, d2.TimeToLiveStatus, aws.ToString(d2.AttributeName), tc.ttl)
			}

			backups, err := client.DescribeContinuousBackups(t.Context(), &dynamodb.DescribeContinuousBackupsInput{TableName: aws.String(tc.table)})
			if err != nil {
				t.Fatalf("DescribeContinuousBackups %s: %v", tc.table, err)
			}
			pitr := backups.ContinuousBackupsDescription.PointInTimeRecoveryDescription
			if on := pitr != nil && pitr.PointInTimeRecoveryStatus == ddbtypes.PointInTimeRecoveryStatusEnabled; on != tc.pitr {
				t.Errorf("%s: point-in-time recovery %v, want %v", tc.table, on, tc.pitr)
			}
		}
	})

	t.Run("the bodies bucket is encrypted, private and expires objects", func(t *testing.T) {
		t.Parallel()
		cfg := env.AWS
		c := s3.NewFromConfig(cfg, func(o *s3.Options) { o.UsePathStyle = true })
		b := aws.String(st.BodiesBucket())
		enc, err := c.GetBucketEncryption(t.Context(), &s3.GetBucketEncryptionInput{Bucket: b})
		if err != nil || len(enc.ServerSideEncryptionConfiguration.Rules) != 1 ||
			enc.ServerSideEncryptionConfiguration.Rules[0].ApplyServerSideEncryptionByDefault.SSEAlgorithm != s3types.ServerSideEncryptionAes256 {
			t.Fatalf("encryption: %+v, %v", enc, err)
		}
		pab, err := c.GetPublicAccessBlock(t.Context(), &s3.GetPublicAccessBlockInput{Bucket: b})
		if err != nil || !aws.ToBool(pab.PublicAccessBlockConfiguration.BlockPublicPolicy) || !aws.ToBool(pab.PublicAccessBlockConfiguration.RestrictPublicBuckets) {
			t.Fatalf("public access block: %+v, %v", pab, err)
		}
		lc, err := c.GetBucketLifecycleConfiguration(t.Context(), &s3.GetBucketLifecycleConfigurationInput{Bucket: b})
		if err != nil || len(lc.Rules) != 1 || aws.ToInt32(lc.Rules[0].Expiration.Days) != 30 {
			t.Fatalf("lifecycle: %+v, %v", lc, err)
		}
		dbc := dynamodb.NewFromConfig(cfg)
		out, err := dbc.DescribeTable(t.Context(), &dynamodb.DescribeTableInput{TableName: aws.String(st.BodiesTable())})
		if err != nil {
			t.Fatal(err)
		}
		if h, r := keys(out.Table.KeySchema); h != "item_id" || r != "part" {
			t.Fatalf("bodies table key (%s, %s), want (item_id, part)", h, r)
		}
	})

	t.Run("unknown stage panics", func(t *testing.T) {
		t.Parallel()
		defer func() {
			if r := recover(); r == nil || !strings.Contains(r.(string), "unknown stage") {
				t.Errorf("recover() = %v, want an unknown-stage panic", r)
			}
		}()
		st.QueueURL("redrive")
	})
}

// TestCreateWithParameters also shows that a value with commas (the model
// chain) survives CreateStack.
func TestCreateWithParameters(t *testing.T) {
	t.Parallel()
	env := localtest.Stack(t, map[string]string{
		"BackstopMaxReceiveCount": "7",
		"LLMModels":               "gpt-4o-mini,gpt-4o",
		"Profile":                 "predictions",
	})
	if got := env.Stack.Parameters["LLMModels"]; got != "gpt-4o-mini,gpt-4o" {
		t.Errorf("LLMModels = %q", got)
	}
	if got := env.Stack.Parameters["LLMApiKeyParameter"]; got != "/triage/llm-api-key" {
		t.Errorf("LLMApiKeyParameter = %q, want the default", got)
	}
	attrs := queueAttributes(t, sqs.NewFromConfig(env.AWS), env.Stack.QueueURL(work.LLM))
	if !strings.Contains(attrs["RedrivePolicy"], `"maxReceiveCount": 7`) && !strings.Contains(attrs["RedrivePolicy"], `"maxReceiveCount":7`) {
		t.Errorf("RedrivePolicy = %s, want maxReceiveCount 7", attrs["RedrivePolicy"])
	}
}

func TestDelete(t *testing.T) {
	t.Parallel()
	endpoint := localtest.Endpoint(t)
	st, err := stack.Create(t.Context(), stack.Options{
		Endpoint:     endpoint,
		Name:         localtest.UniqueName(t),
		TemplatePath: localtest.TemplatePath(t),
	})
	if err != nil {
		t.Fatal(err)
	}
	if err := st.Delete(t.Context()); err != nil {
		t.Fatalf("Delete: %v", err)
	}
	cfg, err := moto.Config(t.Context(), endpoint)
	if err != nil {
		t.Fatal(err)
	}
	queues, err := sqs.NewFromConfig(cfg).ListQueues(t.Context(), &sqs.ListQueuesInput{QueueNamePrefix: aws.String(st.Name + "-")})
	if err != nil {
		t.Fatal(err)
	}
	if len(queues.QueueUrls) != 0 {
		t.Errorf("queues left after Delete: %v", queues.QueueUrls)
	}
	_, err = dynamodb.NewFromConfig(cfg).DescribeTable(t.Context(), &dynamodb.DescribeTableInput{TableName: aws.String(st.ItemsTable())})
	var notFound *ddbtypes.ResourceNotFoundException
	if !errors.As(err, &notFound) {
		t.Errorf("DescribeTable after Delete: %v, want ResourceNotFoundException", err)
	}
}

func TestCreateRejectsUnknownParameter(t *testing.T) {
	t.Parallel()
	endpoint := localtest.Endpoint(t)
	_, err := stack.Create(t.Context(), stack.Options{
		Endpoint:     endpoint,
		Name:         localtest.UniqueName(t),
		TemplatePath: localtest.TemplatePath(t),
		Parameters:   map[string]string{"LlmModels": "gpt-4o"},
	})
	if err == nil || !strings.Contains(err.Error(), `no parameter "LlmModels"`) {
		t.Errorf("Create with a misspelt parameter: %v, want an error naming it", err)
	}
}

func TestPutSecureParameter(t *testing.T) {
	t.Parallel()
	endpoint := localtest.Endpoint(t)
	cfg, err := moto.Config(t.Context(), endpoint)
	if err != nil {
		t.Fatal(err)
	}
	name := "/triage-test/" + localtest.UniqueName(t) + "/llm-api-key"
	for _, value := range []string{"sk-first", "sk-rotated"} { // the second put overwrites
		if err := stack.PutSecureParameter(t.Context(), cfg, name, value); err != nil {
			t.Fatal(err)
		}
		out, err := ssm.NewFromConfig(cfg).GetParameter(t.Context(), &ssm.GetParameterInput{Name: aws.String(name), WithDecryption: aws.Bool(true)})
		if err != nil {
			t.Fatalf("GetParameter: %v", err)
		}
		if p := out.Parameter; aws.ToString(p.Value) != value || p.Type != ssmtypes.ParameterTypeSecureString {
			t.Errorf("parameter = %q (%s), want %q (SecureString)", aws.ToString(p.Value), p.Type, value)
		}
	}
}

func TestCreateErrors(t *testing.T) {
	t.Parallel()
	base := stack.Options{Endpoint: "http://127.0.0.1:1", Name: "ok", TemplatePath: "../../../template.yaml"}
	for name, tc := range map[string]struct {
		mutate func(*stack.Options)
		want   string
	}{
		"empty parameter":  {func(o *stack.Options) { o.Parameters = map[string]string{"": "x"} }, "empty parameter key"},
		"invalid name":     {func(o *stack.Options) { o.Name = "1-bad_name" }, "invalid stack name"},
		"missing template": {func(o *stack.Options) { o.TemplatePath = "nope.yaml" }, "template"},
		"no endpoint":      {func(o *stack.Options) { o.Endpoint = "" }, "required"},
	} {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			opts := base
			tc.mutate(&opts)
			_, err := stack.Create(t.Context(), opts)
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("Create: %v, want an error containing %q", err, tc.want)
			}
		})
	}
}

// TestTTLAttributeMatchesTemplate keeps stack.TTLAttribute (applied to moto,
// whose CloudFormation ignores TimeToLiveSpecification) in step with the
// template: every table with a TimeToLiveSpecification is listed, on the
// same attribute.
func TestTTLAttributeMatchesTemplate(t *testing.T) {
	t.Parallel()
	b, err := os.ReadFile(localtest.TemplatePath(t))
	if err != nil {
		t.Fatal(err)
	}
	got := map[string]string{}
	for logicalID, body := range resources(string(b)) {
		_, spec, ok := strings.Cut(body, "TimeToLiveSpecification:")
		if !ok {
			continue
		}
		m := regexp.MustCompile(`AttributeName:\s*(\S+)`).FindStringSubmatch(spec)
		if m == nil {
			t.Fatalf("%s: TimeToLiveSpecification without AttributeName", logicalID)
		}
		got[logicalID+"Name"] = m[1]
	}
	if len(got) == 0 || !maps.Equal(got, stack.TTLAttribute) {
		t.Errorf("template TTL attributes %v, stack.TTLAttribute %v", got, stack.TTLAttribute)
	}
}

// resources splits template.yaml's Resources section into each resource's
// text by logical id (two-space indented keys).
func resources(tpl string) map[string]string {
	_, rest, _ := strings.Cut(tpl, "\nResources:\n")
	if i := regexp.MustCompile(`(?m)^\S`).FindStringIndex(rest); i != nil {
		rest = rest[:i[0]]
	}
	out := map[string]string{}
	var id string
	for line := range strings.SplitSeq(rest, "\n") {
		if m := regexp.MustCompile(`^  ([A-Za-z0-9]+):\s*$`).FindStringSubmatch(line); m != nil {
			id = m[1]
			continue
		}
		if id != "" {
			out[id] += line + "\n"
		}
	}
	return out
}

func queueAttributes(t *testing.T, client *sqs.Client, url string) map[string]string {
	t.Helper()
	out, err := client.GetQueueAttributes(t.Context(), &sqs.GetQueueAttributesInput{
		QueueUrl:       aws.String(url),
		AttributeNames: []sqstypes.QueueAttributeName{sqstypes.QueueAttributeNameAll},
	})
	if err != nil {
		t.Fatalf("GetQueueAttributes %s: %v", url, err)
	}
	return out.Attributes
}

func keys(schema []ddbtypes.KeySchemaElement) (hash, rng string) {
	for _, k := range schema {
		switch k.KeyType {
		case ddbtypes.KeyTypeHash:
			hash = aws.ToString(k.AttributeName)
		case ddbtypes.KeyTypeRange:
			rng = aws.ToString(k.AttributeName)
		}
	}
	return hash, rng
}

// BenchmarkCreate measures creating a stack from template.yaml in a running
// moto (create-stack, describe-stacks, the TTL/PITR fill-in).
func BenchmarkCreate(b *testing.B) {
	localtest.Endpoint(b) // start the shared server outside the timing
	for b.Loop() {
		localtest.Stack(b, nil)
	}
}

// TestScheduledTask creates the stack with the optional schedule on (moto
// must still create it) and checks that the schedule's input, as
// CloudFormation renders it and Scheduler fills in a run's time, is a
// message the producer contract accepts: an action task with its
// parameters, one item per run.
func TestScheduledTask(t *testing.T) {
	t.Parallel()
	params := map[string]string{
		"ScheduledTaskSchedule":   "cron(0 6 * * ? *)",
		"ScheduledTaskName":       "daily-digest",
		"ScheduledTaskSourceUrl":  "https://tasks.example.com/digest",
		"ScheduledTaskWebhookUrl": "https://hooks.example.com/digest",
		"ScheduledTaskParameters": `{"audience":"ops","window":"24h"}`,
	}
	env := localtest.Stack(t, params)
	info, err := cfnstack.DescribeResources(t.Context(), cloudformation.NewFromConfig(env.AWS), env.Stack.Name)
	if err != nil {
		t.Fatal(err)
	}
	tpl, err := template.ParseFile(localtest.TemplatePath(t))
	if err != nil {
		t.Fatal(err)
	}
	// The condition holds: the role is created. (moto 5.2's CloudFormation
	// has no AWS::Scheduler::Schedule and skips the schedule itself, as it
	// skips the functions; cfn-lint checks its properties.)
	if info.Physical["ScheduledTaskRole"] == "" {
		t.Fatalf("the schedule's role was not created: %v", info.Physical)
	}
	sched, ok := tpl.Resources["ScheduledTask"]
	if !ok || sched.Condition != "HasScheduledTask" {
		t.Fatalf("template.yaml has no conditional ScheduledTask: %+v", sched)
	}
	r, err := template.StackResolver(tpl, info)
	if err != nil {
		t.Fatal(err)
	}
	target, _ := sched.Properties["Target"].(map[string]any)
	input, err := r.String(target["Input"])
	if err != nil {
		t.Fatalf("resolve the schedule's input: %v", err)
	}
	arn, err := r.String(target["Arn"])
	if err != nil || arn != env.Stack.QueueARN(work.Fetch) {
		t.Fatalf("the schedule targets %q (%v), want the fetch queue", arn, err)
	}
	runs := map[string]bool{}
	for _, at := range []string{"2026-11-21T06:00:00Z", "2026-11-22T06:00:00Z"} {
		body := strings.ReplaceAll(input, "<aws.scheduler.scheduled-time>", at)
		spec, unknown, err := intake.Decode(body)
		if err != nil || len(unknown) != 0 {
			t.Fatalf("run at %s sends %q: %v (unknown %v)", at, body, err, unknown)
		}
		if spec.Kind != store.KindAction || spec.SourceURL != params["ScheduledTaskSourceUrl"] ||
			spec.WebhookURL != params["ScheduledTaskWebhookUrl"] || spec.Metadata["audience"] != "ops" || spec.Metadata["window"] != "24h" {
			t.Fatalf("run at %s: %+v", at, spec)
		}
		runs[spec.ItemID] = true
	}
	if !runs["daily-digest-2026-11-21T06:00:00Z"] || len(runs) != 2 {
		t.Fatalf("item ids %v: want one per run", runs)
	}
}

// TestScheduledTaskIsOptional: without a schedule, CloudFormation's
// condition leaves the schedule and its role out.
func TestScheduledTaskIsOptional(t *testing.T) {
	t.Parallel()
	env := localtest.Stack(t, nil)
	info, err := cfnstack.DescribeResources(t.Context(), cloudformation.NewFromConfig(env.AWS), env.Stack.Name)
	if err != nil {
		t.Fatal(err)
	}
	for _, id := range []string{"ScheduledTask", "ScheduledTaskRole"} {
		if phys, ok := info.Physical[id]; ok {
			t.Errorf("%s was created (%s) without a schedule", id, phys)
		}
	}
}
