// Package stack creates triage's CloudFormation stack from template.yaml in
// a local AWS (moto) through the SDK's CloudFormation client — the
// CreateStack a deployment makes, with no aws CLI needed — and exposes the
// stack's outputs (queue URLs and ARNs, table names) through typed
// accessors. It reads the stack with cfnstack, the project's one
// describe-stack.
//
// moto creates the queues and tables and skips the AWS::Serverless::Function
// resources, which is why template.yaml's Outputs never reference a function.
// The local stack's SQS is not moto's but the emulator in front of it
// (package sqs, served by moto's Front): Create creates the template's
// queues there too, with their template properties, under the names moto
// gave them, so the outputs' queue URLs name them.
// The same holds for DynamoDB: the local stack's is package dynamo in front
// of moto, and Create creates the template's tables there, with their keys
// and indexes, under the names moto gave them.
// moto's CloudFormation also ignores a table's TimeToLiveSpecification and
// PointInTimeRecoverySpecification; Create applies those through the
// DynamoDB API afterwards, so the local tables describe like deployed ones.
package stack

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"os"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/cloudformation"
	cfntypes "github.com/aws/aws-sdk-go-v2/service/cloudformation/types"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	ddbtypes "github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"github.com/aws/aws-sdk-go-v2/service/s3"
	s3types "github.com/aws/aws-sdk-go-v2/service/s3/types"
	"github.com/aws/aws-sdk-go-v2/service/sqs"
	"github.com/aws/aws-sdk-go-v2/service/ssm"
	ssmtypes "github.com/aws/aws-sdk-go-v2/service/ssm/types"

	"github.com/triagehq/triage/dev/local/moto"
	"github.com/triagehq/triage/internal/cfnstack"
	"github.com/triagehq/triage/internal/work"
)

// Output keys of template.yaml that are not per stage.
const (
	OutputItemsTable    = "ItemsTableName"
	OutputErrorLogTable = "ErrorLogTableName"
	OutputParkedTable   = "ParkedTableName"
	OutputBodiesTable   = "BodiesTableName"
	OutputBodiesBucket  = "BodiesBucketName"
	// OutputNoticeQueueURL is the owner-notice queue; OutputAuditTable the
	// audit trail of action executions and notices.
	OutputNoticeQueueURL = "NoticeQueueUrl"
	OutputAuditTable     = "AuditTableName"
	OutputGatesTable     = "GatesTableName"
)

// TTLAttribute is the attribute holding each TTL-enabled table's expiry
// (epoch seconds), keyed by the table's output. It mirrors the tables'
// TimeToLiveSpecification in template.yaml (a test keeps them in step).
var TTLAttribute = map[string]string{
	OutputErrorLogTable: "expires_at",
	OutputParkedTable:   "expires_at",
	OutputBodiesTable:   "expires_at",
	OutputAuditTable:    "expires_at",
}

// pitrTables are the outputs of the tables with point-in-time recovery in
// template.yaml.
var pitrTables = []string{OutputItemsTable}

// outputPrefix maps a stage to the prefix of its outputs in template.yaml
// ("LLM" + "QueueUrl").
var outputPrefix = map[work.Stage]string{
	work.Fetch:  "Fetch",
	work.LLM:    "LLM",
	work.Notify: "Notify",
}

// Kinds of per-stage output, appended to the stage's prefix.
const (
	kindQueueURL = "QueueUrl"
	kindQueueARN = "QueueArn"
	kindDLQURL   = "DLQUrl"
	kindDLQARN   = "DLQArn"
)

// StageOutput returns the output key of kind ("QueueUrl", "QueueArn",
// "DLQUrl" or "DLQArn") for stage, e.g. "LLMQueueUrl"; "" for an unknown
// stage.
func StageOutput(stage work.Stage, kind string) string {
	p, ok := outputPrefix[stage]
	if !ok {
		return ""
	}
	return p + kind
}

