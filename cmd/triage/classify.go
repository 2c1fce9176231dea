package main

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"net/http"
	"os"
	"strings"
	"time"

	"github.com/triagehq/triage/cmd/triage/console"
	"github.com/triagehq/triage/internal/clock"
	"github.com/triagehq/triage/internal/failure"
	"github.com/triagehq/triage/internal/policy"
	"github.com/triagehq/triage/internal/rules"
	"github.com/triagehq/triage/internal/work"
)

// classifyInput is one failure to classify. Every field is optional, and
// the forms combine: an HTTP answer (status, headers, body), an error code,
// the error's text — weighed together, the most specific evidence first —
// or an action task's output. A new form is a new field and a case of
// buildError; classification itself is failure.Classify on the error it
// builds.
type classifyInput struct {
	Name     string            `json:"name,omitempty"`
	Status   int               `json:"status,omitempty"`
	Headers  map[string]string `json:"headers,omitempty"`
	Body     jsonText          `json:"body,omitempty"`
	Error    string            `json:"error,omitempty"`
	Code     string            `json:"code,omitempty"`
	Provider string            `json:"provider,omitempty"`
	Stage    string            `json:"stage,omitempty"`
	Attempt  int               `json:"attempt,omitempty"`
	Profile  string            `json:"profile,omitempty"`
	Now      string            `json:"now,omitempty"`
	Where    string            `json:"where,omitempty"`
	Output   string            `json:"output,omitempty"`
	// Response, with Dialect and Kind, is a model's HTTP response judged as
	// the llm stage judges it (classify_response.go).
	Response jsonText `json:"response,omitempty"`
	Dialect  string   `json:"dialect,omitempty"`
	Kind     string   `json:"kind,omitempty"`
}

// jsonText is an input field that takes any JSON value, so that no form
// of the same evidence is refused: a string is its text, any other value
// (an object, an array, a number) is that value's JSON — a model's answer
// or an error body given as an object is the same answer as its JSON
// written in a string.
type jsonText string

// UnmarshalJSON keeps a string's text and any other value's JSON; null is
// empty.
func (t *jsonText) UnmarshalJSON(b []byte) error {
	b = bytes.TrimSpace(b)
	switch {
	case len(b) > 0 && b[0] == '"':
		var s string
		if err := json.Unmarshal(b, &s); err != nil {
			return err
		}
		*t = jsonText(s)
	case string(b) == "null":
		*t = ""
	default:
		*t = jsonText(b)
	}
	return nil
}

// classifyOutput is the answer for one input line.
type classifyOutput struct {
	Name             string `json:"name,omitempty"`
	Class            string `json:"class,omitempty"`
	Retryable        bool   `json:"retryable"`
	Counts           bool   `json:"counts"`
	ModelSpecific    bool   `json:"model_specific"`
	RequestedDelayMS int64  `json:"requested_delay_ms"`
	Decision         string `json:"decision,omitempty"`
	DelayMinMS       int64  `json:"delay_min_ms"`
	DelayMaxMS       int64  `json:"delay_max_ms"`
	MaxAttempts      int    `json:"max_attempts"`
	Reason           string `json:"reason,omitempty"`
	// Role is the upstream's role the classification read the evidence
	// by (docs/design.md "The role of the upstream").
	Role string `json:"role,omitempty"`
	// Default marks a class only a status default or nothing decided.
	Default bool `json:"default,omitempty"`
	// Rule names the operator's rule that decided (--rules), "" when none
	// did.
	Rule string `json:"rule,omitempty"`
	// Line is the input line (or file) an error is about.
	Line  int    `json:"-"`
	Error string `json:"error,omitempty"`
}

// MarshalJSON writes a line that could not be classified as its name, its
// input line and the error only: zero-valued decision fields next to an
// error read like an answer ("retryable": false).
func (o classifyOutput) MarshalJSON() ([]byte, error) {
	type plain classifyOutput
	if o.Error != "" {
		return json.Marshal(struct {
			Name  string `json:"name,omitempty"`
			Line  int    `json:"line,omitempty"`
			Error string `json:"error"`
		}{o.Name, o.Line, o.Error})
	}
	return json.Marshal(plain(o))
}

// maxClassifyLine bounds one input line (or file); provider answers are
// small. A longer line is one error line; the stream goes on.
const maxClassifyLine = 1 << 20

