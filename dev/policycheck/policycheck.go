// Package policycheck checks the security properties of template.yaml that
// a review would otherwise have to catch by eye: no IAM statement with a
// wildcard action or resource on the data plane, every function reaching
// only the queues, tables and buckets it needs, encryption at rest on every
// queue, table and bucket, and every bucket private with its objects
// expiring. It runs on the raw template and on the SAM-transformed one, so
// policies SAM would attach on its own are caught too.
package policycheck

import (
	"fmt"
	"maps"
	"regexp"
	"slices"
	"sort"
	"strings"
)

// Finding is one violation.
type Finding struct {
	// Resource is the logical id of the offending resource.
	Resource string
	// Rule names the rule: wildcard-action, wildcard-resource,
	// managed-policy, inline-function-policy, reach, sse, public-bucket,
	// lifecycle.
	Rule string
	// Detail says what was found.
	Detail string
}

// String renders "Resource: rule: detail".
func (f Finding) String() string { return f.Resource + ": " + f.Rule + ": " + f.Detail }

// Resource is a template resource in CloudFormation's long form: intrinsic
// functions are maps such as {"Ref": "X"} or {"Fn::GetAtt": ["X", "Arn"]}.
type Resource struct {
	Type       string
	Properties map[string]any
}

// StreamWildcard is the one wildcard a role may hold: the log-stream part of
// its function's own log group, whose stream names Lambda picks at run time.
// It is allowed only for logs: actions on a log-group ARN.
const StreamWildcard = ":log-stream:*"

// objectPrefix matches the other wildcard a role may hold: the objects under
// one fixed prefix of a bucket the template declares ("${Bucket.Arn}/document/*"),
// for object actions only (ObjectActions). S3 has no other way to name
// objects a function may read or write.
var objectPrefix = regexp.MustCompile(`^\$\{([A-Za-z0-9]+)\.Arn\}/[A-Za-z0-9_.-]+/\*$`)

// ObjectActions are the S3 actions an object-prefix wildcard may carry.
var ObjectActions = []string{"s3:GetObject", "s3:PutObject"}

// Check applies every rule. reach maps each function's logical id to the
// logical ids its role may reference; a function missing from reach is not
// checked for reach.
func Check(resources map[string]Resource, reach map[string][]string) []Finding {
	var out []Finding
	for _, id := range slices.Sorted(maps.Keys(resources)) {
		r := resources[id]
		switch r.Type {
		case "AWS::Serverless::Function":
			if p, ok := r.Properties["Policies"]; ok && p != nil {
				out = append(out, Finding{id, "inline-function-policy",
					"SAM merges Policies into a generated role and adds its managed policies; give the function an explicit Role"})
			}
			if _, ok := r.Properties["Role"]; !ok {
				out = append(out, Finding{id, "managed-policy", "no explicit Role: SAM generates one with AWS managed policies"})
			}
		case "AWS::Lambda::Function":
			if _, ok := r.Properties["Role"]; !ok {
				out = append(out, Finding{id, "managed-policy", "function without a role"})
			}
		case "AWS::IAM::Role":
			if arns, ok := r.Properties["ManagedPolicyArns"].([]any); ok && len(arns) > 0 {
				out = append(out, Finding{id, "managed-policy", fmt.Sprintf("attaches %v, whose statements this check cannot see", arns)})
			}
			for _, st := range Statements(r) {
				out = append(out, checkStatement(resources, id, st)...)
			}
		case "AWS::SQS::Queue":
			if r.Properties["SqsManagedSseEnabled"] != true && r.Properties["KmsMasterKeyId"] == nil {
				out = append(out, Finding{id, "sse", "queue without SqsManagedSseEnabled or KmsMasterKeyId"})
			}
		case "AWS::DynamoDB::Table":
			sse, _ := r.Properties["SSESpecification"].(map[string]any)
			if sse == nil || sse["SSEEnabled"] != true {
				out = append(out, Finding{id, "sse", "table without SSESpecification.SSEEnabled"})
			}
		case "AWS::S3::Bucket":
			out = append(out, checkBucket(id, r)...)
		case "AWS::S3::BucketPolicy":
			doc, _ := r.Properties["PolicyDocument"].(map[string]any)
			sts, _ := doc["Statement"].([]any)
			for _, st := range sts {
				sm, _ := st.(map[string]any)
				if sm["Effect"] == "Allow" && (sm["Principal"] == "*" || fmt.Sprint(sm["Principal"]) == "map[AWS:*]") {
					out = append(out, Finding{id, "public-bucket", "a bucket policy allows everyone"})
				}
			}
		}
	}
	for fn, allowed := range reach {
		role := RoleOf(resources, fn)
		if role == "" {
			out = append(out, Finding{fn, "reach", "no role found for the function"})
			continue
		}
		for _, ref := range References(resources[role]) {
			if !slices.Contains(allowed, ref) {
				out = append(out, Finding{fn, "reach", fmt.Sprintf("its role %s reaches %s, which it does not need", role, ref)})
			}
		}
	}
	sort.Slice(out, func(i, j int) bool { return out[i].String() < out[j].String() })
	return out
}

