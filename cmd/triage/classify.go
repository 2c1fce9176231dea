package main

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"net/http"
	"os"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/aws/smithy-go"

	"github.com/triagehq/triage/shared/failure"
	"github.com/triagehq/triage/shared/pipeline"
	"github.com/triagehq/triage/shared/retry"
)

// classifyInput is one failure to classify. Every field is optional.
type classifyInput struct {
	Name     string            `json:"name,omitempty"`
	Status   int               `json:"status,omitempty"`
	Headers  map[string]string `json:"headers,omitempty"`
	Body     string            `json:"body,omitempty"`
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
	Response string `json:"response,omitempty"`
	Dialect  string `json:"dialect,omitempty"`
	Kind     string `json:"kind,omitempty"`
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
	Error            string `json:"error,omitempty"`
}

// MarshalJSON writes a line that could not be classified as its name and
// error only: zero-valued decision fields next to an error read like an
// answer ("retryable": false).
func (o classifyOutput) MarshalJSON() ([]byte, error) {
	type plain classifyOutput
	if o.Error != "" {
		return json.Marshal(struct {
			Name  string `json:"name,omitempty"`
			Error string `json:"error"`
		}{o.Name, o.Error})
	}
	return json.Marshal(plain(o))
}

// maxClassifyLine bounds one input line; provider bodies are small.
const maxClassifyLine = 1 << 20

func runClassify(stdin io.Reader, stdout io.Writer, args []string) error {
	fs := newFlagSet("classify", "classify [--table] [FILE...]\n\n"+
		"Reads one JSON object per line on stdin (or one JSON document per FILE) and\n"+
		"writes one JSON line per input with the class and the decision of the retry\n"+
		"profile. Input fields (all optional): status, headers, body, error, code,\n"+
		"provider (openai|azure|anthropic|bedrock|webhook|aws|http), stage\n"+
		"(fetch|llm|notify), attempt, profile, now (RFC 3339), where\n"+
		"(upstream|input|internal), output (an action task's model answer, judged\n"+
		"by its ACTION_OUTCOME marker), response (a model's HTTP response body,\n"+
		"judged as the llm stage judges it, with dialect openai|azure|anthropic|\n"+
		"bedrock, kind story|document|action, and status and headers).")
	table := fs.Bool("table", false, "print an aligned table instead of JSON lines")
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	c := classifier{now: time.Now, rand: rand.Float64}
	var outs []classifyOutput
	emit := func(o classifyOutput) error {
		if *table {
			outs = append(outs, o)
			return nil
		}
		b, _ := json.Marshal(o)
		_, err := fmt.Fprintf(stdout, "%s\n", b)
		return err
	}
	if fs.NArg() > 0 {
		for _, path := range fs.Args() {
			b, err := os.ReadFile(path)
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
		sc := bufio.NewScanner(stdin)
		sc.Buffer(make([]byte, 64<<10), maxClassifyLine)
		for sc.Scan() {
			line := bytes.TrimSpace(sc.Bytes())
			if len(line) == 0 {
				continue
			}
			if err := emit(c.line(line)); err != nil {
				return err
			}
		}
		if err := sc.Err(); err != nil {
			return fmt.Errorf("read stdin: %w", err)
		}
	}
	if *table {
		return printDecisionTable(stdout, outs)
	}
	return nil
}

// classifier holds the clock and random source of the command, injected so
// tests are deterministic.
type classifier struct {
	now  func() time.Time
	rand func() float64
}

// line classifies one JSON input. Errors become an output with Error set, so
// one bad line never stops the stream.
func (c classifier) line(b []byte) classifyOutput {
	var in classifyInput
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&in); err != nil {
		return classifyOutput{Error: "invalid input: " + err.Error()}
	}
	out, err := c.classify(in)
	if err != nil {
		return classifyOutput{Name: in.Name, Error: err.Error()}
	}
	return out
}