func runClassify(stdin io.Reader, stdout io.Writer, args []string) error {
	fs := newFlagSet("classify", "classify [--json | --table] [--rules FILE] [FILE...]\n\n"+
		"Reads one JSON object per line on stdin (or one JSON document per FILE) and\n"+
		"writes one JSON line per input with the class and the decision of the retry\n"+
		"profile (--json, the default), or an aligned table (--table). Input fields\n"+
		"(all optional, weighed together): status, headers, body, code, error (the\n"+
		"error's text as a client, an SDK or a log printed it), provider (any\n"+
		"name: openai, azure, anthropic, bedrock, gemini, vertex, groq, mistral,\n"+
		"webhook, aws, http, …; a name triage does not know is judged by the rest\n"+
		"and by the stage; omitted: the text may tell), stage (fetch|llm|notify:\n"+
		"the upstream's role, and the stage whose policy decides, llm when\n"+
		"omitted), attempt, profile, now (RFC 3339), where (upstream|input|\n"+
		"internal), output (an action task's model answer, judged by its\n"+
		"ACTION_OUTCOME marker), response (a model's HTTP response body — a\n"+
		"JSON string is its text, any other JSON value the answer's JSON itself —\n"+
		"judged as the llm stage judges it, with dialect — any model API's name —, kind\n"+
		"story|document|action, and status and headers; a 2xx status with a body\n"+
		"from a model endpoint is judged the same way). A line that is not one\n"+
		"JSON object (or longer than 1 MiB) gets an error line, and the stream\n"+
		"goes on.")
	table := fs.Bool("table", false, "print an aligned table instead of JSON lines")
	asJSON := fs.Bool("json", false, "print JSON lines (the default)")
	rulesFile := fs.String("rules", "", "classify with the operator's rules FILE first, as a function that loaded it would\n"+
		"(docs/design.md \"Operator rules\"): the reason names the rule that decided (\"rule NAME\"),\n"+
		"or says that no rule matched; a bad rule is refused with its line and reason")
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	if *table && *asJSON {
		return usageError{"--json and --table exclude each other"}
	}
	c := classifier{clock: clock.System{}, rand: rand.Float64}
	if *rulesFile != "" {
		set, err := loadRulesFile(*rulesFile)
		if err != nil {
			return err
		}
		c.rules = set
	}
	var outs []classifyOutput
	emit := func(o classifyOutput) error {
		if *table {
			outs = append(outs, o)
			return nil
		}
		b, _ := json.Marshal(o)
		_, err := fmt.Fprintf(stdout, "%s\n", jsonCell(b))
		return err
	}
	if fs.NArg() > 0 {
		for _, path := range fs.Args() {
			b, err := readBounded(path, maxClassifyLine)
			if err != nil {
				return err
			}
			o := c.line(b)
			if o.Name == "" {
				o.Name = strings.TrimSuffix(path[strings.LastIndexByte(path, '/')+1:], ".json")
			}
			if err := emit(o); err != nil {
				return err
			}
		}
	} else {
		err := readLines(stdin, maxClassifyLine, func(n int, line []byte, tooLong bool) error {
			if tooLong {
				return emit(classifyOutput{Line: n, Error: fmt.Sprintf("invalid input: line longer than %d bytes", maxClassifyLine)})
			}
			if len(bytes.TrimSpace(line)) == 0 {
				return nil
			}
			o := c.line(line)
			if o.Error != "" {
				o.Line = n
			}
			return emit(o)
		})
		if err != nil {
			return err
		}
	}
	if *table {
		return printDecisionTable(stdout, outs)
	}
	return nil
}

// readLines calls f with every line of r (without its end of line) and its
// number, holding at most max bytes of a line: a longer line is passed as
// tooLong, without its bytes, and reading goes on after it.
func readLines(r io.Reader, max int, f func(n int, line []byte, tooLong bool) error) error {
	br := bufio.NewReaderSize(r, 64<<10)
	var buf []byte
	for n := 1; ; n++ {
		buf = buf[:0]
		tooLong, read := false, false
		var err error
		for {
			var chunk []byte
			chunk, err = br.ReadSlice('\n')
			read = read || len(chunk) > 0
			if !tooLong {
				if len(buf)+len(bytes.TrimRight(chunk, "\r\n")) > max {
					tooLong, buf = true, buf[:0]
				} else {
					buf = append(buf, chunk...)
				}
			}
			if err != bufio.ErrBufferFull {
				break
			}
		}
		if err != nil && err != io.EOF {
			return fmt.Errorf("read stdin: %w", err)
		}
		if read {
			if ferr := f(n, bytes.TrimRight(buf, "\r\n"), tooLong); ferr != nil {
				return ferr
			}
		}
		if err == io.EOF {
			return nil
		}
	}
}

// readBounded reads a file of at most max bytes.
func readBounded(path string, max int64) ([]byte, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	b, err := io.ReadAll(io.LimitReader(f, max+1))
	if err != nil {
		return nil, err
	}
	if int64(len(b)) > max {
		return nil, fmt.Errorf("%s: larger than %d bytes", path, max)
	}
	return b, nil
}

// classifier holds the clock and random source of the command, injected so
// tests are deterministic.
type classifier struct {
	clock clock.Clock
	rand  func() float64
	// rules, when set, are the operator's rules (--rules), tried first.
	rules *rules.Set
}

