package main

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"

	"github.com/triagehq/triage/shared/redact"
)

// runRedact implements "triage redact": it reads stdin (at most 16 MiB) and
// writes it to stdout with secrets and PII redacted. Input that is one JSON
// document is walked by redact.JSON (secret keys, prompts and nested bodies
// included); other input is redacted line by line, keeping line endings: a
// line holding a JSON value (JSON Lines) through redact.JSON, any other line
// through redact.String. It takes no arguments; -h prints its usage.
func runRedact(stdin io.Reader, stdout io.Writer, args []string) error {
	const maxInput = 16 << 20
	fs := newFlagSet("redact", `redact < INPUT > OUTPUT

Copies stdin to stdout with secrets and PII replaced by markers such as
[REDACTED:openai-key]: API keys and tokens, Authorization and Cookie values,
JWTs, private keys, URL passwords and secret query parameters, webhook URL
secrets, emails, phone numbers, card numbers, SSNs. A JSON document is
redacted by structure: values under secret keys go whole, prompts and
completions become [text N bytes sha256:…]. Other input is redacted line by
line; a line that is JSON (JSON Lines) is redacted as JSON. Input is limited
to 16 MiB.`)
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	if fs.NArg() > 0 {
		return usageError{fmt.Sprintf("unexpected argument %q: redact reads stdin", fs.Arg(0))}
	}
	data, err := io.ReadAll(io.LimitReader(stdin, maxInput+1))
	if err != nil {
		return fmt.Errorf("read stdin: %w", err)
	}
	if len(data) > maxInput {
		return errors.New("input larger than 16 MiB: split it, or redact JSON Lines in parts")
	}
	w := bufio.NewWriterSize(stdout, 64<<10)
	if t := bytes.TrimSpace(data); len(t) > 0 && (t[0] == '{' || t[0] == '[') && json.Valid(data) {
		if _, err := w.Write(redact.JSON(data)); err != nil {
			return fmt.Errorf("write stdout: %w", err)
		}
		return w.Flush()
	}
	for len(data) > 0 {
		line, rest, found := bytes.Cut(data, []byte("\n"))
		data = rest
		eol := ""
		if found {
			eol = "\n"
		}
		if n := len(line); n > 0 && line[n-1] == '\r' {
			line, eol = line[:n-1], "\r"+eol
		}
		var out []byte
		if t := bytes.TrimSpace(line); len(t) > 0 && (t[0] == '{' || t[0] == '[') && json.Valid(line) {
			out = redact.JSON(line)
		} else {
			out = []byte(redact.String(string(line)))
		}
		if _, err := w.Write(out); err != nil {
			return fmt.Errorf("write stdout: %w", err)
		}
		if _, err := w.WriteString(eol); err != nil {
			return fmt.Errorf("write stdout: %w", err)
		}
	}
	return w.Flush()
}
