package template

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"strings"

	"go.yaml.in/yaml/v3"
)

// ErrSyntax is wrapped by every error Parse returns for a document that is
// not a well-formed CloudFormation template (as opposed to an I/O error).
var ErrSyntax = errors.New("invalid template")

// SyntaxError is a template error at a position in the YAML.
type SyntaxError struct {
	// Line and Column are 1-based; 0 when unknown.
	Line, Column int
	// Msg says what is wrong.
	Msg string
}

// Error formats the error with its position.
func (e *SyntaxError) Error() string {
	if e.Line == 0 {
		return "template: " + e.Msg
	}
	return fmt.Sprintf("template: line %d column %d: %s", e.Line, e.Column, e.Msg)
}

// Is makes errors.Is(err, ErrSyntax) true for every *SyntaxError.
func (e *SyntaxError) Is(target error) bool { return target == ErrSyntax }

func syntaxErr(n *yaml.Node, format string, args ...any) error {
	e := &SyntaxError{Msg: fmt.Sprintf(format, args...)}
	if n != nil {
		e.Line, e.Column = n.Line, n.Column
	}
	return e
}

// shortForms maps each CloudFormation short-form tag to the key of its long
// form. Ref and Condition keep their names; the rest gain "Fn::".
var shortForms = map[string]string{
	"!Ref":          "Ref",
	"!Condition":    "Condition",
	"!Base64":       "Fn::Base64",
	"!Cidr":         "Fn::Cidr",
	"!FindInMap":    "Fn::FindInMap",
	"!GetAtt":       "Fn::GetAtt",
	"!GetAZs":       "Fn::GetAZs",
	"!ImportValue":  "Fn::ImportValue",
	"!Join":         "Fn::Join",
	"!Select":       "Fn::Select",
	"!Split":        "Fn::Split",
	"!Sub":          "Fn::Sub",
	"!Transform":    "Fn::Transform",
	"!And":          "Fn::And",
	"!Equals":       "Fn::Equals",
	"!If":           "Fn::If",
	"!Not":          "Fn::Not",
	"!Or":           "Fn::Or",
	"!ToJsonString": "Fn::ToJsonString",
	"!Length":       "Fn::Length",
}

// ParseFile reads and parses the template at path.
func ParseFile(path string) (*Template, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("read template: %w", err)
	}
	t, err := Parse(b)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return t, nil
}

// Parse parses a CloudFormation/SAM template in YAML (JSON is YAML too).
// Errors in the document wrap ErrSyntax.
func Parse(src []byte) (*Template, error) {
	var doc yaml.Node
	dec := yaml.NewDecoder(bytes.NewReader(src))
	if err := dec.Decode(&doc); err != nil {
		return nil, &SyntaxError{Msg: err.Error()}
	}
	if len(doc.Content) != 1 {
		return nil, syntaxErr(&doc, "empty document")
	}
	c := &converter{budget: maxNodes}
	v, err := c.convert(doc.Content[0])
	if err != nil {
		return nil, err
	}
	root, ok := v.(map[string]any)
	if !ok {
		return nil, syntaxErr(doc.Content[0], "top level is %s, want a mapping", kindName(doc.Content[0]))
	}
	return build(root)
}

// maxNodes bounds the values a document expands to, aliases included (a
// CloudFormation template body is at most 1 MB; template.yaml is ~2,000), so
// nested aliases (a "billion laughs" document) fail instead of exhausting
// memory.
const maxNodes = 1 << 16

// converter turns YAML nodes into CloudFormation's JSON form.
type converter struct {
	budget int
}

// convert turns a YAML node into CloudFormation's JSON form.
func (c *converter) convert(n *yaml.Node) (any, error) {
	if c.budget--; c.budget < 0 {
		return nil, syntaxErr(n, "document expands to more than %d values (nested aliases?)", maxNodes)
	}
	if n.Kind == yaml.AliasNode {
		return c.convert(n.Alias)
	}
	if strings.HasPrefix(n.Tag, "!") && !strings.HasPrefix(n.Tag, "!!") {
		return c.convertShortForm(n)
	}
	switch n.Kind {
	case yaml.ScalarNode:
		return scalar(n)
	case yaml.SequenceNode:
		out := make([]any, 0, len(n.Content))
		for _, e := range n.Content {
			v, err := c.convert(e)
			if err != nil {
				return nil, err
			}
			out = append(out, v)
		}
		return out, nil
	case yaml.MappingNode:
		out := make(map[string]any, len(n.Content)/2)
		for i := 0; i+1 < len(n.Content); i += 2 {
			k, vn := n.Content[i], n.Content[i+1]
			if k.Kind != yaml.ScalarNode {
				return nil, syntaxErr(k, "mapping key is a %s, want a string", kindName(k))
			}
			if k.Tag == "!!merge" {
				return nil, syntaxErr(k, "YAML merge keys (<<) are not supported by CloudFormation")
			}
			if _, dup := out[k.Value]; dup {
				return nil, syntaxErr(k, "duplicate key %q", k.Value)
			}
			v, err := c.convert(vn)
			if err != nil {
				return nil, err
			}
			out[k.Value] = v
		}
		return out, nil
	default:
		return nil, syntaxErr(n, "unexpected %s", kindName(n))
	}
}

// scalar decodes a plain scalar. Timestamps stay strings, as in
// CloudFormation (AWSTemplateFormatVersion: 2010-09-09 unquoted).
func scalar(n *yaml.Node) (any, error) {
	switch n.ShortTag() {
	case "!!timestamp", "!!binary":
		return n.Value, nil
	case "!!str":
		return n.Value, nil
	}
	var v any
	if err := n.Decode(&v); err != nil {
		return nil, syntaxErr(n, "%v", err)
	}
	return v, nil
}

func (c *converter) convertShortForm(n *yaml.Node) (any, error) {
	key, ok := shortForms[n.Tag]
	if !ok {
		return nil, syntaxErr(n, "unknown tag %s", n.Tag)
	}
	// Strip the tag and convert the value as plain YAML.
	plain := *n
	plain.Tag = ""
	if n.Kind == yaml.ScalarNode {
		// A tagged scalar is always a string: `!Ref 5` names "5".
		plain.Tag = "!!str"
	}
	arg, err := c.convert(&plain)
	if err != nil {
		return nil, err
	}
	if key == "Fn::GetAtt" {
		if s, ok := arg.(string); ok {
			res, attr, found := strings.Cut(s, ".")
			if !found || res == "" || attr == "" {
				return nil, syntaxErr(n, "!GetAtt %q: want Resource.Attribute", s)
			}
			arg = []any{res, attr}
		}
	}
	return map[string]any{key: arg}, nil
}

func kindName(n *yaml.Node) string {
	switch n.Kind {
	case yaml.DocumentNode:
		return "document"
	case yaml.SequenceNode:
		return "sequence"
	case yaml.MappingNode:
		return "mapping"
	case yaml.ScalarNode:
		return "scalar"
	case yaml.AliasNode:
		return "alias"
	}
	return "node"
}