// loadRulesFile reads an operator's rules file through the loader every
// function uses at its start (rules.Load): a bad rule is an error naming
// the file, the line and the reason. A file that does not exist is an
// error too — the functions take it as "no rules", an operator who names
// it means one.
func loadRulesFile(path string) (*rules.Set, error) {
	if _, err := os.Stat(path); err != nil {
		return nil, fmt.Errorf("rules: %w", err)
	}
	return rules.Load(context.Background(), rules.Source{File: path}, nil)
}

// line classifies one JSON input. Errors become an output with Error set, so
// one bad line never stops the stream.
func (c classifier) line(b []byte) classifyOutput {
	in, err := decodeClassifyInput(b)
	if err != nil {
		return classifyOutput{Error: "invalid input: " + err.Error()}
	}
	out, err := c.classify(in)
	if err != nil {
		return classifyOutput{Name: in.Name, Error: err.Error()}
	}
	return out
}

// decodeClassifyInput decodes exactly one JSON object: unknown fields and
// anything after the object are errors, not silently dropped.
func decodeClassifyInput(b []byte) (classifyInput, error) {
	var in classifyInput
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&in); err != nil {
		return in, err
	}
	if _, err := dec.Token(); err != io.EOF {
		return in, errors.New("trailing data after the JSON object")
	}
	return in, nil
}

func (c classifier) classify(in classifyInput) (classifyOutput, error) {
	stage := work.LLM
	var err error
	if in.Stage != "" {
		if stage, err = work.ParseStage(in.Stage); err != nil {
			return classifyOutput{}, err
		}
	}
	profile, err := policy.Lookup(in.Profile)
	if err != nil {
		return classifyOutput{}, err
	}
	now := c.clock.Now()
	if in.Now != "" {
		if now, err = time.Parse(time.RFC3339, in.Now); err != nil {
			return classifyOutput{}, fmt.Errorf("now: %w", err)
		}
	}
	if in.Attempt < 0 {
		return classifyOutput{}, errors.New("attempt must be 1 or more")
	}
	failErr, role, err := buildError(in)
	if err != nil {
		return classifyOutput{}, err
	}
	cl, rule := c.classifyErr(failErr, stage)
	if role == "" {
		role = failure.FactsOf(failErr).Role
	}
	d := profile.Decide(policy.Input{Stage: stage, Failure: cl, Attempt: max(in.Attempt, 1), Now: now, Rand: c.rand})
	out := classifyOutput{
		Name:             in.Name,
		Class:            string(cl.Class),
		Retryable:        cl.Retryable,
		Counts:           cl.Counts,
		ModelSpecific:    cl.ModelSpecific,
		RequestedDelayMS: cl.Requested.Resolve(now).Milliseconds(),
		MaxAttempts:      profile.Policy(stage, cl.Class).MaxAttempts,
		Reason:           cl.Reason + "; " + d.Reason(),
		Role:             string(role),
		Default:          cl.Default,
		Rule:             rule,
	}
	if c.rules != nil && rule == "" {
		out.Reason = cl.Reason + " (no operator rule matched); " + d.Reason()
	}
	switch d := d.(type) {
	case policy.Retry:
		out.Decision, out.DelayMinMS, out.DelayMaxMS = "retry", d.Min.Milliseconds(), d.Max.Milliseconds()
	case policy.DeadLetter:
		out.Decision = "dead_letter"
	case policy.Wait:
		w := d.Until.Sub(now).Milliseconds()
		out.Decision, out.DelayMinMS, out.DelayMaxMS = "wait", w, w
	}
	return out, nil
}

// classifyErr classifies err as a function of stage would: with the
// operator's rules first when --rules gave them (failure.ClassifyWith,
// without installing them), else as failure.Classify does. rule names the
// operator's rule that decided, "" when none did.
func (c classifier) classifyErr(err error, stage work.Stage) (cl failure.Classification, rule string) {
	if c.rules == nil {
		return failure.Classify(err), ""
	}
	set := *c.rules
	set.Stage = stage // a failure that names no stage was met at the input's
	cl = failure.ClassifyWith(&set, err)
	if r := set.Match(failure.FactsOf(err)); r != nil && cl.Reason == "rule "+r.Name {
		rule = r.Name
	}
	return cl, rule
}

