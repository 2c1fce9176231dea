package template

import (
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync"
)

// Identity of the local AWS, the defaults of Pseudo.
const (
	// DefaultRegion is the region pseudo parameter when Pseudo.Region is "".
	DefaultRegion = "us-east-1"
	// DefaultAccountID is moto's account, used when Pseudo.AccountID is "".
	DefaultAccountID = "123456789012"
	// DefaultPartition is used when Pseudo.Partition is "".
	DefaultPartition = "aws"
	// DefaultURLSuffix is used when Pseudo.URLSuffix is "".
	DefaultURLSuffix = "amazonaws.com"
)

// Sentinel errors; the typed errors below match them with errors.Is.
var (
	// ErrUnresolved: an expression has no value locally.
	ErrUnresolved = errors.New("unresolvable reference")
	// ErrParameter: a parameter value is unknown, missing or not allowed.
	ErrParameter = errors.New("invalid parameter")
)

// UnresolvedError is an expression the Resolver cannot evaluate: a
// reference to a resource without a physical id (moto skips functions), an
// attribute with no local value, an unsupported function.
type UnresolvedError struct {
	// Expr is the expression in short form, e.g. "!GetAtt FetchFunc.Arn".
	Expr string
	// Reason says why it has no value.
	Reason string
}

// Error names the expression and the reason.
func (e *UnresolvedError) Error() string { return e.Expr + ": " + e.Reason }

// Is makes errors.Is(err, ErrUnresolved) true.
func (e *UnresolvedError) Is(target error) bool { return target == ErrUnresolved }

// ParameterError is a parameter value CloudFormation would refuse.
type ParameterError struct {
	// Name is the parameter.
	Name string
	// Reason says what is wrong.
	Reason string
}

// Error names the parameter and the reason.
func (e *ParameterError) Error() string { return "parameter " + e.Name + ": " + e.Reason }

// Is makes errors.Is(err, ErrParameter) true.
func (e *ParameterError) Is(target error) bool { return target == ErrParameter }

// EnvError is an environment variable ResolveEnv could not resolve.
type EnvError struct {
	// Function is the function's logical id.
	Function string
	// Variable is the environment variable.
	Variable string
	// Err is the cause (often an *UnresolvedError).
	Err error
}

// Error names the function and the variable.
func (e *EnvError) Error() string {
	return fmt.Sprintf("%s environment variable %s: %v", e.Function, e.Variable, e.Err)
}

// Unwrap returns the cause.
func (e *EnvError) Unwrap() error { return e.Err }

// Pseudo holds the values of the pseudo parameters.
type Pseudo struct {
	// Region is AWS::Region; "" means DefaultRegion.
	Region string
	// AccountID is AWS::AccountId; "" means DefaultAccountID.
	AccountID string
	// Partition is AWS::Partition; "" means DefaultPartition.
	Partition string
	// URLSuffix is AWS::URLSuffix; "" means DefaultURLSuffix.
	URLSuffix string
	// StackName is AWS::StackName; when "", a Ref to it is unresolved.
	StackName string
	// StackID is AWS::StackId; when "", a Ref to it is unresolved.
	StackID string
}

func (p Pseudo) withDefaults() Pseudo {
	if p.Region == "" {
		p.Region = DefaultRegion
	}
	if p.AccountID == "" {
		p.AccountID = DefaultAccountID
	}
	if p.Partition == "" {
		p.Partition = DefaultPartition
	}
	if p.URLSuffix == "" {
		p.URLSuffix = DefaultURLSuffix
	}
	return p
}

// ResolverConfig configures NewResolver.
type ResolverConfig struct {
	// Parameters override the template's defaults by name. Every parameter
	// without a default must be given; unknown names are an error.
	Parameters map[string]string
	// Pseudo are the pseudo parameters; the zero value is moto's identity.
	Pseudo Pseudo
	// Physical maps logical ids to physical resource ids as
	// describe-stack-resources reports them (StackInfo.Physical).
	Physical map[string]string
}

// Resolver evaluates intrinsic functions. It is safe for concurrent use.
type Resolver struct {
	t        *Template
	params   map[string]string
	pseudo   Pseudo
	physical map[string]string

	mu         sync.Mutex
	conditions map[string]bool // evaluated conditions
}

