package template

import (
	"fmt"
	"maps"
	"math"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"time"
)

// Resource types the package knows.
const (
	// TypeFunction is SAM's function resource.
	TypeFunction = "AWS::Serverless::Function"
	// TypeQueue is an SQS queue; its physical id is the queue URL.
	TypeQueue = "AWS::SQS::Queue"
	// TypeTable is a DynamoDB table; its physical id is the table name.
	TypeTable = "AWS::DynamoDB::Table"
	// TypeTopic is an SNS topic; its physical id is the topic ARN.
	TypeTopic = "AWS::SNS::Topic"
	// TypeBucket is an S3 bucket.
	TypeBucket = "AWS::S3::Bucket"
)

// Event types of an AWS::Serverless::Function event source.
const (
	// EventSQS is an SQS event source mapping.
	EventSQS = "SQS"
	// EventSchedule is an EventBridge schedule.
	EventSchedule = "Schedule"
)

// Defaults SAM and Lambda apply when a template leaves a setting out.
const (
	// DefaultTimeout is Lambda's function timeout.
	DefaultTimeout = 3 * time.Second
	// DefaultMemorySize is Lambda's memory size in MB.
	DefaultMemorySize = 128
	// DefaultSQSBatchSize is the SQS event's BatchSize.
	DefaultSQSBatchSize = 10
	// DefaultArchitecture is Lambda's architecture.
	DefaultArchitecture = "x86_64"
	// ReportBatchItemFailures is the FunctionResponseTypes entry for partial
	// batch responses.
	ReportBatchItemFailures = "ReportBatchItemFailures"
)

// Template is a parsed CloudFormation/SAM template. Values are in
// CloudFormation's JSON form (see the package documentation).
type Template struct {
	// FormatVersion is AWSTemplateFormatVersion; "" when absent.
	FormatVersion string
	// Description is the template's description.
	Description string
	// Transform lists the template's transforms, e.g.
	// ["AWS::Serverless-2016-10-31"].
	Transform []string
	// Parameters by name.
	Parameters map[string]Parameter
	// Mappings is the Mappings section, for Fn::FindInMap.
	Mappings map[string]any
	// Conditions is the Conditions section, for Fn::If and Condition.
	Conditions map[string]any
	// Globals is SAM's Globals section by resource kind ("Function", "Api").
	Globals map[string]map[string]any
	// Resources by logical id.
	Resources map[string]Resource
	// Outputs by key.
	Outputs map[string]Output

	functions []Function
}

// Parameter is a template parameter.
type Parameter struct {
	// Type is the parameter type: "String", "Number", "CommaDelimitedList",
	// "List<Number>", an AWS-specific type ….
	Type string
	// Default is the default value as CloudFormation passes it (numbers as
	// their decimal text); meaningful when HasDefault.
	Default string
	// HasDefault tells a "" default from none.
	HasDefault bool
	// AllowedValues, when non-empty, lists the accepted values.
	AllowedValues []string
	// AllowedPattern, when set, is the regular expression values must match.
	AllowedPattern string
	// Description is the parameter's description.
	Description string
	// NoEcho marks a secret parameter.
	NoEcho bool
}

// IsList reports whether a Ref to the parameter yields a list.
func (p Parameter) IsList() bool {
	return p.Type == "CommaDelimitedList" || strings.HasPrefix(p.Type, "List<")
}

// Resource is one entry of the Resources section.
type Resource struct {
	// Type is the resource type, e.g. "AWS::SQS::Queue".
	Type string
	// Properties are the resource's properties, unresolved; nil when absent.
	Properties map[string]any
	// Metadata is the resource's metadata, e.g. SAM's BuildMethod.
	Metadata map[string]any
	// Condition names the condition the resource depends on; "" when none.
	Condition string
}

// Output is one entry of the Outputs section.
type Output struct {
	// Value is the output's value, unresolved.
	Value any
	// Description is the output's description.
	Description string
}

