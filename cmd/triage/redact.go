package main

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"

	"github.com/triagehq/triage/internal/redact"
)

// maxRedactInput bounds what "triage redact" reads.
const maxRedactInput = 16 << 20

// runRedact implements "triage redact": it reads all of stdin (at most 16
// MiB) and writes it to stdout with secrets and PII redacted, as one whole
// (see redactAll). With --json the input must be JSON values only. It takes
// no arguments; -h prints its usage.
func runRedact(stdin io.Reader, stdout io.Writer, args []string) error {
	fs := newFlagSet("redact", `redact [--json] < INPUT > OUTPUT

Copies stdin to stdout with secrets, prompts and personal data replaced,
denying by default (docs/design.md "Redaction"): markers such as
[REDACTED:openai-key] replace API keys and tokens (every rule of gitleaks'
default configuration, and any random-looking token no rule names),
Authorization and Cookie values, JWTs, private keys, URL passwords, secret
query parameters, webhook URL secrets, emails, phone numbers, IBANs, card
numbers, SSNs. What is encoded (percent, base64, \u escapes) is decoded and
looked at; structure is parsed wherever it stands — JSON and Python dicts in
log lines, YAML, logfmt, XML/SOAP, query strings and form bodies — so values
under credential keys go whole and prompts become [text N bytes sha256:…].
The input is read whole, never line by line: every JSON value in it — one
document, JSON Lines, several pretty-printed documents — is redacted by
structure, and the text between them in pieces of about 32 KiB cut at a line
that starts a new block, so that a PEM key or a secret on the line after its
label goes too. Layout is kept byte for byte. Input is limited to 16 MiB.`)
	jsonOnly := fs.Bool("json", false, "the input is JSON values only (a document, JSON Lines, a stream); anything else is an error")
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	if fs.NArg() > 0 {
		return usageError{fmt.Sprintf("unexpected argument %q: redact reads stdin", fs.Arg(0))}
	}
	data, err := io.ReadAll(io.LimitReader(stdin, maxRedactInput+1))
	if err != nil {
		return fmt.Errorf("read stdin: %w", err)
	}
	if len(data) > maxRedactInput {
		return errors.New("input larger than 16 MiB: split it, or redact JSON Lines in parts")
	}
	out, err := redactAll(data, *jsonOnly)
	if err != nil {
		return err
	}
	w := bufio.NewWriterSize(stdout, 64<<10)
	if _, err := w.Write(out); err != nil {
		return fmt.Errorf("write stdout: %w", err)
	}
	return w.Flush()
}

// redactAll redacts data as a whole. It splits data into JSON values and
// the text around them: a value is an object or array that starts a line
// (after blanks) or follows another value, decodes completely, and is no
// dump's key (keyOfDump). Values
// go through redact.JSON; each stretch of text between them goes through
// redact.String in one piece, so what spans lines is seen whole. With
// jsonOnly, text other than whitespace is an error naming its offset.
func redactAll(data []byte, jsonOnly bool) ([]byte, error) {
	out := make([]byte, 0, len(data)+len(data)/8)
	text := 0    // start of the pending text
	scanned := 0 // a failed value read this far: no value starts before it
	lineStart := true
	for i := 0; i < len(data); {
		c := data[i]
		if c == '\n' {
			lineStart = true
			i++
			continue
		}
		if c == ' ' || c == '\t' || c == '\r' || c == '\f' || c == '\v' {
			i++
			continue
		}
		if lineStart && (c == '{' || c == '[') && i >= scanned {
			if n, failedAt := jsonValueAt(data[i:]); n > 0 && !keyOfDump(data[i+n:]) {
				if jsonOnly && !blank(data[text:i]) {
					return nil, notJSONError(data, text)
				}
				out = appendText(out, data[text:i])
				out = append(out, redact.JSON(data[i:i+n])...)
				i += n
				text = i
				continue // a value may follow on the same line
			} else if n > 0 {
				scanned = i + n
			} else {
				scanned = i + failedAt
			}
		}
		lineStart = false
		i++
	}
	if jsonOnly && !blank(data[text:]) {
		return nil, notJSONError(data, text)
	}
	return appendText(out, data[text:]), nil
}

// keyOfDump reports whether what follows a JSON value on its line makes
// the value a key of a dump rather than a document: PHP's var_dump prints
// a member as ["name"]=> and its value on the next line, which only the
// text redactor reads as one.
func keyOfDump(rest []byte) bool {
	rest = bytes.TrimLeft(rest, " \t")
	return bytes.HasPrefix(rest, []byte("=>"))
}

// textChunk is the size around which appendText cuts text: redaction
// decodes at most 64 KiB of encoded text per call (docs/design.md
// "Redaction"), so a large log is redacted in pieces.
const textChunk = 32 << 10

// appendText appends text redacted, in pieces of about textChunk bytes cut
// before a line that starts at its first column and outside a PEM block,
// so that what spans lines (a key's label and its value, a private key)
// stays in one piece.
func appendText(out, text []byte) []byte {
	for len(text) > 2*textChunk {
		cut := chunkEnd(text)
		if cut <= 0 || cut >= len(text) {
			break
		}
		out = append(out, redact.String(string(text[:cut]))...)
		text = text[cut:]
	}
	return append(out, redact.String(string(text))...)
}

// chunkEnd returns where to cut text after about textChunk bytes: the
// start of the first line after that which begins with neither a blank
// nor a continuation of a block, with no PEM block open before it; 0 when
// there is none within 4 × textChunk.
func chunkEnd(text []byte) int {
	for i := textChunk; i < len(text) && i < 4*textChunk; {
		nl := bytes.IndexByte(text[i:], '\n')
		if nl < 0 {
			return 0
		}
		i += nl + 1
		if i >= len(text) {
			return 0
		}
		if c := text[i]; c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '-' && bytes.HasPrefix(text[i:], []byte("-----END")) {
			continue
		}
		head := text[:i]
		if bytes.LastIndex(head, []byte("-----BEGIN")) > bytes.LastIndex(head, []byte("-----END")) {
			continue
		}
		return i
	}
	return 0
}

// jsonValueAt returns the length of the JSON object or array b starts
// with, or 0 and how far into b reading it failed.
func jsonValueAt(b []byte) (n int, failedAt int) {
	dec := json.NewDecoder(bytes.NewReader(b))
	var raw json.RawMessage
	if err := dec.Decode(&raw); err != nil {
		var syn *json.SyntaxError
		if errors.As(err, &syn) && syn.Offset > 0 {
			return 0, int(syn.Offset)
		}
		return 0, len(b) // cut short: it ran to the end
	}
	return int(dec.InputOffset()), 0
}

func blank(b []byte) bool { return len(bytes.TrimSpace(b)) == 0 }

func notJSONError(data []byte, from int) error {
	at := from + len(data[from:]) - len(bytes.TrimLeft(data[from:], " \t\r\n\f\v"))
	return fmt.Errorf("--json: input is not JSON at byte %d", at)
}