// Statements returns the statements of a role's inline policies. A
// statement wrapped in Fn::If counts with both of its branches (whichever
// the stack's parameters pick must pass); AWS::NoValue branches are none.
func Statements(r Resource) []map[string]any {
	var out []map[string]any
	pols, _ := r.Properties["Policies"].([]any)
	for _, p := range pols {
		pm, _ := p.(map[string]any)
		doc, _ := pm["PolicyDocument"].(map[string]any)
		sts, _ := doc["Statement"].([]any)
		for _, s := range sts {
			out = append(out, branches(s)...)
		}
	}
	return out
}

// checkBucket: default encryption, all four public-access blocks, and an
// enabled lifecycle rule that expires objects.
func checkBucket(id string, r Resource) []Finding {
	var out []Finding
	enc, _ := r.Properties["BucketEncryption"].(map[string]any)
	rules, _ := enc["ServerSideEncryptionConfiguration"].([]any)
	encrypted := false
	for _, rule := range rules {
		rm, _ := rule.(map[string]any)
		def, _ := rm["ServerSideEncryptionByDefault"].(map[string]any)
		if alg, _ := def["SSEAlgorithm"].(string); alg != "" {
			encrypted = true
		}
	}
	if !encrypted {
		out = append(out, Finding{id, "sse", "bucket without BucketEncryption's default SSEAlgorithm"})
	}
	pab, _ := r.Properties["PublicAccessBlockConfiguration"].(map[string]any)
	for _, k := range []string{"BlockPublicAcls", "BlockPublicPolicy", "IgnorePublicAcls", "RestrictPublicBuckets"} {
		if pab[k] != true {
			out = append(out, Finding{id, "public-bucket", "PublicAccessBlockConfiguration." + k + " is not true"})
		}
	}
	lc, _ := r.Properties["LifecycleConfiguration"].(map[string]any)
	lrules, _ := lc["Rules"].([]any)
	expires := false
	for _, rule := range lrules {
		rm, _ := rule.(map[string]any)
		if rm["Status"] == "Enabled" && (rm["ExpirationInDays"] != nil || rm["ExpirationDate"] != nil) {
			expires = true
		}
	}
	if !expires {
		out = append(out, Finding{id, "lifecycle", "no enabled lifecycle rule expires the bucket's objects"})
	}
	return out
}

// branches returns the statements a statement entry may be: itself, or
// every branch of an Fn::If.
func branches(v any) []map[string]any {
	m, ok := v.(map[string]any)
	if !ok {
		return nil
	}
	if arg, ok := m["Fn::If"].([]any); ok && len(m) == 1 {
		if len(arg) != 3 {
			return nil
		}
		return append(branches(arg[1]), branches(arg[2])...)
	}
	if ref, ok := m["Ref"].(string); ok && ref == "AWS::NoValue" && len(m) == 1 {
		return nil
	}
	return []map[string]any{m}
}

// BedrockModelPrefix matches the one region wildcard a role may hold: the
// region of a Bedrock foundation-model ARN, "arn:PARTITION:bedrock:*::
// foundation-model/", to which the template appends the exact model ids of
// the chain (cross-region inference reaches a model in several regions). It
// is allowed only for bedrock:InvokeModel and only as that prefix: the model
// id is never a wildcard.
var bedrockModelPrefix = regexp.MustCompile(`^,?arn:[a-z-]+:bedrock:\*::foundation-model/$`)