// Function is an AWS::Serverless::Function with Globals.Function merged in
// and defaults applied.
type Function struct {
	// LogicalID is the resource's logical id, e.g. "FetchFunc".
	LogicalID string
	// CodeURI is CodeUri when it is a string ("."); "" for an S3 location.
	CodeURI string
	// Handler is the handler, "bootstrap" for provided runtimes.
	Handler string
	// Runtime is the runtime, e.g. "provided.al2023".
	Runtime string
	// Architectures defaults to ["x86_64"].
	Architectures []string
	// Description is the function's description.
	Description string
	// BuildMethod is Metadata.BuildMethod ("makefile"); "" when absent.
	BuildMethod string
	// Timeout defaults to DefaultTimeout (3 s).
	Timeout time.Duration
	// MemorySize in MB defaults to DefaultMemorySize (128).
	MemorySize int
	// Environment is Environment.Variables, unresolved (see
	// Resolver.ResolveEnv); never nil.
	Environment map[string]any
	// Events are the function's event sources, sorted by name.
	Events []Event
	// Properties are the merged properties, unresolved.
	Properties map[string]any
}

// Event is one event source of a function.
type Event struct {
	// Name is the event's key under Events, e.g. "Queue".
	Name string
	// Type is the event type: EventSQS, EventSchedule or another SAM type,
	// whose Properties are kept but not interpreted.
	Type string
	// Queue is the SQS event's queue ARN, unresolved (typically
	// {"Fn::GetAtt": ["FetchQueue", "Arn"]}).
	Queue any
	// BatchSize defaults to DefaultSQSBatchSize (10) for SQS events.
	BatchSize int
	// MaximumBatchingWindowInSeconds defaults to 0.
	MaximumBatchingWindowInSeconds int
	// FunctionResponseTypes, e.g. ["ReportBatchItemFailures"].
	FunctionResponseTypes []string
	// MaximumConcurrency is ScalingConfig.MaximumConcurrency; 0 when unset
	// (Lambda then scales up to its account limits).
	MaximumConcurrency int
	// Enabled defaults to true.
	Enabled bool
	// Schedule is the Schedule event's expression, e.g. "rate(30 minutes)".
	Schedule string
	// Input is the Schedule event's Input: the JSON EventBridge delivers
	// instead of its scheduled event; empty when unset.
	Input string
	// Properties are the event's properties, unresolved.
	Properties map[string]any
}

var rateRE = regexp.MustCompile(`^rate\((\d+) (minute|minutes|hour|hours|day|days)\)$`)

// Rate is the period of a Schedule event whose expression is a rate
// ("rate(5 minutes)"); false for a cron expression and any other event.
func (e Event) Rate() (time.Duration, bool) {
	if e.Type != EventSchedule {
		return 0, false
	}
	expr := e.Schedule
	m := rateRE.FindStringSubmatch(strings.TrimSpace(expr))
	if m == nil {
		return 0, false
	}
	n, err := strconv.Atoi(m[1])
	if err != nil || n <= 0 {
		return 0, false
	}
	unit := map[string]time.Duration{"minute": time.Minute, "minutes": time.Minute, "hour": time.Hour, "hours": time.Hour,
		"day": 24 * time.Hour, "days": 24 * time.Hour}[m[2]]
	return time.Duration(n) * unit, true
}

// ReportsBatchItemFailures reports whether FunctionResponseTypes holds
// ReportBatchItemFailures.
func (e Event) ReportsBatchItemFailures() bool {
	return slices.Contains(e.FunctionResponseTypes, ReportBatchItemFailures)
}

// BatchingWindow is MaximumBatchingWindowInSeconds as a duration.
func (e Event) BatchingWindow() time.Duration {
	return time.Duration(e.MaximumBatchingWindowInSeconds) * time.Second
}

// Functions returns the template's AWS::Serverless::Function resources,
// sorted by logical id. The slice is a copy; the maps inside are shared.
func (t *Template) Functions() []Function { return slices.Clone(t.functions) }

// Function returns the function with the given logical id.
func (t *Template) Function(logicalID string) (Function, bool) {
	for _, f := range t.functions {
		if f.LogicalID == logicalID {
			return f, true
		}
	}
	return Function{}, false
}