// RequiredOutputs lists every output Create insists on, sorted.
func RequiredOutputs() []string {
	keys := []string{OutputItemsTable, OutputErrorLogTable, OutputParkedTable, OutputGatesTable, OutputBodiesTable,
		OutputBodiesBucket, OutputNoticeQueueURL, OutputAuditTable}
	for _, st := range work.Stages() {
		for _, k := range []string{kindQueueURL, kindQueueARN, kindDLQURL, kindDLQARN} {
			keys = append(keys, StageOutput(st, k))
		}
	}
	slices.Sort(keys)
	return keys
}

// Options configure Create.
type Options struct {
	// Endpoint is the local AWS, e.g. moto.Server.URL. Required.
	Endpoint string
	// Name is the stack name: a letter, then letters, digits and hyphens.
	// Keep it under ~45 characters: moto names a queue
	// "<stack>-<LogicalId>-<12 chars>" and SQS allows 80. Required.
	Name string
	// TemplatePath is template.yaml. Required.
	TemplatePath string
	// Parameters override template parameters by key; values may contain
	// commas (LLMModels).
	Parameters map[string]string
	// Timeout bounds the whole creation, polling included; default 60s.
	Timeout time.Duration
}

// Stack is a created stack and its outputs.
type Stack struct {
	// Name is the stack name.
	Name string
	// ID is the stack's ARN.
	ID string
	// Outputs maps each output key to its value; it holds at least
	// RequiredOutputs.
	Outputs map[string]string
	// Parameters maps every template parameter to its effective value
	// (defaults included), as describe-stacks reports them.
	Parameters map[string]string

	endpoint string
	cfn      *cloudformation.Client
	sqs      *sqs.Client
	// queues are the names of the stack's queues (createQueues).
	queues []string
	db     *dynamodb.Client
	// tables are the tables createTables created in the local DynamoDB.
	tables []string
}

const (
	defaultTimeout = 60 * time.Second
	pollEvery      = 250 * time.Millisecond
)

var stackNameRE = regexp.MustCompile(`^[A-Za-z][-A-Za-z0-9]{0,127}$`)

// Create calls CreateStack against opts.Endpoint, polls DescribeStacks until
// CREATE_COMPLETE (bounded by opts.Timeout), applies what moto's
// CloudFormation skips (TTL, point-in-time recovery) and returns the stack.
// It fails on any other terminal status (naming the failed resources), on a
// parameter the template does not declare (moto would ignore it) and on a
// missing required output.
func Create(ctx context.Context, opts Options) (*Stack, error) {
	if opts.Endpoint == "" || opts.TemplatePath == "" {
		return nil, errors.New("create stack: Endpoint and TemplatePath are required")
	}
	if !stackNameRE.MatchString(opts.Name) {
		return nil, fmt.Errorf("create stack: invalid stack name %q (a letter, then letters, digits, hyphens)", opts.Name)
	}
	if opts.Timeout <= 0 {
		opts.Timeout = defaultTimeout
	}
	body, err := os.ReadFile(opts.TemplatePath)
	if err != nil {
		return nil, fmt.Errorf("create stack %s: template: %w", opts.Name, err)
	}
	for k := range opts.Parameters {
		if k == "" {
			return nil, fmt.Errorf("create stack %s: empty parameter key", opts.Name)
		}
	}
	ctx, cancel := context.WithTimeout(ctx, opts.Timeout)
	defer cancel()
	cfg, err := moto.Config(ctx, opts.Endpoint)
	if err != nil {
		return nil, fmt.Errorf("create stack %s: %w", opts.Name, err)
	}
	s := &Stack{Name: opts.Name, endpoint: opts.Endpoint, cfn: cloudformation.NewFromConfig(cfg), sqs: sqs.NewFromConfig(cfg),
		db: dynamodb.NewFromConfig(cfg)}
	params := make([]cfntypes.Parameter, 0, len(opts.Parameters))
	for _, k := range slices.Sorted(maps.Keys(opts.Parameters)) {
		params = append(params, cfntypes.Parameter{ParameterKey: aws.String(k), ParameterValue: aws.String(opts.Parameters[k])})
	}
	out, err := s.cfn.CreateStack(ctx, &cloudformation.CreateStackInput{
		StackName:    aws.String(opts.Name),
		TemplateBody: aws.String(string(body)),
		Capabilities: []cfntypes.Capability{cfntypes.CapabilityCapabilityIam, cfntypes.CapabilityCapabilityAutoExpand},
		Parameters:   params,
	})
	if err != nil {
		return nil, fmt.Errorf("create stack %s: %w", opts.Name, err)
	}
	s.ID = aws.ToString(out.StackId)

	if err := s.waitComplete(ctx); err != nil {
		return nil, fmt.Errorf("create stack %s: %w", opts.Name, err)
	}
	// moto accepts parameters the template does not declare (and skips
	// AllowedValues/AllowedPattern); a misspelt key would silently leave the
	// default in place, so refuse it here as CloudFormation would.
	for _, k := range slices.Sorted(maps.Keys(opts.Parameters)) {
		if _, ok := s.Parameters[k]; !ok {
			return nil, fmt.Errorf("create stack %s: template has no parameter %q (has %s)", opts.Name, k,
				strings.Join(slices.Sorted(maps.Keys(s.Parameters)), ", "))
		}
	}
	if missing := s.missingOutputs(); len(missing) > 0 {
		return nil, fmt.Errorf("create stack %s: template.yaml lacks outputs %s", opts.Name, strings.Join(missing, ", "))
	}
	if err := s.createTables(ctx, s.db, opts.TemplatePath); err != nil {
		return nil, fmt.Errorf("create stack %s: %w", opts.Name, err)
	}
	if err := s.fillMotoGaps(ctx, cfg); err != nil {
		return nil, fmt.Errorf("create stack %s: %w", opts.Name, err)
	}
	if err := s.createQueues(ctx, s.sqs, opts.TemplatePath); err != nil {
		return nil, fmt.Errorf("create stack %s: %w", opts.Name, err)
	}
	return s, nil
}

