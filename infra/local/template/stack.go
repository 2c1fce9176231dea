package template

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/cloudformation"
)

// CloudFormationAPI is the part of the CloudFormation client DescribeStack
// uses.
type CloudFormationAPI interface {
	DescribeStacks(ctx context.Context, in *cloudformation.DescribeStacksInput, opts ...func(*cloudformation.Options)) (*cloudformation.DescribeStacksOutput, error)
	DescribeStackResources(ctx context.Context, in *cloudformation.DescribeStackResourcesInput, opts ...func(*cloudformation.Options)) (*cloudformation.DescribeStackResourcesOutput, error)
}

// StackInfo is what a created stack tells the Resolver.
type StackInfo struct {
	// Name is the stack name.
	Name string
	// ID is the stack's ARN.
	ID string
	// Parameters are the effective parameter values.
	Parameters map[string]string
	// Outputs map output keys to values.
	Outputs map[string]string
	// Physical maps logical ids to physical ids. Resources reported without
	// a logical or physical id (moto's skipped functions) are left out.
	Physical map[string]string
}

// DescribeStack reads a stack's parameters, outputs and physical resource
// ids (describe-stacks and describe-stack-resources).
func DescribeStack(ctx context.Context, api CloudFormationAPI, name string) (*StackInfo, error) {
	out, err := api.DescribeStacks(ctx, &cloudformation.DescribeStacksInput{StackName: aws.String(name)})
	if err != nil {
		return nil, fmt.Errorf("describe stack %s: %w", name, err)
	}
	if len(out.Stacks) != 1 {
		return nil, fmt.Errorf("describe stack %s: got %d stacks", name, len(out.Stacks))
	}
	st := out.Stacks[0]
	info := &StackInfo{
		Name:       aws.ToString(st.StackName),
		ID:         aws.ToString(st.StackId),
		Parameters: map[string]string{},
		Outputs:    map[string]string{},
		Physical:   map[string]string{},
	}
	for _, p := range st.Parameters {
		info.Parameters[aws.ToString(p.ParameterKey)] = aws.ToString(p.ParameterValue)
	}
	for _, o := range st.Outputs {
		info.Outputs[aws.ToString(o.OutputKey)] = aws.ToString(o.OutputValue)
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

// Pseudo returns the pseudo parameters of the stack: region and account
// from its ARN (arn:aws:cloudformation:us-east-1:123456789012:stack/…),
// its name and id.
func (s *StackInfo) Pseudo() (Pseudo, error) {
	parts := strings.SplitN(s.ID, ":", 6)
	if len(parts) != 6 || parts[0] != "arn" {
		return Pseudo{}, errors.New("stack id " + s.ID + " is not an ARN")
	}
	return Pseudo{Partition: parts[1], Region: parts[3], AccountID: parts[4], StackName: s.Name, StackID: s.ID}, nil
}

// Resolver returns a Resolver for t with the stack's parameters, pseudo
// parameters and physical ids.
func (s *StackInfo) Resolver(t *Template) (*Resolver, error) {
	p, err := s.Pseudo()
	if err != nil {
		return nil, err
	}
	// describe-stacks lists every declared parameter; moto also lists ones
	// the template does not declare if they were passed, which
	// CloudFormation would have refused. Keep the declared ones.
	params := make(map[string]string, len(s.Parameters))
	for k, v := range s.Parameters {
		if _, ok := t.Parameters[k]; ok {
			params[k] = v
		}
	}
	return NewResolver(t, ResolverConfig{Parameters: params, Pseudo: p, Physical: s.Physical})
}