// noValue is what Ref AWS::NoValue evaluates to; maps and lists drop it.
type noValue struct{}

// maxDepth bounds nested evaluation (conditions referring to conditions).
const maxDepth = 64

// NewResolver returns a Resolver for t. It checks the parameters as
// CloudFormation does: unknown names, missing values, AllowedValues and
// AllowedPattern are *ParameterErrors.
func NewResolver(t *Template, cfg ResolverConfig) (*Resolver, error) {
	r := &Resolver{t: t, params: map[string]string{}, pseudo: cfg.Pseudo.withDefaults(),
		physical: maps.Clone(cfg.Physical), conditions: map[string]bool{}}
	if r.physical == nil {
		r.physical = map[string]string{}
	}
	var errs []error
	for _, name := range slices.Sorted(maps.Keys(cfg.Parameters)) {
		if _, ok := t.Parameters[name]; !ok {
			errs = append(errs, &ParameterError{Name: name, Reason: "not declared by the template"})
		}
	}
	for _, name := range slices.Sorted(maps.Keys(t.Parameters)) {
		p := t.Parameters[name]
		v, given := cfg.Parameters[name]
		if !given {
			if !p.HasDefault {
				errs = append(errs, &ParameterError{Name: name, Reason: "no value given and no default"})
				continue
			}
			v = p.Default
		}
		if len(p.AllowedValues) > 0 && !slices.Contains(p.AllowedValues, v) {
			errs = append(errs, &ParameterError{Name: name, Reason: fmt.Sprintf("%q is not one of %s", v, strings.Join(p.AllowedValues, ", "))})
			continue
		}
		if p.AllowedPattern != "" {
			re, err := regexp.Compile("^(?:" + p.AllowedPattern + ")$")
			if err != nil {
				errs = append(errs, &ParameterError{Name: name, Reason: "AllowedPattern: " + err.Error()})
				continue
			}
			if !re.MatchString(v) {
				errs = append(errs, &ParameterError{Name: name, Reason: fmt.Sprintf("%q does not match %s", v, p.AllowedPattern)})
				continue
			}
		}
		r.params[name] = v
	}
	if err := errors.Join(errs...); err != nil {
		return nil, err
	}
	return r, nil
}

// Parameters returns the effective parameter values (defaults included).
func (r *Resolver) Parameters() map[string]string { return maps.Clone(r.params) }

// Pseudo returns the pseudo parameters, defaults applied.
func (r *Resolver) Pseudo() Pseudo { return r.pseudo }

// Resolve evaluates every intrinsic function in v. Maps and lists are
// copied; entries that evaluate to AWS::NoValue are dropped.
func (r *Resolver) Resolve(v any) (any, error) {
	out, err := r.resolve(v, 0)
	if _, ok := out.(noValue); ok {
		return nil, err
	}
	return out, err
}

// String resolves v to a string: numbers in decimal, booleans as
// "true"/"false"; a list or a mapping is an error.
func (r *Resolver) String(v any) (string, error) {
	out, err := r.resolve(v, 0)
	if err != nil {
		return "", err
	}
	return toString(out, v)
}

// ResolveEnv resolves fn's environment variables to strings. A variable
// that evaluates to AWS::NoValue is left out; every variable that cannot be
// resolved is reported, each as an *EnvError naming it.
func (r *Resolver) ResolveEnv(fn Function) (map[string]string, error) {
	out := make(map[string]string, len(fn.Environment))
	var errs []error
	for _, k := range slices.Sorted(maps.Keys(fn.Environment)) {
		v, err := r.resolve(fn.Environment[k], 0)
		if err == nil {
			if _, drop := v.(noValue); drop {
				continue
			}
			var s string
			if s, err = toString(v, fn.Environment[k]); err == nil {
				out[k] = s
				continue
			}
		}
		errs = append(errs, &EnvError{Function: fn.LogicalID, Variable: k, Err: err})
	}
	if err := errors.Join(errs...); err != nil {
		return nil, err
	}
	return out, nil
}

