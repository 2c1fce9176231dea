package stack

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"net/url"
	"path"
	"slices"
	"strconv"
	"strings"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/sqs"
	sqstypes "github.com/aws/aws-sdk-go-v2/service/sqs/types"

	"github.com/triagehq/triage/dev/local/template"
)

// queueAttribute maps an AWS::SQS::Queue property to the SQS attribute it
// sets; the JSON-valued ones (RedrivePolicy, RedriveAllowPolicy) are
// encoded.
var queueAttribute = map[string]string{
	"DelaySeconds": "DelaySeconds", "MaximumMessageSize": "MaximumMessageSize",
	"MessageRetentionPeriod": "MessageRetentionPeriod", "ReceiveMessageWaitTimeSeconds": "ReceiveMessageWaitTimeSeconds",
	"VisibilityTimeout": "VisibilityTimeout", "KmsMasterKeyId": "KmsMasterKeyId",
	"KmsDataKeyReusePeriodSeconds": "KmsDataKeyReusePeriodSeconds", "SqsManagedSseEnabled": "SqsManagedSseEnabled",
	"RedrivePolicy": "RedrivePolicy", "RedriveAllowPolicy": "RedriveAllowPolicy", "FifoQueue": "FifoQueue",
	"ContentBasedDeduplication": "ContentBasedDeduplication", "DeduplicationScope": "DeduplicationScope",
	"FifoThroughputLimit": "FifoThroughputLimit",
}

// stackQueue is one AWS::SQS::Queue of the stack, as CreateQueue takes it.
type stackQueue struct {
	logicalID, name string
	attrs           map[string]string
	tags            map[string]string
	// dlq is the name of the queue its RedrivePolicy targets; "" for none.
	dlq string
}

// createQueues makes sure the SQS that answers at the stack's endpoint
// holds the stack's queues. moto's CloudFormation creates them in moto's
// own SQS; the local stack's SQS is the emulator in front of moto (package
// moto's Front, package sqs), which CloudFormation does not reach, so each
// queue it lacks is created there under the same name with the attributes
// template.yaml gives it, dead-letter queues first. A queue the endpoint
// already has (moto's own SQS answering) is left as it is. The queue URLs
// of the outputs work against either: both read a URL by its account and
// name.
func (s *Stack) createQueues(ctx context.Context, client *sqs.Client, tplPath string) error {
	queues, err := templateResources(ctx, s, tplPath, "AWS::SQS::Queue", "queue", resolveQueue)
	if err != nil {
		return err
	}
	created := map[string]bool{}
	for len(created) < len(queues) {
		progress := false
		for _, q := range queues {
			if created[q.name] || q.dlq != "" && !created[q.dlq] && slices.ContainsFunc(queues, func(o stackQueue) bool { return o.name == q.dlq }) {
				continue
			}
			if err := ensureQueue(ctx, client, q); err != nil {
				return err
			}
			created[q.name], progress = true, true
		}
		if !progress {
			return errors.New("stack queues: a cycle of RedrivePolicy targets")
		}
	}
	s.queues = slices.Sorted(maps.Keys(created))
	return nil
}

func ensureQueue(ctx context.Context, client *sqs.Client, q stackQueue) error {
	_, err := client.GetQueueUrl(ctx, &sqs.GetQueueUrlInput{QueueName: aws.String(q.name)})
	var missing *sqstypes.QueueDoesNotExist
	switch {
	case err == nil:
		return nil
	case !errors.As(err, &missing):
		return fmt.Errorf("queue %s (%s): %w", q.logicalID, q.name, err)
	}
	if _, err := client.CreateQueue(ctx, &sqs.CreateQueueInput{QueueName: aws.String(q.name), Attributes: q.attrs, Tags: q.tags}); err != nil {
		return fmt.Errorf("create queue %s (%s) in the local SQS: %w", q.logicalID, q.name, err)
	}
	return nil
}