func checkStatement(resources map[string]Resource, role string, st map[string]any) []Finding {
	var out []Finding
	sid, _ := st["Sid"].(string)
	where := role
	if sid != "" {
		where += " (" + sid + ")"
	}
	if st["Effect"] == "Deny" {
		return nil
	}
	actions := strs(st["Action"])
	if _, ok := st["NotAction"]; ok {
		out = append(out, Finding{where, "wildcard-action", "NotAction grants everything else"})
	}
	for _, a := range actions {
		if strings.Contains(a, "*") {
			out = append(out, Finding{where, "wildcard-action", a})
		}
	}
	if _, ok := st["NotResource"]; ok {
		out = append(out, Finding{where, "wildcard-resource", "NotResource grants everything else"})
	}
	logsOnly, objectsOnly, invokeOnly := len(actions) > 0, len(actions) > 0, len(actions) > 0
	for _, a := range actions {
		logsOnly = logsOnly && strings.HasPrefix(a, "logs:")
		objectsOnly = objectsOnly && slices.Contains(ObjectActions, a)
		invokeOnly = invokeOnly && a == "bedrock:InvokeModel"
	}
	for _, lit := range literals(st["Resource"]) {
		if !strings.Contains(lit, "*") {
			continue
		}
		if logsOnly && strings.HasSuffix(lit, StreamWildcard) && strings.Count(lit, "*") == 1 && strings.Contains(lit, ":log-group:") {
			continue
		}
		if m := objectPrefix.FindStringSubmatch(lit); objectsOnly && m != nil && resources[m[1]].Type == "AWS::S3::Bucket" {
			continue
		}
		if invokeOnly && bedrockModelPrefix.MatchString(lit) {
			continue
		}
		out = append(out, Finding{where, "wildcard-resource", lit})
	}
	return out
}

// strs returns a string or a list of strings as a list.
func strs(v any) []string {
	switch t := v.(type) {
	case string:
		return []string{t}
	case []any:
		var out []string
		for _, e := range t {
			if s, ok := e.(string); ok {
				out = append(out, s)
			}
		}
		return out
	}
	return nil
}

// literals returns the literal text of a Resource value: plain strings, the
// template strings of Fn::Sub and the parts of Fn::Join. References resolve
// to exact ARNs and contribute nothing.
func literals(v any) []string {
	switch t := v.(type) {
	case string:
		return []string{t}
	case []any:
		var out []string
		for _, e := range t {
			out = append(out, literals(e)...)
		}
		return out
	case map[string]any:
		if arg, ok := t["Fn::If"].([]any); ok && len(arg) == 3 {
			return append(literals(arg[1]), literals(arg[2])...)
		}
		if arg, ok := t["Fn::Split"].([]any); ok && len(arg) == 2 {
			return literals(arg[1])
		}
		if sub, ok := t["Fn::Sub"]; ok {
			switch s := sub.(type) {
			case string:
				return []string{s}
			case []any:
				if len(s) > 0 {
					if str, ok := s[0].(string); ok {
						return []string{str}
					}
				}
			}
		}
		if join, ok := t["Fn::Join"].([]any); ok && len(join) == 2 {
			// The delimiter and each part are checked on their own: a part
			// computed from a parameter contributes nothing, and gluing the
			// rest together would hide which fragment holds a wildcard.
			out := literals(join[1])
			if d, ok := join[0].(string); ok && d != "" {
				out = append(out, d)
			}
			return out
		}
	}
	return nil
}

// References lists the logical ids a role's statements name (Ref, GetAtt,
// ${X} and ${X.Arn} in Fn::Sub), sorted and unique; pseudo parameters and
// template parameters are skipped by the caller's allowlist.
func References(r Resource) []string {
	set := map[string]bool{}
	for _, st := range Statements(r) {
		collectRefs(st["Resource"], set)
	}
	out := make([]string, 0, len(set))
	for k := range set {
		if !strings.HasPrefix(k, "AWS::") {
			out = append(out, k)
		}
	}
	sort.Strings(out)
	return out
}

func collectRefs(v any, set map[string]bool) {
	switch t := v.(type) {
	case []any:
		for _, e := range t {
			collectRefs(e, set)
		}
	case map[string]any:
		if ref, ok := t["Ref"].(string); ok {
			set[ref] = true
		}
		if ga, ok := t["Fn::GetAtt"]; ok {
			switch g := ga.(type) {
			case []any:
				if len(g) > 0 {
					if s, ok := g[0].(string); ok {
						set[s] = true
					}
				}
			case string:
				set[strings.SplitN(g, ".", 2)[0]] = true
			}
		}
		for k, v := range t {
			if k != "Ref" && k != "Fn::GetAtt" && k != "Fn::Sub" {
				collectRefs(v, set) // the arguments of Fn::If, Fn::Join, Fn::Split, …
			}
		}
		for _, lit := range literals(t) {
			for rest := lit; ; {
				i := strings.Index(rest, "${")
				if i < 0 {
					break
				}
				j := strings.IndexByte(rest[i:], '}')
				if j < 0 {
					break
				}
				name := strings.SplitN(rest[i+2:i+j], ".", 2)[0]
				set[name] = true
				rest = rest[i+j:]
			}
		}
	}
}

// RoleOf returns the logical id of the role a function uses: its Role
// property's GetAtt or Ref target.
func RoleOf(resources map[string]Resource, fn string) string {
	r, ok := resources[fn]
	if !ok {
		return ""
	}
	set := map[string]bool{}
	collectRefs(r.Properties["Role"], set)
	for k := range set {
		return k
	}
	return ""
}
