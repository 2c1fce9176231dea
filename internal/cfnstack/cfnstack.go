// Package cfnstack reads a CloudFormation stack through the SDK: its status,
// parameters, outputs and physical resource ids. It is the one
// describe-stack of the project: the triage CLI finds a stack's queues and
// tables with it, and the local stack (dev/local/stack, devstack) and the
// tests read the stacks they create in moto with it.
package cfnstack

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/cloudformation"
	"github.com/aws/smithy-go"
)

// API is the part of the CloudFormation client Describe uses.
type API interface {
	DescribeStacks(ctx context.Context, in *cloudformation.DescribeStacksInput, opts ...func(*cloudformation.Options)) (*cloudformation.DescribeStacksOutput, error)
}

// ResourcesAPI adds what DescribeResources uses.
type ResourcesAPI interface {
	API
	DescribeStackResources(ctx context.Context, in *cloudformation.DescribeStackResourcesInput, opts ...func(*cloudformation.Options)) (*cloudformation.DescribeStackResourcesOutput, error)
}

// Info is what a stack tells about itself.
type Info struct {
	// Name is the stack name; ID its ARN.
	Name, ID string
	// Status is the stack status (CREATE_COMPLETE, ROLLBACK_COMPLETE, …);
	// StatusReason CloudFormation's explanation, if any.
	Status, StatusReason string
	// Parameters are the effective parameter values.
	Parameters map[string]string
	// Outputs map output keys to values.
	Outputs map[string]string
	// Physical maps logical ids to physical ids; filled by
	// DescribeResources only. Resources reported without a logical or
	// physical id (moto's skipped functions) are left out.
	Physical map[string]string
}

// ErrMissing matches the error of a stack that does not exist.
var ErrMissing = errors.New("stack does not exist")

// Describe reads a stack (describe-stacks). A stack that does not exist is
// an error matching ErrMissing.
func Describe(ctx context.Context, api API, name string) (*Info, error) {
	out, err := api.DescribeStacks(ctx, &cloudformation.DescribeStacksInput{StackName: aws.String(name)})
	if err != nil {
		if IsMissing(err) {
			return nil, fmt.Errorf("describe stack %s: %w: %w", name, ErrMissing, err)
		}
		return nil, fmt.Errorf("describe stack %s: %w", name, err)
	}
	if len(out.Stacks) != 1 {
		return nil, fmt.Errorf("describe stack %s: got %d stacks", name, len(out.Stacks))
	}
	st := out.Stacks[0]
	info := &Info{
		Name: aws.ToString(st.StackName), ID: aws.ToString(st.StackId),
		Status: string(st.StackStatus), StatusReason: aws.ToString(st.StackStatusReason),
		Parameters: map[string]string{}, Outputs: map[string]string{}, Physical: map[string]string{},
	}
	for _, p := range st.Parameters {
		info.Parameters[aws.ToString(p.ParameterKey)] = aws.ToString(p.ParameterValue)
	}
	for _, o := range st.Outputs {
		info.Outputs[aws.ToString(o.OutputKey)] = aws.ToString(o.OutputValue)
	}
	return info, nil
}

// DescribeResources reads a stack and its resources' physical ids
// (describe-stacks and describe-stack-resources).
func DescribeResources(ctx context.Context, api ResourcesAPI, name string) (*Info, error) {
	info, err := Describe(ctx, api, name)
	if err != nil {
		return nil, err
	}
	res, err := api.DescribeStackResources(ctx, &cloudformation.DescribeStackResourcesInput{StackName: aws.String(name)})
	if err != nil {
		return nil, fmt.Errorf("describe stack %s resources: %w", name, err)
	}
	for _, r := range res.StackResources {
		id, phys := aws.ToString(r.LogicalResourceId), aws.ToString(r.PhysicalResourceId)
		if id != "" && phys != "" {
			info.Physical[id] = phys
		}
	}
	return info, nil
}

// IsMissing reports CloudFormation's answer for a stack that does not
// exist: a ValidationError "Stack with id X does not exist".
func IsMissing(err error) bool {
	if errors.Is(err, ErrMissing) {
		return true
	}
	var ae smithy.APIError
	return errors.As(err, &ae) && ae.ErrorCode() == "ValidationError" && strings.Contains(ae.ErrorMessage(), "does not exist")
}