func build(root map[string]any) (*Template, error) {
	t := &Template{
		Parameters: map[string]Parameter{},
		Mappings:   map[string]any{},
		Conditions: map[string]any{},
		Globals:    map[string]map[string]any{},
		Resources:  map[string]Resource{},
		Outputs:    map[string]Output{},
	}
	var err error
	if t.FormatVersion, err = optString(root, "AWSTemplateFormatVersion", "template"); err != nil {
		return nil, err
	}
	if t.Description, err = optString(root, "Description", "template"); err != nil {
		return nil, err
	}
	switch tr := root["Transform"].(type) {
	case nil:
	case string:
		t.Transform = []string{tr}
	case []any:
		if t.Transform, err = stringList(tr, "Transform"); err != nil {
			return nil, err
		}
	default:
		return nil, &SyntaxError{Msg: "Transform must be a string or a list"}
	}
	params, err := optMap(root, "Parameters", "template")
	if err != nil {
		return nil, err
	}
	for name, v := range params {
		p, err := buildParameter(name, v)
		if err != nil {
			return nil, err
		}
		t.Parameters[name] = p
	}
	if t.Mappings, err = optMap(root, "Mappings", "template"); err != nil {
		return nil, err
	}
	if t.Conditions, err = optMap(root, "Conditions", "template"); err != nil {
		return nil, err
	}
	globals, err := optMap(root, "Globals", "template")
	if err != nil {
		return nil, err
	}
	for kind, v := range globals {
		m, ok := v.(map[string]any)
		if !ok {
			return nil, &SyntaxError{Msg: fmt.Sprintf("Globals.%s must be a mapping", kind)}
		}
		t.Globals[kind] = m
	}
	resources, err := optMap(root, "Resources", "template")
	if err != nil {
		return nil, err
	}
	if len(resources) == 0 {
		return nil, &SyntaxError{Msg: "template has no Resources"}
	}
	for id, v := range resources {
		r, err := buildResource(id, v)
		if err != nil {
			return nil, err
		}
		t.Resources[id] = r
	}
	outputs, err := optMap(root, "Outputs", "template")
	if err != nil {
		return nil, err
	}
	for key, v := range outputs {
		m, ok := v.(map[string]any)
		if !ok {
			return nil, &SyntaxError{Msg: fmt.Sprintf("output %s must be a mapping", key)}
		}
		val, ok := m["Value"]
		if !ok {
			return nil, &SyntaxError{Msg: fmt.Sprintf("output %s has no Value", key)}
		}
		desc, err := optString(m, "Description", "output "+key)
		if err != nil {
			return nil, err
		}
		t.Outputs[key] = Output{Value: val, Description: desc}
	}
	for _, id := range slices.Sorted(maps.Keys(t.Resources)) {
		r := t.Resources[id]
		if r.Type != TypeFunction {
			continue
		}
		f, err := buildFunction(id, r, t.Globals["Function"])
		if err != nil {
			return nil, err
		}
		t.functions = append(t.functions, f)
	}
	return t, nil
}

func buildParameter(name string, v any) (Parameter, error) {
	m, ok := v.(map[string]any)
	if !ok {
		return Parameter{}, &SyntaxError{Msg: fmt.Sprintf("parameter %s must be a mapping", name)}
	}
	where := "parameter " + name
	var p Parameter
	var err error
	if p.Type, err = needString(m, "Type", where); err != nil {
		return p, err
	}
	if d, ok := m["Default"]; ok {
		if p.Default, err = literalString(d, where+" Default"); err != nil {
			return p, err
		}
		p.HasDefault = true
	}
	if av, ok := m["AllowedValues"]; ok {
		list, ok := av.([]any)
		if !ok {
			return p, &SyntaxError{Msg: where + " AllowedValues must be a list"}
		}
		for _, x := range list {
			s, err := literalString(x, where+" AllowedValues")
			if err != nil {
				return p, err
			}
			p.AllowedValues = append(p.AllowedValues, s)
		}
	}
	if p.AllowedPattern, err = optString(m, "AllowedPattern", where); err != nil {
		return p, err
	}
	if p.Description, err = optString(m, "Description", where); err != nil {
		return p, err
	}
	switch ne := m["NoEcho"].(type) {
	case nil:
	case bool:
		p.NoEcho = ne
	case string:
		p.NoEcho = ne == "true"
	}
	return p, nil
}