// QueueOf resolves an SQS event's queue to its URL and ARN. The event's
// Queue is normally !GetAtt <Queue>.Arn, whose URL is !Ref <Queue>; a
// literal ARN is matched against the template's queues.
func (r *Resolver) QueueOf(ev Event) (url, arn string, err error) {
	if ev.Type != EventSQS {
		return "", "", fmt.Errorf("event %s is %s, not SQS", ev.Name, ev.Type)
	}
	if arn, err = r.String(ev.Queue); err != nil {
		return "", "", fmt.Errorf("event %s queue: %w", ev.Name, err)
	}
	for _, id := range slices.Sorted(maps.Keys(r.t.Resources)) {
		if r.t.Resources[id].Type != TypeQueue {
			continue
		}
		if a, err := r.getAtt(id, "Arn"); err == nil && a == arn {
			return r.physical[id], arn, nil
		}
	}
	return "", "", &UnresolvedError{Expr: "event " + ev.Name + " queue " + arn, Reason: "no queue of the stack has this ARN"}
}

func (r *Resolver) resolve(v any, depth int) (any, error) {
	if depth > maxDepth {
		return nil, &UnresolvedError{Expr: fmt.Sprint(v), Reason: "nested too deeply (a cycle?)"}
	}
	switch x := v.(type) {
	case []any:
		out := make([]any, 0, len(x))
		for _, e := range x {
			rv, err := r.resolve(e, depth+1)
			if err != nil {
				return nil, err
			}
			if _, drop := rv.(noValue); !drop {
				out = append(out, rv)
			}
		}
		return out, nil
	case map[string]any:
		if name, arg, ok := Intrinsic(x); ok {
			return r.eval(name, arg, depth+1)
		}
		out := make(map[string]any, len(x))
		for k, e := range x {
			rv, err := r.resolve(e, depth+1)
			if err != nil {
				return nil, err
			}
			if _, drop := rv.(noValue); !drop {
				out[k] = rv
			}
		}
		return out, nil
	default:
		return v, nil
	}
}

