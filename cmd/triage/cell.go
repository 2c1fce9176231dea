package main

import "github.com/triagehq/triage/internal/redact"

// cell makes a stored string safe to print in a terminal table: item ids,
// error messages, notes and model names come from messages and upstreams,
// and a raw escape sequence, carriage return or bidirectional override in
// one could rewrite or hide what the operator reads. Control and format
// characters and invalid UTF-8 are written as Go escapes (\x1b, \r,
// \u202e, \xff); everything else stays as it is (redact.Terminal).
func cell(s string) string { return redact.Terminal(s) }
