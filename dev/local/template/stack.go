package template

import (
	"errors"
	"strings"

	"github.com/triagehq/triage/internal/cfnstack"
)

// StackPseudo returns the pseudo parameters of a created stack: region and
// account from its ARN (arn:aws:cloudformation:us-east-1:123456789012:stack/…),
// its name and id.
func StackPseudo(s *cfnstack.Info) (Pseudo, error) {
	parts := strings.SplitN(s.ID, ":", 6)
	if len(parts) != 6 || parts[0] != "arn" {
		return Pseudo{}, errors.New("stack id " + s.ID + " is not an ARN")
	}
	return Pseudo{Partition: parts[1], Region: parts[3], AccountID: parts[4], StackName: s.Name, StackID: s.ID}, nil
}

// StackResolver returns a Resolver for t with the parameters, pseudo
// parameters and physical ids of s (cfnstack.DescribeResources).
func StackResolver(t *Template, s *cfnstack.Info) (*Resolver, error) {
	p, err := StackPseudo(s)
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