func (r *Resolver) eval(name string, arg any, depth int) (any, error) {
	switch name {
	case "Ref":
		s, ok := arg.(string)
		if !ok {
			return nil, badArg(name, arg, "a name")
		}
		return r.ref(s)
	case "Fn::GetAtt":
		return r.evalGetAtt(arg, depth)
	case "Fn::Sub":
		return r.evalSub(arg, depth)
	case "Fn::Join":
		list, ok := arg.([]any)
		if !ok || len(list) != 2 {
			return nil, badArg(name, arg, "[delimiter, [values]]")
		}
		delim, err := r.stringArg(name, list[0], depth)
		if err != nil {
			return nil, err
		}
		items, err := r.listArg(name, list[1], depth)
		if err != nil {
			return nil, err
		}
		parts := make([]string, len(items))
		for i, it := range items {
			if parts[i], err = toString(it, list[1]); err != nil {
				return nil, err
			}
		}
		return strings.Join(parts, delim), nil
	case "Fn::Select":
		list, ok := arg.([]any)
		if !ok || len(list) != 2 {
			return nil, badArg(name, arg, "[index, [values]]")
		}
		is, err := r.stringArg(name, list[0], depth)
		if err != nil {
			return nil, err
		}
		i, err := strconv.Atoi(is)
		if err != nil {
			return nil, badArg(name, arg, "an integer index")
		}
		items, err := r.listArg(name, list[1], depth)
		if err != nil {
			return nil, err
		}
		if i < 0 || i >= len(items) {
			return nil, &UnresolvedError{Expr: short(name, arg), Reason: fmt.Sprintf("index %d out of range (%d values)", i, len(items))}
		}
		return items[i], nil
	case "Fn::Split":
		delim, src, err := r.stringPair(name, arg, depth, "[delimiter, string]")
		if err != nil {
			return nil, err
		}
		var out []any
		for _, p := range strings.Split(src, delim) {
			out = append(out, p)
		}
		return out, nil
	case "Fn::If":
		list, ok := arg.([]any)
		if !ok || len(list) != 3 {
			return nil, badArg(name, arg, "[condition, then, else]")
		}
		cond, ok := list[0].(string)
		if !ok {
			return nil, badArg(name, arg, "a condition name first")
		}
		b, err := r.condition(cond, depth)
		if err != nil {
			return nil, err
		}
		if b {
			return r.resolve(list[1], depth)
		}
		return r.resolve(list[2], depth)
	case "Condition":
		cond, ok := arg.(string)
		if !ok {
			return nil, badArg(name, arg, "a condition name")
		}
		return r.condition(cond, depth)
	case "Fn::Equals":
		a, b, err := r.stringPair(name, arg, depth, "[a, b]")
		if err != nil {
			return nil, err
		}
		return a == b, nil
	case "Fn::Not", "Fn::And", "Fn::Or":
		list, ok := arg.([]any)
		if !ok || len(list) == 0 || (name == "Fn::Not" && len(list) != 1) {
			return nil, badArg(name, arg, "a list of conditions")
		}
		vals := make([]bool, len(list))
		for i, c := range list {
			v, err := r.resolve(c, depth)
			if err != nil {
				return nil, err
			}
			b, ok := v.(bool)
			if !ok {
				return nil, badArg(name, arg, "conditions")
			}
			vals[i] = b
		}
		switch name {
		case "Fn::Not":
			return !vals[0], nil
		case "Fn::And":
			return !slices.Contains(vals, false), nil
		default:
			return slices.Contains(vals, true), nil
		}
	case "Fn::FindInMap":
		list, ok := arg.([]any)
		if !ok || len(list) < 3 {
			return nil, badArg(name, arg, "[map, top-level key, second-level key]")
		}
		keys := make([]string, 3)
		for i := range keys {
			var err error
			if keys[i], err = r.stringArg(name, list[i], depth); err != nil {
				return nil, err
			}
		}
		m, _ := r.t.Mappings[keys[0]].(map[string]any)
		top, _ := m[keys[1]].(map[string]any)
		v, ok := top[keys[2]]
		if !ok {
			return nil, &UnresolvedError{Expr: short(name, arg), Reason: "no such mapping entry"}
		}
		return v, nil
	case "Fn::Base64":
		s, err := r.stringArg(name, arg, depth)
		if err != nil {
			return nil, err
		}
		return base64.StdEncoding.EncodeToString([]byte(s)), nil
	case "Fn::GetAZs":
		region, err := r.stringArg(name, arg, depth)
		if err != nil {
			return nil, err
		}
		if region == "" {
			region = r.pseudo.Region
		}
		return []any{region + "a", region + "b", region + "c"}, nil
	case "Fn::ToJsonString":
		v, err := r.resolve(arg, depth)
		if err != nil {
			return nil, err
		}
		b, err := json.Marshal(v)
		if err != nil {
			return nil, &UnresolvedError{Expr: short(name, arg), Reason: err.Error()}
		}
		return string(b), nil
	case "Fn::Length":
		items, err := r.listArg(name, arg, depth)
		if err != nil {
			return nil, err
		}
		return len(items), nil
	}
	return nil, &UnresolvedError{Expr: short(name, arg), Reason: "not supported by the local stack"}
}

func (r *Resolver) ref(name string) (any, error) {
	expr := "!Ref " + name
	switch name {
	case "AWS::Region":
		return r.pseudo.Region, nil
	case "AWS::AccountId":
		return r.pseudo.AccountID, nil
	case "AWS::Partition":
		return r.pseudo.Partition, nil
	case "AWS::URLSuffix":
		return r.pseudo.URLSuffix, nil
	case "AWS::NoValue":
		return noValue{}, nil
	case "AWS::NotificationARNs":
		return []any{}, nil
	case "AWS::StackName", "AWS::StackId":
		v := r.pseudo.StackName
		if name == "AWS::StackId" {
			v = r.pseudo.StackID
		}
		if v == "" {
			return nil, &UnresolvedError{Expr: expr, Reason: "no stack given (Pseudo." + strings.TrimPrefix(name, "AWS::") + ")"}
		}
		return v, nil
	}
	if p, ok := r.t.Parameters[name]; ok {
		v, ok := r.params[name]
		if !ok {
			return nil, &UnresolvedError{Expr: expr, Reason: "parameter has no value"}
		}
		if p.IsList() {
			var out []any
			for _, s := range strings.Split(v, ",") {
				out = append(out, s)
			}
			return out, nil
		}
		return v, nil
	}
	_, phys, err := r.physicalID(name, expr, "no such parameter or resource")
	if err != nil {
		return nil, err
	}
	return phys, nil
}

