// Package template reads template.yaml the way CloudFormation and SAM read it,
// so the local stack runs each function with the configuration a deployment
// would give it.
//
// Parse turns the YAML into CloudFormation's JSON form: every value is a
// map[string]any, []any, string, int, float64, bool or nil, and the
// short-form tags become the long forms they abbreviate (`!Ref X` is
// {"Ref": "X"}, `!GetAtt A.Arn` is {"Fn::GetAtt": ["A", "Arn"]}, `!Sub s`
// is {"Fn::Sub": s}, and so on), so a template written either way reads the
// same. Functions merges Globals.Function into every AWS::Serverless::Function
// with SAM's rules and applies SAM's and Lambda's defaults.
//
// A Resolver evaluates intrinsic functions against parameter values, the
// pseudo parameters and the physical ids of a created stack. moto, like
// CloudFormation, reports a queue's PhysicalResourceId as its URL
// ("https://sqs.us-east-1.amazonaws.com/123456789012/<stack>-FetchQueue-<12>")
// and a table's as its name ("<stack>-ItemsTable-<12>"); it lists the function
// resources it skips with no logical or physical id. So `!Ref Queue` is the
// URL, `!GetAtt Queue.Arn` is derived as arn:<partition>:sqs:<region>:<account>:<name>,
// `!Ref Table` is the name and `!GetAtt Table.Arn` is
// arn:<partition>:dynamodb:<region>:<account>:table/<name>.
// cfnstack.DescribeResources reads those ids, the parameters and the outputs of a created stack.
//
// What is deliberately missing: Conditions are evaluated only where Fn::If
// needs them, and resources carrying a Condition are not filtered out;
// Fn::ImportValue, Fn::Transform and attributes the local stack has no
// value for are errors (an *UnresolvedError), never empty strings.
package template
