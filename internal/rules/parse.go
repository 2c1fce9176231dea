package rules

import (
	"errors"
	"fmt"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"time"

	"go.yaml.in/yaml/v3"

	"github.com/triagehq/triage/internal/failure"
	"github.com/triagehq/triage/internal/work"
)

// Bounds of a rules file. A file is read at every cold start of every
// function, and every rule is tried on every failure before the tables.
const (
	// MaxFileBytes bounds a rules file (an SSM advanced parameter holds
	// 8 KB; a bundled file may be larger).
	MaxFileBytes = 256 << 10
	// MaxRules bounds the rules of a file.
	MaxRules = 500
	// MaxValues bounds the values of one field of a rule.
	MaxValues = 64
	// MaxPattern bounds a pattern's length.
	MaxPattern = 1000
	// MaxDescription bounds a rule's description.
	MaxDescription = 500
)

// Version is the file format's version, the only value "version" may have.
const Version = 1

// Fields are the fields a rule may have, in the order the schema lists
// them.
var Fields = []string{"name", "description", "provider", "stage", "status", "code", "pattern", "class", "delay"}

// matchFields are the fields that select failures; a rule needs one.
var matchFields = []string{"provider", "stage", "status", "code", "pattern"}

// LineError is a rules file's error at a line: every bad rule is one,
// and Parse reports all of them.
type LineError struct {
	// Source names the file ("rules.yaml", "ssm:/triage/rules").
	Source string
	// Line is the 1-based line, 0 when the error is the file's.
	Line int
	// Rule names the rule, when it has a name.
	Rule string
	// Msg is the reason.
	Msg string
}

// Error is "SOURCE:LINE: rule NAME: reason".
func (e *LineError) Error() string {
	var b strings.Builder
	b.WriteString(e.Source)
	if e.Line > 0 {
		b.WriteString(":" + strconv.Itoa(e.Line))
	}
	b.WriteString(": ")
	if e.Rule != "" {
		b.WriteString("rule " + strconv.Quote(e.Rule) + ": ")
	}
	b.WriteString(e.Msg)
	return b.String()
}

// reName is what a rule's name may be: it is logged in every reason.
var reName = regexp.MustCompile(`^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$`)

// reYAMLLine finds the line the YAML parser names in its errors.
var reYAMLLine = regexp.MustCompile(`^yaml: line (\d+): (.*)$`)

// Parse reads a rules file (source names it in errors) and checks every
// rule: an unknown field, a missing or unknown class, a status that is no
// status or range, a pattern that does not compile, a delay that is no
// positive duration, a rule that matches on nothing, a name that is
// missing, malformed or taken. It reports every error, each with its line
// and reason (errors.As finds the *LineError), and never returns a Set
// with a rule left out. An empty file (or one of comments) is an empty
// Set.
func Parse(source string, data []byte) (*Set, error) {
	if len(data) > MaxFileBytes {
		return nil, &LineError{Source: source, Msg: fmt.Sprintf("%d bytes, more than the %d a rules file may have", len(data), MaxFileBytes)}
	}
	var doc yaml.Node
	if err := yaml.Unmarshal(data, &doc); err != nil {
		return nil, yamlError(source, err)
	}
	set := &Set{Source: source}
	if doc.Kind == 0 || len(doc.Content) == 0 {
		return set, nil
	}
	root := deref(doc.Content[0])
	p := &parser{source: source}
	if root.Kind != yaml.MappingNode {
		return nil, p.at(root, "", "the file is a "+kindName(root)+"; it must be a mapping with a \"rules\" list")
	}
	var list *yaml.Node
	seen := map[string]bool{}
	for i := 0; i+1 < len(root.Content); i += 2 {
		k, v := root.Content[i], deref(root.Content[i+1])
		if seen[k.Value] {
			p.add(p.at(k, "", fmt.Sprintf("%q is given twice", k.Value)))
			continue
		}
		seen[k.Value] = true
		switch k.Value {
		case "version":
			if n, err := strconv.Atoi(v.Value); v.Kind != yaml.ScalarNode || err != nil || n != Version {
				p.add(p.at(v, "", fmt.Sprintf("version %q is not %d, the version this triage reads", v.Value, Version)))
			}
		case "rules":
			list = v
		default:
			p.add(p.at(k, "", fmt.Sprintf("unknown field %q (a rules file has \"version\" and \"rules\")", k.Value)))
		}
	}
	if list != nil && !(list.Kind == yaml.ScalarNode && list.Tag == "!!null") {
		if list.Kind != yaml.SequenceNode {
			p.add(p.at(list, "", "\"rules\" is a "+kindName(list)+"; it must be a list of rules"))
		} else {
			if len(list.Content) > MaxRules {
				p.add(p.at(list, "", fmt.Sprintf("%d rules, more than the %d a file may have", len(list.Content), MaxRules)))
			}
			names := map[string]int{}
			for _, n := range list.Content {
				if r, ok := p.rule(deref(n)); ok {
					if prev, taken := names[r.Name]; taken {
						p.add(p.at(n, r.Name, fmt.Sprintf("the name is taken by the rule at line %d", prev)))
						continue
					}
					names[r.Name] = r.Line
					set.Rules = append(set.Rules, r)
				}
			}
		}
	}
	if len(p.errs) > 0 {
		slices.SortStableFunc(p.errs, func(a, b *LineError) int { return a.Line - b.Line })
		errs := make([]error, len(p.errs))
		for i, e := range p.errs {
			errs[i] = e
		}
		return nil, errors.Join(errs...)
	}
	return set, nil
}