func buildResource(id string, v any) (Resource, error) {
	m, ok := v.(map[string]any)
	if !ok {
		return Resource{}, &SyntaxError{Msg: fmt.Sprintf("resource %s must be a mapping", id)}
	}
	where := "resource " + id
	var r Resource
	var err error
	if r.Type, err = needString(m, "Type", where); err != nil {
		return r, err
	}
	if r.Properties, err = optMap(m, "Properties", where); err != nil {
		return r, err
	}
	if r.Metadata, err = optMap(m, "Metadata", where); err != nil {
		return r, err
	}
	if r.Condition, err = optString(m, "Condition", where); err != nil {
		return r, err
	}
	return r, nil
}

func buildFunction(id string, r Resource, globals map[string]any) (Function, error) {
	props := mergeGlobals(globals, r.Properties, "")
	where := "function " + id
	f := Function{LogicalID: id, Properties: props, Timeout: DefaultTimeout, MemorySize: DefaultMemorySize,
		Environment: map[string]any{}}
	if s, ok := props["CodeUri"].(string); ok {
		f.CodeURI = s
	}
	var err error
	if f.Handler, err = optString(props, "Handler", where); err != nil {
		return f, err
	}
	if f.Runtime, err = optString(props, "Runtime", where); err != nil {
		return f, err
	}
	if f.Description, err = optString(props, "Description", where); err != nil {
		return f, err
	}
	if bm, ok := r.Metadata["BuildMethod"].(string); ok {
		f.BuildMethod = bm
	}
	if v, ok := props["Timeout"]; ok {
		secs, err := number(v, where+" Timeout")
		if err != nil {
			return f, err
		}
		if secs <= 0 || secs > 900 {
			return f, &SyntaxError{Msg: fmt.Sprintf("%s Timeout %v is outside 1..900 seconds", where, secs)}
		}
		f.Timeout = time.Duration(secs * float64(time.Second))
	}
	if v, ok := props["MemorySize"]; ok {
		if f.MemorySize, err = integer(v, where+" MemorySize"); err != nil {
			return f, err
		}
	}
	f.Architectures = []string{DefaultArchitecture}
	if v, ok := props["Architectures"]; ok {
		if f.Architectures, err = stringList(v, where+" Architectures"); err != nil {
			return f, err
		}
	}
	envProps, err := optMap(props, "Environment", where)
	if err != nil {
		return f, err
	}
	vars, err := optMap(envProps, "Variables", where+" Environment")
	if err != nil {
		return f, err
	}
	maps.Copy(f.Environment, vars)
	events, err := optMap(props, "Events", where)
	if err != nil {
		return f, err
	}
	for _, name := range slices.Sorted(maps.Keys(events)) {
		ev, err := buildEvent(where, name, events[name])
		if err != nil {
			return f, err
		}
		f.Events = append(f.Events, ev)
	}
	return f, nil
}