// buildError turns an input line into the error the stage would hold: a
// model's answer judged as the llm stage judges it, an action task's judged
// output, or the upstream's failure as evidence (its HTTP answer, code and
// text together), wrapped as triage's own input or internal failure when
// where says so. role is the upstream's role when the input form fixes it
// (a model's answer), "" when the classification's evidence says it.
func buildError(in classifyInput) (err error, role failure.Role, bad error) {
	switch {
	case in.Response != "":
		if err, bad = responseError(in); bad != nil {
			return nil, "", bad
		}
		role = failure.RoleModel
	case in.Output != "":
		if err = failure.ActionError(in.Output); err == nil {
			return nil, "", errors.New("output reports ACTION_OUTCOME: success: nothing to classify")
		}
	case answerInput(in):
		answer := in
		answer.Response, answer.Body = in.Body, ""
		if err, bad = responseError(answer); bad != nil {
			return nil, "", bad
		}
		role = failure.RoleModel
	case in.Status != 0 || in.Code != "" || in.Error != "" || in.Body != "" || len(in.Headers) > 0:
		ev, everr := upstreamEvidence(in)
		if everr != nil {
			return nil, "", everr
		}
		err = ev
	case in.Where == "input" || in.Where == "internal":
		err = errors.New(in.Where + " failure")
	default:
		return nil, "", errors.New("nothing to classify: give status, code, body, error or output")
	}
	switch in.Where {
	case "", "upstream":
	case "input":
		err = failure.Wrap(work.SchemaInvalid, err, "malformed input message")
	case "internal":
		err = failure.Wrap(work.InternalBug, err, "triage's own defect")
	default:
		return nil, "", fmt.Errorf("where %q is not upstream, input or internal", in.Where)
	}
	return err, role, nil
}

// answerInput reports whether status + body is a model's answer, to be
// judged as the llm stage judges it (docs/design.md "What `triage
// classify` reads"): a body from a model endpoint — the llm stage, a model
// provider's name, or a body shaped like a model's answer — with a 2xx
// status (or none, when the body is an answer's shape), and no error text
// or code beside it (a transport error after a 200 is the error's to tell).
func answerInput(in classifyInput) bool {
	if in.Body == "" || in.Error != "" || in.Code != "" || in.Status != 0 && (in.Status < 200 || in.Status > 299) {
		return false
	}
	p, err := failure.ParseProvider(in.Provider)
	if err != nil {
		return false
	}
	var stage work.Stage
	if in.Stage != "" {
		stage = work.Stage(in.Stage)
	}
	_, shaped := answerShape(string(in.Body))
	if failure.RoleOf(p, stage, shaped) != failure.RoleModel {
		return false
	}
	return in.Status != 0 || shaped
}

// upstreamEvidence is the upstream's failure as the input describes it.
// Any provider name is accepted; the stage, when given, is the role of the
// upstream its name does not say.
func upstreamEvidence(in classifyInput) (*failure.Evidence, error) {
	var provider failure.Provider
	if in.Provider != "" {
		p, err := failure.ParseProvider(in.Provider)
		if err != nil {
			return nil, err
		}
		provider = p
	}
	if in.Status != 0 && (in.Status < 100 || in.Status > 599) {
		return nil, fmt.Errorf("status %d is not an HTTP status", in.Status)
	}
	ev := &failure.Evidence{Provider: provider, Stage: work.Stage(in.Stage), Status: in.Status, Code: in.Code, Text: in.Error}
	if len(in.Headers) > 0 {
		ev.Header = http.Header{}
		for k, v := range in.Headers {
			ev.Header.Set(k, v)
		}
	}
	if in.Body != "" {
		body := []byte(in.Body)
		if len(body) > failure.MaxBodyBytes {
			body = body[:failure.MaxBodyBytes]
		}
		ev.Body = body
	}
	return ev, nil
}

func printDecisionTable(w io.Writer, outs []classifyOutput) error {
	tw := newTable(w, "FAILURE", "CLASS", "RETRYABLE", "COUNTS", "MODEL", "DECISION", "DELAY", "MAX", "REASON")
	for _, o := range outs {
		if o.Error != "" {
			name := o.Name
			if name == "" && o.Line > 0 {
				name = fmt.Sprintf("line %d", o.Line)
			}
			fmt.Fprintf(tw, "%s\t-\t\t\t\terror\t\t\t%s\n", cell(name), cell(o.Error))
			continue
		}
		delay := "-"
		switch o.Decision {
		case "retry":
			delay = fmtMS(o.DelayMinMS) + ".." + fmtMS(o.DelayMaxMS)
		case "wait":
			delay = fmtMS(o.DelayMaxMS)
		}
		maxAttempts := "∞"
		if o.MaxAttempts > 0 {
			maxAttempts = fmt.Sprint(o.MaxAttempts)
		}
		reason, _, _ := strings.Cut(o.Reason, ";")
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\n", cell(o.Name), o.Class, console.YesNo(o.Retryable), console.YesNo(o.Counts),
			console.YesNo(o.ModelSpecific), o.Decision, delay, maxAttempts, cell(reason))
	}
	return tw.Flush()
}

func fmtMS(ms int64) string {
	return (time.Duration(ms) * time.Millisecond).Round(time.Millisecond).String()
}