// yamlError is the YAML parser's error with its line.
func yamlError(source string, err error) error {
	msg := err.Error()
	if m := reYAMLLine.FindStringSubmatch(msg); m != nil {
		n, _ := strconv.Atoi(m[1])
		return &LineError{Source: source, Line: n, Msg: "not YAML: " + m[2]}
	}
	return &LineError{Source: source, Msg: "not YAML: " + strings.TrimPrefix(msg, "yaml: ")}
}

// parser collects a file's errors.
type parser struct {
	source string
	errs   []*LineError
}

func (p *parser) at(n *yaml.Node, rule, msg string) *LineError {
	return &LineError{Source: p.source, Line: n.Line, Rule: rule, Msg: msg}
}

func (p *parser) add(err *LineError) { p.errs = append(p.errs, err) }

// rule reads one rule; ok is false when it has an error (recorded).
func (p *parser) rule(n *yaml.Node) (Rule, bool) {
	r := Rule{Line: n.Line}
	if n.Kind != yaml.MappingNode {
		p.add(p.at(n, "", "a rule is a mapping of fields; this is a "+kindName(n)))
		return r, false
	}
	fields := map[string]*yaml.Node{}
	keys := map[string]*yaml.Node{}
	before := len(p.errs)
	for i := 0; i+1 < len(n.Content); i += 2 {
		k, v := n.Content[i], deref(n.Content[i+1])
		if _, dup := fields[k.Value]; dup {
			p.add(p.at(k, "", fmt.Sprintf("field %q is given twice", k.Value)))
			continue
		}
		fields[k.Value], keys[k.Value] = v, k
	}
	if v, ok := fields["name"]; ok && v.Kind == yaml.ScalarNode {
		r.Name = v.Value
	}
	name := r.Name
	for k, key := range keys {
		if !slices.Contains(Fields, k) {
			p.add(p.at(key, name, fmt.Sprintf("unknown field %q (a rule has %s)", k, strings.Join(Fields, ", "))))
		}
	}
	switch v, ok := fields["name"]; {
	case !ok:
		p.add(p.at(n, "", "the rule has no name (a classification by a rule names it)"))
	case v.Kind != yaml.ScalarNode || !reName.MatchString(v.Value):
		p.add(p.at(v, "", fmt.Sprintf("name %q is not 1 to 64 letters, digits, '.', '_' or '-', starting with a letter or a digit", v.Value)))
	}
	if v, ok := fields["description"]; ok {
		if v.Kind != yaml.ScalarNode || len(v.Value) > MaxDescription {
			p.add(p.at(v, name, fmt.Sprintf("description is not a text of at most %d bytes", MaxDescription)))
		}
		r.Description = v.Value
	}
	hasMatch := false
	for _, f := range matchFields {
		_, ok := fields[f]
		hasMatch = hasMatch || ok
	}
	if !hasMatch {
		p.add(p.at(n, name, "the rule matches on nothing: give at least one of "+strings.Join(matchFields, ", ")))
	}
	if v, ok := fields["provider"]; ok {
		for _, s := range p.values(v, name, "provider") {
			if f := fold(s.Value); f == "" || len(s.Value) > 64 {
				p.add(p.at(s, name, fmt.Sprintf("provider %q is not a name of 1 to 64 bytes", s.Value)))
			} else {
				r.Providers = append(r.Providers, f)
			}
		}
	}
	if v, ok := fields["stage"]; ok {
		for _, s := range p.values(v, name, "stage") {
			st, err := work.ParseStage(s.Value)
			if err != nil {
				p.add(p.at(s, name, fmt.Sprintf("stage %q is not one of %s", s.Value, stageNames())))
				continue
			}
			r.Stages = append(r.Stages, st)
		}
	}
	if v, ok := fields["status"]; ok {
		for _, s := range p.values(v, name, "status") {
			sr, err := ParseStatus(s.Value)
			if err != nil {
				p.add(p.at(s, name, err.Error()))
				continue
			}
			r.Statuses = append(r.Statuses, sr)
		}
	}
	if v, ok := fields["code"]; ok {
		for _, s := range p.values(v, name, "code") {
			if s.Value == "" || len(s.Value) > 100 {
				p.add(p.at(s, name, fmt.Sprintf("code %q is not 1 to 100 bytes", s.Value)))
				continue
			}
			r.Codes = append(r.Codes, s.Value)
		}
	}
	if v, ok := fields["pattern"]; ok {
		switch {
		case v.Kind != yaml.ScalarNode || v.Value == "":
			p.add(p.at(v, name, "pattern is not a regular expression's text"))
		case len(v.Value) > MaxPattern:
			p.add(p.at(v, name, fmt.Sprintf("pattern is %d bytes, more than %d", len(v.Value), MaxPattern)))
		default:
			re, err := regexp.Compile(v.Value)
			if err != nil {
				p.add(p.at(v, name, "pattern does not compile: "+strings.TrimPrefix(err.Error(), "error parsing regexp: ")))
			}
			r.Pattern = re
		}
	}
	switch v, ok := fields["class"]; {
	case !ok:
		p.add(p.at(n, name, "the rule names no class"))
	default:
		c := work.Class(v.Value)
		if v.Kind != yaml.ScalarNode || !c.Valid() {
			p.add(p.at(v, name, fmt.Sprintf("class %q is not one of %s", v.Value, classNames())))
		}
		r.Class = c
	}
	if v, ok := fields["delay"]; ok {
		d, err := ParseDelay(v.Value)
		if v.Kind != yaml.ScalarNode || err != nil {
			p.add(p.at(v, name, fmt.Sprintf("delay %q: %v", v.Value, err)))
		}
		r.Delay = d
	}
	return r, len(p.errs) == before
}