// waitComplete polls DescribeStacks until a terminal status. moto creates
// synchronously, so the first poll normally sees CREATE_COMPLETE.
func (s *Stack) waitComplete(ctx context.Context) error {
	for {
		info, err := cfnstack.Describe(ctx, s.cfn, s.Name)
		if err != nil {
			return err
		}
		switch st := info.Status; {
		case st == string(cfntypes.StackStatusCreateComplete):
			s.Outputs, s.Parameters = info.Outputs, info.Parameters
			return nil
		case strings.HasSuffix(st, "_IN_PROGRESS") && !strings.Contains(st, "ROLLBACK"):
		default:
			return fmt.Errorf("stack status %s %s%s", st, info.StatusReason, s.failureReasons(ctx))
		}
		select {
		case <-ctx.Done():
			return fmt.Errorf("waiting for CREATE_COMPLETE: %w", ctx.Err())
		case <-time.After(pollEvery):
		}
	}
}

// failureReasons lists the resources that failed, best effort.
func (s *Stack) failureReasons(ctx context.Context) string {
	out, err := s.cfn.DescribeStackEvents(ctx, &cloudformation.DescribeStackEventsInput{StackName: aws.String(s.Name)})
	if err != nil {
		return ""
	}
	var b strings.Builder
	for _, e := range out.StackEvents {
		if strings.HasSuffix(string(e.ResourceStatus), "_FAILED") {
			fmt.Fprintf(&b, "; %s %s: %s", aws.ToString(e.LogicalResourceId), e.ResourceStatus, aws.ToString(e.ResourceStatusReason))
		}
	}
	return b.String()
}

func (s *Stack) missingOutputs() []string {
	var missing []string
	for _, k := range RequiredOutputs() {
		if s.Outputs[k] == "" {
			missing = append(missing, k)
		}
	}
	return missing
}