func buildEvent(fn, name string, v any) (Event, error) {
	where := fn + " event " + name
	m, ok := v.(map[string]any)
	if !ok {
		return Event{}, &SyntaxError{Msg: where + " must be a mapping"}
	}
	ev := Event{Name: name, Enabled: true}
	var err error
	if ev.Type, err = needString(m, "Type", where); err != nil {
		return ev, err
	}
	if ev.Properties, err = optMap(m, "Properties", where); err != nil {
		return ev, err
	}
	p := ev.Properties
	if v, ok := p["Enabled"]; ok {
		b, err := boolean(v, where+" Enabled")
		if err != nil {
			return ev, err
		}
		ev.Enabled = b
	}
	switch ev.Type {
	case EventSQS:
		ev.Queue, ok = p["Queue"]
		if !ok {
			return ev, &SyntaxError{Msg: where + " has no Queue"}
		}
		ev.BatchSize = DefaultSQSBatchSize
		if v, ok := p["BatchSize"]; ok {
			if ev.BatchSize, err = integer(v, where+" BatchSize"); err != nil {
				return ev, err
			}
			if ev.BatchSize < 1 || ev.BatchSize > 10000 {
				return ev, &SyntaxError{Msg: fmt.Sprintf("%s BatchSize %d is outside 1..10000", where, ev.BatchSize)}
			}
		}
		if v, ok := p["MaximumBatchingWindowInSeconds"]; ok {
			if ev.MaximumBatchingWindowInSeconds, err = integer(v, where+" MaximumBatchingWindowInSeconds"); err != nil {
				return ev, err
			}
			if w := ev.MaximumBatchingWindowInSeconds; w < 0 || w > 300 {
				return ev, &SyntaxError{Msg: fmt.Sprintf("%s MaximumBatchingWindowInSeconds %d is outside 0..300", where, w)}
			}
		}
		// Lambda requires a window of at least 1 s for batches over 10.
		if ev.BatchSize > 10 && ev.MaximumBatchingWindowInSeconds < 1 {
			return ev, &SyntaxError{Msg: where + " BatchSize over 10 needs MaximumBatchingWindowInSeconds >= 1"}
		}
		if v, ok := p["FunctionResponseTypes"]; ok {
			if ev.FunctionResponseTypes, err = stringList(v, where+" FunctionResponseTypes"); err != nil {
				return ev, err
			}
		}
		sc, err := optMap(p, "ScalingConfig", where)
		if err != nil {
			return ev, err
		}
		if v, ok := sc["MaximumConcurrency"]; ok {
			if ev.MaximumConcurrency, err = integer(v, where+" ScalingConfig.MaximumConcurrency"); err != nil {
				return ev, err
			}
			if c := ev.MaximumConcurrency; c < 2 || c > 1000 {
				return ev, &SyntaxError{Msg: fmt.Sprintf("%s MaximumConcurrency %d is outside 2..1000", where, c)}
			}
		}
	case EventSchedule:
		if ev.Schedule, err = needString(p, "Schedule", where); err != nil {
			return ev, err
		}
		if ev.Input, err = optString(p, "Input", where); err != nil {
			return ev, err
		}
	}
	return ev, nil
}

// mergeGlobals applies SAM's Globals rules: mappings merge key by key with
// the resource winning; lists concatenate, Globals first (except
// Architectures, which the resource replaces, since a function has one
// architecture); anything else — scalars and intrinsic functions — the
// resource's value replaces.
func mergeGlobals(global, local map[string]any, path string) map[string]any {
	out := make(map[string]any, len(global)+len(local))
	maps.Copy(out, global)
	for k, lv := range local {
		gv, ok := out[k]
		if !ok {
			out[k] = lv
			continue
		}
		p := k
		if path != "" {
			p = path + "." + k
		}
		gm, gIsMap := gv.(map[string]any)
		lm, lIsMap := lv.(map[string]any)
		gl, gIsList := gv.([]any)
		ll, lIsList := lv.([]any)
		switch {
		case gIsMap && lIsMap && !isIntrinsic(gm) && !isIntrinsic(lm):
			out[k] = mergeGlobals(gm, lm, p)
		case gIsList && lIsList && p != "Architectures":
			out[k] = append(slices.Clone(gl), ll...)
		default:
			out[k] = lv
		}
	}
	return out
}

// isIntrinsic reports whether m is an intrinsic function call: one key,
// "Ref", "Condition" or "Fn::…".
func isIntrinsic(m map[string]any) bool {
	if len(m) != 1 {
		return false
	}
	for k := range m {
		return k == "Ref" || k == "Condition" || strings.HasPrefix(k, "Fn::")
	}
	return false
}