func (c classifier) classify(in classifyInput) (classifyOutput, error) {
	provider, err := failure.ParseProvider(in.Provider)
	if err != nil {
		return classifyOutput{}, err
	}
	stage := pipeline.LLM
	if in.Stage != "" {
		if stage, err = pipeline.ParseStage(in.Stage); err != nil {
			return classifyOutput{}, err
		}
	}
	profile, err := retry.Lookup(in.Profile)
	if err != nil {
		return classifyOutput{}, err
	}
	now := c.now()
	if in.Now != "" {
		if now, err = time.Parse(time.RFC3339, in.Now); err != nil {
			return classifyOutput{}, fmt.Errorf("now: %w", err)
		}
	}
	if in.Attempt < 0 {
		return classifyOutput{}, errors.New("attempt must be 1 or more")
	}
	failErr, err := buildError(in, provider)
	if err != nil {
		return classifyOutput{}, err
	}
	cl := failure.Classify(failErr)
	d := profile.Decide(retry.Input{Stage: stage, Failure: cl, Attempt: max(in.Attempt, 1), Now: now, Rand: c.rand})
	out := classifyOutput{
		Name:             in.Name,
		Class:            string(cl.Class),
		Retryable:        cl.Retryable,
		Counts:           cl.Counts,
		ModelSpecific:    cl.ModelSpecific,
		RequestedDelayMS: cl.Requested.Resolve(now).Milliseconds(),
		MaxAttempts:      profile.Policy(stage, cl.Class).MaxAttempts,
		Reason:           cl.Reason + "; " + d.Reason(),
	}
	switch d := d.(type) {
	case retry.Retry:
		out.Decision, out.DelayMinMS, out.DelayMaxMS = "retry", d.Min.Milliseconds(), d.Max.Milliseconds()
	case retry.DeadLetter:
		out.Decision = "dead_letter"
	case retry.Wait:
		w := d.Until.Sub(now).Milliseconds()
		out.Decision, out.DelayMinMS, out.DelayMaxMS = "wait", w, w
	}
	return out, nil
}

// buildError turns an input line into the error a triage client would have
// returned: an HTTP response, an AWS or provider code, or plain error text.
func buildError(in classifyInput, provider failure.Provider) (error, error) {
	var err error
	switch {
	case in.Response != "":
		var bad error
		if err, bad = responseError(in); bad != nil {
			return nil, bad
		}
	case in.Output != "":
		if err = failure.ActionError(in.Output); err == nil {
			return nil, errors.New("output reports ACTION_OUTCOME: success: nothing to classify")
		}
	case in.Status != 0:
		if in.Status < 100 || in.Status > 599 {
			return nil, fmt.Errorf("status %d is not an HTTP status", in.Status)
		}
		h := http.Header{}
		for k, v := range in.Headers {
			h.Set(k, v)
		}
		body := []byte(in.Body)
		if len(body) > failure.MaxBodyBytes {
			body = body[:failure.MaxBodyBytes]
		}
		err = &failure.HTTPError{Provider: provider, Op: "request", Status: in.Status, Header: h, Body: body}
		if in.Error != "" {
			err = fmt.Errorf("%s: %w", in.Error, err)
		}
	case in.Code != "" && (provider == failure.AWS || provider == failure.Bedrock):
		service := "DynamoDB"
		if provider == failure.Bedrock {
			service = "Bedrock Runtime"
		}
		err = &smithy.OperationError{ServiceID: service, OperationName: "Call",
			Err: &smithy.GenericAPIError{Code: in.Code, Message: in.Error}}
	case in.Code != "":
		err = &failure.CodeError{Provider: provider, Code: in.Code, Message: in.Error}
	case in.Error != "":
		err = errors.New(in.Error)
	case in.Where == "input" || in.Where == "internal":
		err = errors.New(in.Where + " failure")
	default:
		return nil, errors.New("nothing to classify: give status, code or error")
	}
	switch in.Where {
	case "", "upstream":
	case "input":
		err = failure.Wrap(failure.SchemaInvalid, err, "malformed input message")
	case "internal":
		err = failure.Wrap(failure.InternalBug, err, "triage's own defect")
	default:
		return nil, fmt.Errorf("where %q is not upstream, input or internal", in.Where)
	}
	return err, nil
}

func printDecisionTable(w io.Writer, outs []classifyOutput) error {
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "FAILURE\tCLASS\tRETRYABLE\tCOUNTS\tMODEL\tDECISION\tDELAY\tMAX\tREASON")
	for _, o := range outs {
		if o.Error != "" {
			fmt.Fprintf(tw, "%s\t-\t\t\t\terror\t\t\t%s\n", o.Name, o.Error)
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
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\n", o.Name, o.Class, yes(o.Retryable), yes(o.Counts),
			yes(o.ModelSpecific), o.Decision, delay, maxAttempts, reason)
	}
	return tw.Flush()
}

func yes(b bool) string {
	if b {
		return "yes"
	}
	return "no"
}

func fmtMS(ms int64) string {
	return (time.Duration(ms) * time.Millisecond).Round(time.Millisecond).String()
}