// physicalID returns the resource of logical id name and its physical id in
// the stack; expr is the expression that asked, for the error, and missing
// the reason when the template has no such resource.
func (r *Resolver) physicalID(name, expr, missing string) (Resource, string, error) {
	res, ok := r.t.Resources[name]
	if !ok {
		return res, "", &UnresolvedError{Expr: expr, Reason: missing}
	}
	phys, ok := r.physical[name]
	if !ok || phys == "" {
		return res, "", &UnresolvedError{Expr: expr, Reason: fmt.Sprintf("%s has no physical id in the stack (moto creates no functions)", res.Type)}
	}
	return res, phys, nil
}

func (r *Resolver) evalGetAtt(arg any, depth int) (any, error) {
	var res, attr string
	switch a := arg.(type) {
	case string:
		var found bool
		if res, attr, found = strings.Cut(a, "."); !found {
			return nil, badArg("Fn::GetAtt", arg, "Resource.Attribute")
		}
	case []any:
		if len(a) != 2 {
			return nil, badArg("Fn::GetAtt", arg, "[resource, attribute]")
		}
		var ok bool
		if res, ok = a[0].(string); !ok {
			return nil, badArg("Fn::GetAtt", arg, "a resource name")
		}
		var err error
		if attr, err = r.stringArg("Fn::GetAtt", a[1], depth); err != nil {
			return nil, err
		}
	default:
		return nil, badArg("Fn::GetAtt", arg, "[resource, attribute]")
	}
	return r.getAtt(res, attr)
}

// getAtt derives an attribute from the resource's physical id, as
// CloudFormation reports it for the resource types the stack uses.
func (r *Resolver) getAtt(res, attr string) (string, error) {
	expr := "!GetAtt " + res + "." + attr
	rr, phys, err := r.physicalID(res, expr, "no such resource")
	if err != nil {
		return "", err
	}
	p := r.pseudo
	switch rr.Type {
	case TypeQueue:
		name := phys[strings.LastIndex(phys, "/")+1:]
		switch attr {
		case "Arn":
			return fmt.Sprintf("arn:%s:sqs:%s:%s:%s", p.Partition, p.Region, p.AccountID, name), nil
		case "QueueName":
			return name, nil
		case "QueueUrl":
			return phys, nil
		}
	case TypeTable:
		if attr == "Arn" {
			return fmt.Sprintf("arn:%s:dynamodb:%s:%s:table/%s", p.Partition, p.Region, p.AccountID, phys), nil
		}
	case TypeTopic:
		switch attr {
		case "TopicArn":
			return phys, nil
		case "TopicName":
			return phys[strings.LastIndex(phys, ":")+1:], nil
		}
	case TypeBucket:
		switch attr {
		case "Arn":
			return fmt.Sprintf("arn:%s:s3:::%s", p.Partition, phys), nil
		case "DomainName":
			return phys + ".s3.amazonaws.com", nil
		}
	case TypeFunction, "AWS::Lambda::Function":
		if attr == "Arn" {
			return fmt.Sprintf("arn:%s:lambda:%s:%s:function:%s", p.Partition, p.Region, p.AccountID, phys), nil
		}
	}
	return "", &UnresolvedError{Expr: expr, Reason: fmt.Sprintf("attribute %s of %s has no local value", attr, rr.Type)}
}

func (r *Resolver) evalSub(arg any, depth int) (any, error) {
	var tmpl string
	vars := map[string]any{}
	switch a := arg.(type) {
	case string:
		tmpl = a
	case []any:
		if len(a) != 2 {
			return nil, badArg("Fn::Sub", arg, "string or [string, {variables}]")
		}
		s, ok := a[0].(string)
		m, okm := a[1].(map[string]any)
		if !ok || !okm {
			return nil, badArg("Fn::Sub", arg, "[string, {variables}]")
		}
		tmpl, vars = s, m
	default:
		return nil, badArg("Fn::Sub", arg, "string or [string, {variables}]")
	}
	var b strings.Builder
	rest := tmpl
	for {
		i := strings.Index(rest, "${")
		if i < 0 {
			b.WriteString(rest)
			return b.String(), nil
		}
		b.WriteString(rest[:i])
		end := strings.IndexByte(rest[i:], '}')
		if end < 0 {
			return nil, &UnresolvedError{Expr: short("Fn::Sub", arg), Reason: "unterminated ${"}
		}
		name := rest[i+2 : i+end]
		rest = rest[i+end+1:]
		if strings.HasPrefix(name, "!") { // ${!Literal} is the text ${Literal}
			b.WriteString("${" + name[1:] + "}")
			continue
		}
		name = strings.TrimSpace(name)
		var v any
		var err error
		if vv, ok := vars[name]; ok {
			v, err = r.resolve(vv, depth)
		} else if res, attr, dotted := strings.Cut(name, "."); dotted && !strings.HasPrefix(name, "AWS::") {
			v, err = r.getAtt(res, attr)
		} else {
			v, err = r.ref(name)
		}
		if err != nil {
			return nil, err
		}
		s, err := toString(v, "${"+name+"}")
		if err != nil {
			return nil, err
		}
		b.WriteString(s)
	}
}