// fillMotoGaps applies the table settings moto's CloudFormation ignores.
func (s *Stack) fillMotoGaps(ctx context.Context, cfg aws.Config) error {
	db := dynamodb.NewFromConfig(cfg)
	for _, out := range slices.Sorted(maps.Keys(TTLAttribute)) {
		table := s.Outputs[out]
		_, err := db.UpdateTimeToLive(ctx, &dynamodb.UpdateTimeToLiveInput{
			TableName: aws.String(table),
			TimeToLiveSpecification: &ddbtypes.TimeToLiveSpecification{
				AttributeName: aws.String(TTLAttribute[out]), Enabled: aws.Bool(true),
			},
		})
		if err != nil {
			return fmt.Errorf("enable TTL on %s: %w", table, err)
		}
	}
	if err := s.fillBucketGaps(ctx, cfg); err != nil {
		return err
	}
	for _, out := range pitrTables {
		table := s.Outputs[out]
		_, err := db.UpdateContinuousBackups(ctx, &dynamodb.UpdateContinuousBackupsInput{
			TableName: aws.String(table),
			PointInTimeRecoverySpecification: &ddbtypes.PointInTimeRecoverySpecification{
				PointInTimeRecoveryEnabled: aws.Bool(true),
			},
		})
		if err != nil {
			return fmt.Errorf("enable point-in-time recovery on %s: %w", table, err)
		}
	}
	return nil
}

// fillBucketGaps applies what moto's CloudFormation skips on the bodies
// bucket, as template.yaml declares it: the public access block and the
// lifecycle rule that expires bodies after BodyRetentionDays.
func (s *Stack) fillBucketGaps(ctx context.Context, cfg aws.Config) error {
	bucket := s.Outputs[OutputBodiesBucket]
	days, err := strconv.Atoi(s.Parameters["BodyRetentionDays"])
	if err != nil {
		return fmt.Errorf("bucket %s: BodyRetentionDays %q: %w", bucket, s.Parameters["BodyRetentionDays"], err)
	}
	c := s3.NewFromConfig(cfg, func(o *s3.Options) { o.UsePathStyle = true })
	_, err = c.PutPublicAccessBlock(ctx, &s3.PutPublicAccessBlockInput{
		Bucket: aws.String(bucket),
		PublicAccessBlockConfiguration: &s3types.PublicAccessBlockConfiguration{
			BlockPublicAcls: aws.Bool(true), BlockPublicPolicy: aws.Bool(true),
			IgnorePublicAcls: aws.Bool(true), RestrictPublicBuckets: aws.Bool(true),
		},
	})
	if err != nil {
		return fmt.Errorf("block public access to %s: %w", bucket, err)
	}
	_, err = c.PutBucketLifecycleConfiguration(ctx, &s3.PutBucketLifecycleConfigurationInput{
		Bucket: aws.String(bucket),
		LifecycleConfiguration: &s3types.BucketLifecycleConfiguration{Rules: []s3types.LifecycleRule{{
			ID: aws.String("expire-bodies"), Status: s3types.ExpirationStatusEnabled,
			Filter:                         &s3types.LifecycleRuleFilter{Prefix: aws.String("")},
			Expiration:                     &s3types.LifecycleExpiration{Days: aws.Int32(int32(days))},
			AbortIncompleteMultipartUpload: &s3types.AbortIncompleteMultipartUpload{DaysAfterInitiation: aws.Int32(1)},
		}}},
	})
	if err != nil {
		return fmt.Errorf("lifecycle rule on %s: %w", bucket, err)
	}
	return nil
}

// Delete calls DeleteStack and waits (bounded by ctx, at most 60s) until
// the stack is gone; moto deletes its queues and tables.
func (s *Stack) Delete(ctx context.Context) error {
	ctx, cancel := context.WithTimeout(ctx, defaultTimeout)
	defer cancel()
	if _, err := s.cfn.DeleteStack(ctx, &cloudformation.DeleteStackInput{StackName: aws.String(s.Name)}); err != nil {
		return fmt.Errorf("delete stack %s: %w", s.Name, err)
	}
	for {
		// By ID, a deleted stack still describes (DELETE_COMPLETE); by name,
		// it no longer exists. Poll by name and treat "does not exist" as done.
		info, err := cfnstack.Describe(ctx, s.cfn, s.Name)
		switch {
		case cfnstack.IsMissing(err), err == nil && info.Status == string(cfntypes.StackStatusDeleteComplete):
			return errors.Join(s.deleteQueues(ctx, s.sqs), s.deleteTables(ctx, s.db))
		case err != nil:
			return fmt.Errorf("delete stack %s: %w", s.Name, err)
		case info.Status == string(cfntypes.StackStatusDeleteFailed):
			return fmt.Errorf("delete stack %s: %s %s", s.Name, info.Status, info.StatusReason)
		}
		select {
		case <-ctx.Done():
			return fmt.Errorf("delete stack %s: %w", s.Name, ctx.Err())
		case <-time.After(pollEvery):
		}
	}
}

