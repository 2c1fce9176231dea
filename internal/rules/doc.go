// Package rules is an operator's classification rules as data: a YAML file
// (its JSON Schema is docs/rules.schema.json) of rules that each match a
// failure by any of its provider, stage, HTTP status (a code or a range
// such as 4xx), error code and a regular expression over its text, and
// name the class it has and, optionally, the delay to wait
// (docs/design.md "Operator rules").
//
// It owns the file's format and its checks — Parse reads a file and
// reports every bad rule with its line and the reason, never skipping one
// — and the matching: a Set is a failure.Rule, evaluated before the
// built-in tables (failure.SetOperatorRule, failure.ClassifyWith), its
// rules in file order, the first match winning. It owns no class, trait or
// decision: a rule names a class of work.Classes, whose traits and
// policy stay failure's and retry's.
//
// Where a function's rules come from (a file bundled with the function or
// an SSM parameter the template names) is Load's and Install's; which
// file or parameter, the function's configuration says (internal/conf).
package rules