// Intrinsic returns the function name and argument of v when v is an
// intrinsic function call ({"Ref": "X"} gives "Ref", "X").
func Intrinsic(v any) (name string, arg any, ok bool) {
	m, isMap := v.(map[string]any)
	if !isMap || !isIntrinsic(m) {
		return "", nil, false
	}
	for k, a := range m {
		return k, a, true
	}
	return "", nil, false
}

func optMap(m map[string]any, key, where string) (map[string]any, error) {
	v, ok := m[key]
	if !ok || v == nil {
		return map[string]any{}, nil
	}
	mm, ok := v.(map[string]any)
	if !ok {
		return nil, &SyntaxError{Msg: fmt.Sprintf("%s %s must be a mapping", where, key)}
	}
	if isIntrinsic(mm) {
		return nil, &SyntaxError{Msg: fmt.Sprintf("%s %s: intrinsic functions are not supported here", where, key)}
	}
	return mm, nil
}

func optString(m map[string]any, key, where string) (string, error) {
	v, ok := m[key]
	if !ok || v == nil {
		return "", nil
	}
	s, ok := v.(string)
	if !ok {
		return "", &SyntaxError{Msg: fmt.Sprintf("%s %s must be a string, not %T", where, key, v)}
	}
	return s, nil
}

// needString reads m[key], a string that must be there and not empty.
func needString(m map[string]any, key, where string) (string, error) {
	s, err := optString(m, key, where)
	if err == nil && s == "" {
		err = &SyntaxError{Msg: where + " has no " + key}
	}
	return s, err
}

// ScalarString renders a string, number or boolean as CloudFormation
// passes it: numbers in decimal, booleans as "true"/"false"; ok is false
// for anything else.
func ScalarString(v any) (s string, ok bool) {
	switch x := v.(type) {
	case string:
		return x, true
	case int:
		return strconv.Itoa(x), true
	case int64:
		return strconv.FormatInt(x, 10), true
	case float64:
		return strconv.FormatFloat(x, 'f', -1, 64), true
	case bool:
		return strconv.FormatBool(x), true
	}
	return "", false
}

// stringList reads a list of strings; where names it in the error.
func stringList(v any, where string) ([]string, error) {
	list, ok := v.([]any)
	if !ok {
		return nil, &SyntaxError{Msg: where + " must be a list"}
	}
	var out []string
	for _, x := range list {
		s, ok := x.(string)
		if !ok {
			return nil, &SyntaxError{Msg: where + " entries must be strings"}
		}
		out = append(out, s)
	}
	return out, nil
}

// literalString renders a scalar as CloudFormation passes it: numbers in
// decimal, booleans as "true"/"false".
func literalString(v any, where string) (string, error) {
	if s, ok := ScalarString(v); ok {
		return s, nil
	}
	return "", &SyntaxError{Msg: fmt.Sprintf("%s must be a scalar, not %T", where, v)}
}

func number(v any, where string) (float64, error) {
	switch x := v.(type) {
	case int:
		return float64(x), nil
	case float64:
		return x, nil
	case string:
		f, err := strconv.ParseFloat(strings.TrimSpace(x), 64)
		if err == nil {
			return f, nil
		}
	}
	if _, _, ok := Intrinsic(v); ok {
		return 0, &SyntaxError{Msg: where + ": intrinsic functions are not supported here (use a literal number)"}
	}
	return 0, &SyntaxError{Msg: fmt.Sprintf("%s must be a number, not %v", where, v)}
}

func integer(v any, where string) (int, error) {
	f, err := number(v, where)
	if err != nil {
		return 0, err
	}
	if f != math.Trunc(f) || math.Abs(f) > math.MaxInt32 {
		return 0, &SyntaxError{Msg: fmt.Sprintf("%s must be an integer, not %v", where, v)}
	}
	return int(f), nil
}

func boolean(v any, where string) (bool, error) {
	switch x := v.(type) {
	case bool:
		return x, nil
	case string:
		if b, err := strconv.ParseBool(x); err == nil {
			return b, nil
		}
	}
	return false, &SyntaxError{Msg: fmt.Sprintf("%s must be a boolean, not %v", where, v)}
}