func resolveQueue(r *template.Resolver, id, physical string, props map[string]any) (stackQueue, error) {
	q := stackQueue{logicalID: id, name: queueName(physical), attrs: map[string]string{}}
	for _, prop := range slices.Sorted(maps.Keys(props)) {
		v, err := r.Resolve(props[prop])
		if err != nil {
			return q, fmt.Errorf("%s: %w", prop, err)
		}
		switch prop {
		case "QueueName":
			continue
		case "Tags":
			if q.tags, err = tags(v); err != nil {
				return q, err
			}
			continue
		}
		attr, ok := queueAttribute[prop]
		if !ok {
			return q, fmt.Errorf("property %s has no SQS attribute the local stack knows", prop)
		}
		switch prop {
		case "RedrivePolicy", "RedriveAllowPolicy":
			s, target, err := policyJSON(v)
			if err != nil {
				return q, fmt.Errorf("%s: %w", prop, err)
			}
			q.attrs[attr] = s
			if prop == "RedrivePolicy" {
				q.dlq = target[strings.LastIndex(target, ":")+1:] // the queue's name ends its ARN
			}
		default:
			s, err := scalar(v)
			if err != nil {
				return q, fmt.Errorf("%s: %w", prop, err)
			}
			q.attrs[attr] = s
		}
	}
	return q, nil
}

// queueName is a queue URL's name, its last path segment.
func queueName(queueURL string) string {
	if u, err := url.Parse(queueURL); err == nil && u.Path != "" {
		return path.Base(u.Path)
	}
	return path.Base(queueURL)
}

// scalar is a queue attribute's or tag's value as CloudFormation passes it
// (template.ScalarString); a list, a mapping or nothing is an error.
func scalar(v any) (string, error) {
	if s, ok := template.ScalarString(v); ok {
		return s, nil
	}
	return "", fmt.Errorf("%v (%T) is not a scalar", v, v)
}

// policyJSON encodes a RedrivePolicy (or RedriveAllowPolicy) given as an
// object or as its JSON text, with maxReceiveCount a number as SQS keeps
// it, and returns its deadLetterTargetArn.
func policyJSON(v any) (string, string, error) {
	m, ok := v.(map[string]any)
	if !ok {
		s, isString := v.(string)
		if !isString || json.Unmarshal([]byte(s), &m) != nil {
			return "", "", fmt.Errorf("%v is neither an object nor its JSON", v)
		}
	}
	m = maps.Clone(m)
	if n, ok := m["maxReceiveCount"].(string); ok {
		if i, err := strconv.Atoi(n); err == nil {
			m["maxReceiveCount"] = i
		}
	}
	target, _ := m["deadLetterTargetArn"].(string)
	b, err := json.Marshal(m)
	return string(b), target, err
}

func tags(v any) (map[string]string, error) {
	list, ok := v.([]any)
	if !ok {
		return nil, fmt.Errorf("Tags: %v is not a list", v)
	}
	out := map[string]string{}
	for _, t := range list {
		m, ok := t.(map[string]any)
		if !ok {
			return nil, fmt.Errorf("Tags: %v is not a Key/Value pair", t)
		}
		k, err1 := scalar(m["Key"])
		val, err2 := scalar(m["Value"])
		if err := errors.Join(err1, err2); err != nil {
			return nil, fmt.Errorf("Tags: %w", err)
		}
		out[k] = val
	}
	return out, nil
}

// deleteQueues deletes the stack's queues from the endpoint's SQS, after
// DeleteStack: moto's CloudFormation deletes only its own. A queue already
// gone is no error.
func (s *Stack) deleteQueues(ctx context.Context, client *sqs.Client) error {
	var errs []error
	for _, name := range s.queues {
		out, err := client.GetQueueUrl(ctx, &sqs.GetQueueUrlInput{QueueName: aws.String(name)})
		var missing *sqstypes.QueueDoesNotExist
		if errors.As(err, &missing) {
			continue
		}
		if err == nil {
			_, err = client.DeleteQueue(ctx, &sqs.DeleteQueueInput{QueueUrl: out.QueueUrl})
		}
		if err != nil && !errors.As(err, &missing) {
			errs = append(errs, fmt.Errorf("delete queue %s: %w", name, err))
		}
	}
	return errors.Join(errs...)
}