// values is a field's value as a list of scalars: one scalar, or a list
// of at most MaxValues scalars.
func (p *parser) values(v *yaml.Node, rule, field string) []*yaml.Node {
	switch v.Kind {
	case yaml.ScalarNode:
		return []*yaml.Node{v}
	case yaml.SequenceNode:
		if len(v.Content) == 0 || len(v.Content) > MaxValues {
			p.add(p.at(v, rule, fmt.Sprintf("%s is a list of %d values; it needs 1 to %d", field, len(v.Content), MaxValues)))
			return nil
		}
		out := make([]*yaml.Node, 0, len(v.Content))
		for _, c := range v.Content {
			if c = deref(c); c.Kind != yaml.ScalarNode {
				p.add(p.at(c, rule, fmt.Sprintf("%s holds a %s; it takes words or numbers", field, kindName(c))))
				continue
			}
			out = append(out, c)
		}
		return out
	}
	p.add(p.at(v, rule, fmt.Sprintf("%s is a %s; it takes a value or a list of values", field, kindName(v))))
	return nil
}

// ParseStatus reads a status or a range of them: "429", "4xx" (400–499),
// "500-504". Every status is between 100 and 599.
func ParseStatus(s string) (failure.StatusRange, error) {
	s = strings.TrimSpace(s)
	bad := fmt.Errorf("status %q is not an HTTP status (429), a hundred (4xx) or a range (500-504) between 100 and 599", s)
	if len(s) == 3 && (s[1] == 'x' || s[1] == 'X') && (s[2] == 'x' || s[2] == 'X') {
		h := int(s[0] - '0')
		if h < 1 || h > 5 {
			return failure.StatusRange{}, bad
		}
		return failure.StatusRange{From: h * 100, To: h*100 + 99}, nil
	}
	from, to, isRange := strings.Cut(s, "-")
	a, err := status(from)
	if err != nil {
		return failure.StatusRange{}, bad
	}
	if !isRange {
		return failure.StatusRange{From: a, To: a}, nil
	}
	b, err := status(to)
	if err != nil || b < a {
		return failure.StatusRange{}, bad
	}
	return failure.StatusRange{From: a, To: b}, nil
}

func status(s string) (int, error) {
	s = strings.TrimSpace(s)
	n, err := strconv.Atoi(s)
	if err != nil || len(s) != 3 || n < 100 || n > 599 {
		return 0, errors.New("not a status")
	}
	return n, nil
}

// ParseDelay reads a rule's delay: a Go duration ("30s", "5m", "1h30m"),
// positive and at most failure.MaxRequestedDelay.
func ParseDelay(s string) (time.Duration, error) {
	d, err := time.ParseDuration(strings.TrimSpace(s))
	switch {
	case err != nil:
		return 0, errors.New("not a duration such as 30s, 5m or 1h30m")
	case d <= 0:
		return 0, errors.New("not a positive duration")
	case d > failure.MaxRequestedDelay:
		return 0, fmt.Errorf("longer than %s", failure.MaxRequestedDelay)
	}
	return d, nil
}

func deref(n *yaml.Node) *yaml.Node {
	for i := 0; n != nil && n.Kind == yaml.AliasNode && n.Alias != nil && i < 8; i++ {
		n = n.Alias
	}
	return n
}

func kindName(n *yaml.Node) string {
	switch n.Kind {
	case yaml.MappingNode:
		return "mapping"
	case yaml.SequenceNode:
		return "list"
	case yaml.ScalarNode:
		return "value (" + strconv.Quote(cutTo(n.Value, 40)) + ")"
	}
	return "nothing"
}

func cutTo(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return s[:n] + "…"
}

func classNames() string {
	var names []string
	for _, c := range work.Classes() {
		names = append(names, string(c))
	}
	return strings.Join(names, ", ")
}

func stageNames() string {
	var names []string
	for _, st := range work.Stages() {
		names = append(names, string(st))
	}
	return strings.Join(names, ", ")
}