func (r *Resolver) condition(name string, depth int) (bool, error) {
	// Conditions depend only on parameters, so each is evaluated once; a
	// chain of conditions that each use the next twice stays linear.
	r.mu.Lock()
	b, done := r.conditions[name]
	r.mu.Unlock()
	if done {
		return b, nil
	}
	b, err := r.evalCondition(name, depth)
	if err == nil {
		r.mu.Lock()
		r.conditions[name] = b
		r.mu.Unlock()
	}
	return b, err
}

func (r *Resolver) evalCondition(name string, depth int) (bool, error) {
	c, ok := r.t.Conditions[name]
	if !ok {
		return false, &UnresolvedError{Expr: "Condition " + name, Reason: "no such condition"}
	}
	v, err := r.resolve(c, depth+1)
	if err != nil {
		return false, err
	}
	b, ok := v.(bool)
	if !ok {
		return false, &UnresolvedError{Expr: "Condition " + name, Reason: fmt.Sprintf("evaluates to %T, not a boolean", v)}
	}
	return b, nil
}

func (r *Resolver) stringArg(fn string, arg any, depth int) (string, error) {
	v, err := r.resolve(arg, depth)
	if err != nil {
		return "", err
	}
	s, err := toString(v, arg)
	if err != nil {
		return "", badArg(fn, arg, "a string")
	}
	return s, nil
}

// stringPair resolves arg, a list of two, to its two strings (Fn::Split's
// delimiter and string, Fn::Equals' operands); want names them in the
// error of a malformed arg.
func (r *Resolver) stringPair(fn string, arg any, depth int, want string) (string, string, error) {
	list, ok := arg.([]any)
	if !ok || len(list) != 2 {
		return "", "", badArg(fn, arg, want)
	}
	a, err := r.stringArg(fn, list[0], depth)
	if err != nil {
		return "", "", err
	}
	b, err := r.stringArg(fn, list[1], depth)
	return a, b, err
}

func (r *Resolver) listArg(fn string, arg any, depth int) ([]any, error) {
	v, err := r.resolve(arg, depth)
	if err != nil {
		return nil, err
	}
	list, ok := v.([]any)
	if !ok {
		return nil, badArg(fn, arg, "a list")
	}
	return list, nil
}

func toString(v, expr any) (string, error) {
	if s, ok := ScalarString(v); ok || v == nil {
		return s, nil
	}
	return "", &UnresolvedError{Expr: shortAny(expr), Reason: fmt.Sprintf("evaluates to a %T, not a string", v)}
}

func badArg(fn string, arg any, want string) error {
	return &UnresolvedError{Expr: short(fn, arg), Reason: "malformed arguments, want " + want}
}

// short renders an intrinsic call in short form for messages.
func short(fn string, arg any) string {
	tag := "!" + strings.TrimPrefix(fn, "Fn::")
	switch a := arg.(type) {
	case string:
		return tag + " " + a
	case []any:
		if fn == "Fn::GetAtt" && len(a) == 2 {
			return fmt.Sprintf("%s %v.%v", tag, a[0], a[1])
		}
	}
	b, _ := json.Marshal(arg)
	return tag + " " + string(b)
}

func shortAny(v any) string {
	if name, arg, ok := Intrinsic(v); ok {
		return short(name, arg)
	}
	if s, ok := v.(string); ok {
		return s
	}
	b, _ := json.Marshal(v)
	return string(b)
}