// Output returns the output key's value, or an error naming the stack and
// the outputs it has.
func (s *Stack) Output(key string) (string, error) {
	if v := s.Outputs[key]; v != "" {
		return v, nil
	}
	return "", fmt.Errorf("stack %s has no output %q (has %s)", s.Name, key,
		strings.Join(slices.Sorted(maps.Keys(s.Outputs)), ", "))
}

// mustOutput backs the typed accessors. Create has already checked every
// required output, so a panic here means an unknown stage was asked for —
// a programming error in the caller.
func (s *Stack) mustOutput(key string) string {
	v, err := s.Output(key)
	if err != nil {
		panic(err)
	}
	return v
}

func (s *Stack) stageOutput(stage work.Stage, kind string) string {
	key := StageOutput(stage, kind)
	if key == "" {
		panic(fmt.Sprintf("stack %s: unknown stage %q", s.Name, stage))
	}
	return s.mustOutput(key)
}

// QueueURL returns stage's queue URL. It panics for an unknown stage.
// moto answers with AWS-shaped URLs
// (https://sqs.us-east-1.amazonaws.com/123456789012/<name>), which the SDK
// and the CLI accept against the moto endpoint.
func (s *Stack) QueueURL(stage work.Stage) string { return s.stageOutput(stage, kindQueueURL) }

// QueueARN returns stage's queue ARN. It panics for an unknown stage.
func (s *Stack) QueueARN(stage work.Stage) string { return s.stageOutput(stage, kindQueueARN) }

// DLQURL returns stage's dead-letter queue URL. It panics for an unknown stage.
func (s *Stack) DLQURL(stage work.Stage) string { return s.stageOutput(stage, kindDLQURL) }

// DLQARN returns stage's dead-letter queue ARN. It panics for an unknown stage.
func (s *Stack) DLQARN(stage work.Stage) string { return s.stageOutput(stage, kindDLQARN) }

// ItemsTable returns the Items table name.
func (s *Stack) ItemsTable() string { return s.mustOutput(OutputItemsTable) }

// ErrorLogTable returns the error-log table name.
func (s *Stack) ErrorLogTable() string { return s.mustOutput(OutputErrorLogTable) }

// ParkedTable returns the parked-items table name.
func (s *Stack) ParkedTable() string { return s.mustOutput(OutputParkedTable) }

// GatesTable returns the gates table name.
func (s *Stack) GatesTable() string { return s.mustOutput(OutputGatesTable) }

// BodiesTable returns the Bodies table name (sibling items of documents and
// enrichments).
func (s *Stack) BodiesTable() string { return s.mustOutput(OutputBodiesTable) }

// BodiesBucket returns the bodies bucket name.
func (s *Stack) BodiesBucket() string { return s.mustOutput(OutputBodiesBucket) }

// NoticeQueueURL returns the owner-notice queue's URL.
func (s *Stack) NoticeQueueURL() string { return s.mustOutput(OutputNoticeQueueURL) }

// AuditTable returns the audit-trail table name.
func (s *Stack) AuditTable() string { return s.mustOutput(OutputAuditTable) }

// PutSecureParameter stores value as an SSM SecureString parameter name
// (overwriting), e.g. to seed the LLM API key or the webhook signing secret
// into the local AWS. cfg is typically moto.Config or localtest's Env.AWS.
func PutSecureParameter(ctx context.Context, cfg aws.Config, name, value string) error {
	_, err := ssm.NewFromConfig(cfg).PutParameter(ctx, &ssm.PutParameterInput{
		Name:      aws.String(name),
		Value:     aws.String(value),
		Type:      ssmtypes.ParameterTypeSecureString,
		Overwrite: aws.Bool(true),
	})
	if err != nil {
		return fmt.Errorf("put secure parameter %s: %w", name, err)
	}
	return nil
}
