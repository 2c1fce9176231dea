package main

import (
	"bufio"
	"bytes"
	"encoding/csv"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	"github.com/triagehq/triage/cmd/triage/ops"
	"github.com/triagehq/triage/internal/intake"
	"github.com/triagehq/triage/internal/work"

	"github.com/triagehq/triage/internal/store"
)

func init() {
	commands["submit"] = command{"put items into the pipeline: one from flags, or many from NDJSON or CSV", runSubmit}
}

// Exit status of a submit that sent some items and not others.
const exitPartial = 3

// submitChunk is how many lines are read before they are sent: the input
// streams, so a file of any length uses bounded memory.
const submitChunk = 500

// maxLineBytes bounds one NDJSON line: SQS's message limit (256 KiB). A
// longer line cannot be one message; it is one rejected line, and the lines
// after it are read as usual.
const maxLineBytes = 256 << 10

// submitLine is one input item: its line (1-based; 0 for flags) and spec,
// or why it could not be read.
type submitLine struct {
	line int
	spec intake.Spec
	err  error
}

// The statuses of a line: sent, rejected (invalid, or refused by SQS) or
// failed (not sent, SQS or the input failed); in a dry run valid or
// invalid.
const (
	statusSent     = "sent"
	statusRejected = "rejected"
	statusFailed   = "failed"
	statusValid    = "valid"
	statusInvalid  = "invalid"
)

// submitResult is one line of the summary.
type submitResult struct {
	Line      int    `json:"line,omitempty"`
	ItemID    string `json:"item_id,omitempty"`
	Status    string `json:"status"`
	MessageID string `json:"message_id,omitempty"`
	Attempts  int    `json:"attempts,omitempty"`
	Reason    string `json:"reason,omitempty"`
}

// submitSummary is `submit --json`: what was sent, and every line that was
// not (with --all every line). A dry run sends nothing: it counts valid and
// invalid lines.
type submitSummary struct {
	Sent     int  `json:"sent"`
	Rejected int  `json:"rejected"`
	Failed   int  `json:"failed"`
	Valid    int  `json:"valid,omitempty"`
	Invalid  int  `json:"invalid,omitempty"`
	DryRun   bool `json:"dry_run"`
	// Items lists every item that was not sent, and with --all every item.
	Items []submitResult `json:"items"`
}

func runSubmit(stdin io.Reader, stdout io.Writer, args []string) error {
	fs := newFlagSet("submit", "submit --id ID --source-url URL --webhook-url URL [--kind K] [--metadata k=v]... [--correlation-id C]\n"+
		"              [--notify-failed[=false]] [--notify-retry-scheduled[=false]]\n"+
		"       triage submit [--format ndjson|csv] [FILE | -]\n\n"+
		"Puts items into the pipeline: each is one message on the fetch queue holding the\n"+
		"item's spec (docs/item-message.schema.json); the fetch stage creates the item.\n"+
		"Resubmitting the same id and spec is harmless (a duplicate); the same id with\n"+
		"another spec is dead-lettered SCHEMA_INVALID.\n\n"+
		"Many items come from NDJSON (one message per line) or CSV (a header naming the\n"+
		"columns item_id, kind, source_url, webhook_url, correlation_id, metadata.KEY,\n"+
		"notices.failed and notices.retry_scheduled), from FILE or stdin, sent ten to a\n"+
		"SendMessageBatch. Notices are the owner's failure notices to the webhook:\n"+
		"item.failed is on by default for action tasks only, item.retry_scheduled off.\n"+
		"Invalid lines are reported and skipped; the rest are sent.\n\n"+
		"Exit status: 0 every item sent (--dry-run: valid), 1 none sent, 2 bad flags,\n"+
		"3 some sent and some rejected or failed (listed).")
	aw := addStackFlags(fs, uses{fetchQueue: true})
	var (
		spec     intake.Spec
		kind     string
		metadata multiFlag
		failed   optBool
		retries  optBool
	)
	fs.StringVar(&spec.ItemID, "id", "", "one item: its id")
	fs.StringVar(&kind, "kind", "", "one item: story (default), document or action")
	fs.StringVar(&spec.SourceURL, "source-url", "", "one item: the document (or task) to fetch")
	fs.StringVar(&spec.WebhookURL, "webhook-url", "", "one item: where to deliver the result")
	fs.Var(&metadata, "metadata", "one item: KEY=VALUE metadata (repeatable)")
	fs.StringVar(&spec.CorrelationID, "correlation-id", "", "one item: correlation id (default: the item id)")
	fs.Var(&failed, "notify-failed", "one item: send item.failed to the webhook when dead-lettered (default: on for action tasks only)")
	fs.Var(&retries, "notify-retry-scheduled", "one item: send item.retry_scheduled to the webhook on each retry (default: off)")
	format := fs.String("format", "", "input format: ndjson or csv (default: from the file's extension; stdin is ndjson)")
	dry := fs.Bool("dry-run", false, "validate only: send nothing, need no AWS")
	all := fs.Bool("all", false, "list every item in the summary, not only those not sent")
	pos, err := parseInterspersed(fs, args)
	if err != nil {
		return err
	}
	one := spec.ItemID != "" || spec.SourceURL != "" || spec.WebhookURL != ""
	var src lineSource
	switch {
	case one && len(pos) > 0:
		return usageError{"give one item with --id/--source-url/--webhook-url, or a FILE, not both"}
	case len(pos) > 1:
		return usageError{"submit reads one FILE (or - for stdin)"}
	case one:
		spec.Kind = store.Kind(kind)
		if spec.Metadata, err = parseMetadata(metadata); err != nil {
			return usageError{err.Error()}
		}
		if failed.set || retries.set {
			spec.Notices = &intake.NoticeSpec{Failed: failed.ptr(), RetryScheduled: retries.ptr()}
		}
		src = &sliceSource{lines: []submitLine{{line: 0, spec: spec}}}
	default:
		if kind != "" || len(metadata) > 0 || spec.CorrelationID != "" || failed.set || retries.set {
			return usageError{"--kind, --metadata, --correlation-id and --notify-* describe one item: give --id, --source-url and --webhook-url too"}
		}
		name := "-"
		if len(pos) == 1 {
			name = pos[0]
		}
		in := stdin
		if name != "-" {
			f, err := os.Open(name)
			if err != nil {
				return usageError{err.Error()}
			}
			defer f.Close()
			in = f
		}
		fmtName := *format
		if fmtName == "" {
			fmtName = "ndjson"
			if strings.EqualFold(filepath.Ext(name), ".csv") {
				fmtName = "csv"
			}
		}
		switch fmtName {
		case "ndjson", "jsonl", "json":
			src = newNDJSONSource(in)
		case "csv":
			if src, err = newCSVSource(in); err != nil {
				return usageError{err.Error()}
			}
		default:
			return usageError{fmt.Sprintf("--format %q is not ndjson or csv", fmtName)}
		}
	}

	ctx, cancel := commandContext()
	defer cancel()
	var p *intake.Producer
	if !*dry {
		c, err := aw.connect(ctx, needs{fetchQueue: true})
		if err != nil {
			return err
		}
		p = &intake.Producer{SQS: c.sqs, QueueURL: c.queues[work.Stages()[0]].Queue}
	}
	sum := submitSummary{DryRun: *dry}
	bar := newProgressBar("items")
	done := 0
	for {
		lines, rerr := src.next(submitChunk)
		var valid []submitLine
		for _, l := range lines {
			if l.err == nil {
				l.err = l.spec.Validate()
			}
			if l.err != nil {
				st := statusRejected
				if *dry {
					st = statusInvalid
				}
				sum.record(submitResult{Line: l.line, ItemID: l.spec.ItemID, Status: st, Reason: l.err.Error()}, true)
				continue
			}
			valid = append(valid, l)
		}
		if *dry {
			for _, l := range valid {
				sum.record(submitResult{Line: l.line, ItemID: l.spec.ItemID, Status: statusValid}, *all)
			}
		} else if len(valid) > 0 {
			specs := make([]intake.Spec, len(valid))
			for i, l := range valid {
				specs[i] = l.spec
			}
			base := done + len(lines) - len(valid)
			p.Progress = func(n int) {
				bar.update(base+n, 0, fmt.Sprintf("sent %d rejected %d failed %d", sum.Sent, sum.Rejected, sum.Failed))
			}
			for i, r := range p.SubmitBatch(ctx, specs) {
				res := submitResult{Line: valid[i].line, ItemID: r.ItemID, MessageID: r.MessageID, Attempts: r.Attempts, Status: statusSent}
				if r.Err != nil {
					res.Status, res.Reason = statusFailed, r.Err.Error()
					if intake.Rejected(r.Err) {
						res.Status = statusRejected
					}
				}
				sum.record(res, *all || r.Err != nil)
			}
		}
		done += len(lines)
		bar.update(done, 0, fmt.Sprintf("sent %d rejected %d failed %d", sum.Sent, sum.Rejected, sum.Failed))
		if rerr != nil {
			bar.done()
			if errors.Is(rerr, io.EOF) {
				break
			}
			// The input broke off: what was read is reported, and the rest
			// of the input counts as one failed line.
			sum.record(submitResult{Status: statusFailed, Reason: "the rest of the input was not read: " + rerr.Error()}, true)
			break
		}
		if ctx.Err() != nil {
			bar.done()
			sum.record(submitResult{Status: statusFailed, Reason: fmt.Sprintf("interrupted after %d lines: the rest was not read", done)}, true)
			break
		}
	}
	if aw.jsonOut {
		sum.Items = ops.NonNil(sum.Items)
		if err := printJSON(stdout, sum); err != nil {
			return err
		}
	} else {
		sum.print(stdout)
	}
	return sum.exit()
}

// record counts r and keeps it for the listing when list is set.
func (s *submitSummary) record(r submitResult, list bool) {
	switch r.Status {
	case statusSent:
		s.Sent++
	case statusValid:
		s.Valid++
	case statusInvalid:
		s.Invalid++
	case statusRejected:
		s.Rejected++
	default:
		s.Failed++
	}
	if list {
		s.Items = append(s.Items, r)
	}
}

// counts words the summary: "3 sent, 1 rejected, 0 failed", or in a dry
// run "3 valid, 1 invalid (dry run: nothing sent)".
func (s *submitSummary) counts() string {
	if s.DryRun {
		out := fmt.Sprintf("%d valid, %d invalid", s.Valid, s.Invalid)
		if s.Failed > 0 {
			out += fmt.Sprintf(", %d not read", s.Failed)
		}
		return out + " (dry run: nothing sent)"
	}
	return fmt.Sprintf("%d sent, %d rejected, %d failed", s.Sent, s.Rejected, s.Failed)
}

func (s *submitSummary) print(w io.Writer) {
	if len(s.Items) > 0 {
		tw := newTable(w, "LINE", "ITEM", "STATUS", "ATTEMPTS", "MESSAGE_ID", "REASON")
		for _, r := range s.Items {
			line := "-"
			if r.Line > 0 {
				line = strconv.Itoa(r.Line)
			}
			attempts := "-"
			if r.Attempts > 0 {
				attempts = strconv.Itoa(r.Attempts)
			}
			addRow(tw, line, orDash(r.ItemID), r.Status, attempts, orDash(r.MessageID), orDash(r.Reason))
		}
		_ = tw.Flush()
	}
	fmt.Fprintln(w, s.counts())
}

// exit maps the summary to the exit status: nil (0) when every line was
// sent (a dry run: valid), exit 1 when none was, exitPartial otherwise; the
// message says what was sent.
func (s *submitSummary) exit() error {
	good, bad := s.Sent, s.Rejected+s.Failed
	if s.DryRun {
		good, bad = s.Valid, s.Invalid+s.Failed
	}
	switch {
	case bad == 0 && good > 0:
		return nil
	case bad == 0:
		return errors.New("no items in the input")
	case good == 0 && s.DryRun:
		return fmt.Errorf("no item is valid: %s", s.counts())
	case good == 0:
		return fmt.Errorf("no item was sent: %s", s.counts())
	}
	return exitError{code: exitPartial, err: fmt.Errorf("partial: %s", s.counts())}
}

// parseMetadata reads KEY=VALUE pairs.
func parseMetadata(kvs []string) (map[string]string, error) {
	if len(kvs) == 0 {
		return nil, nil
	}
	out := map[string]string{}
	for _, kv := range kvs {
		k, v, ok := strings.Cut(kv, "=")
		if !ok || k == "" {
			return nil, fmt.Errorf("--metadata %q is not KEY=VALUE", kv)
		}
		out[k] = v
	}
	return out, nil
}

// optBool is a boolean flag that knows whether it was given: absent takes
// the item kind's default. "--notify-failed" alone is true.
type optBool struct {
	set, v bool
}

func (o *optBool) String() string {
	if o == nil || !o.set {
		return ""
	}
	return strconv.FormatBool(o.v)
}

func (o *optBool) Set(s string) error {
	v, err := strconv.ParseBool(s)
	if err != nil {
		return fmt.Errorf("%q is not true or false", s)
	}
	o.set, o.v = true, v
	return nil
}

// IsBoolFlag lets the flag stand alone.
func (o *optBool) IsBoolFlag() bool { return true }

func (o *optBool) ptr() *bool {
	if !o.set {
		return nil
	}
	v := o.v
	return &v
}

// lineSource yields input items, at most n at a time; io.EOF (with the
// last lines) ends it.
type lineSource interface {
	next(n int) ([]submitLine, error)
}

type sliceSource struct{ lines []submitLine }

func (s *sliceSource) next(int) ([]submitLine, error) {
	out := s.lines
	s.lines = nil
	return out, io.EOF
}

// ndjsonSource reads one message per line; blank lines are skipped. A
// line of any length is read: one over maxLineBytes is an error of that
// line alone (its bytes are counted, not kept).
type ndjsonSource struct {
	r    *bufio.Reader
	line int
}

func newNDJSONSource(r io.Reader) *ndjsonSource {
	return &ndjsonSource{r: bufio.NewReaderSize(r, 64<<10)}
}

// readLine returns the next line without its end, or how long it was when
// it is over maxLineBytes (then text is nil); io.EOF when there is none.
func (s *ndjsonSource) readLine() (text []byte, n int, err error) {
	var (
		buf  []byte
		over bool
	)
	for {
		chunk, err := s.r.ReadSlice('\n')
		n += len(chunk)
		if !over && len(buf)+len(chunk) > maxLineBytes+2 { // + the line's end
			over, buf = true, nil
		}
		if !over {
			buf = append(buf, chunk...)
		}
		switch {
		case errors.Is(err, bufio.ErrBufferFull):
			continue
		case err != nil && (!errors.Is(err, io.EOF) || n == 0):
			return nil, n, err
		case over:
			// The line's length, without its end.
			if err == nil {
				n--
			}
			return nil, n, nil
		}
		buf = bytes.TrimSuffix(buf, []byte("\n"))
		return bytes.TrimSuffix(buf, []byte("\r")), n, nil
	}
}

func (s *ndjsonSource) next(n int) ([]submitLine, error) {
	var out []submitLine
	for len(out) < n {
		raw, size, err := s.readLine()
		if err != nil {
			if errors.Is(err, io.EOF) {
				return out, io.EOF
			}
			return out, fmt.Errorf("read line %d: %w", s.line+1, err)
		}
		s.line++
		if raw == nil {
			out = append(out, submitLine{line: s.line, err: fmt.Errorf("the line is %d bytes, over SQS's %d-byte message limit", size, maxLineBytes)})
			continue
		}
		text := strings.TrimSpace(string(raw))
		if text == "" {
			continue
		}
		l := submitLine{line: s.line}
		spec, _, err := intake.Decode(text)
		if err != nil {
			var ie *intake.Error
			if errors.As(err, &ie) {
				l.spec.ItemID = ie.ItemID
			}
			l.err = err
		}
		if err == nil {
			l.spec = spec
		}
		out = append(out, l)
	}
	return out, nil
}

// csvSource reads a CSV with a header row.
type csvSource struct {
	r    *csv.Reader
	cols []string
	line int
}

// csvColumns are the columns a CSV may have besides metadata.KEY.
var csvColumns = []string{intake.FieldItemID, intake.FieldKind, intake.FieldSourceURL, intake.FieldWebhookURL, intake.FieldCorrelationID,
	csvNoticeFailed, csvNoticeRetryScheduled}

// The notice columns: true, false, or empty for the kind's default.
const (
	csvNoticeFailed         = intake.FieldNotices + "." + intake.NoticeFailed
	csvNoticeRetryScheduled = intake.FieldNotices + "." + intake.NoticeRetryScheduled
)

func newCSVSource(r io.Reader) (*csvSource, error) {
	cr := csv.NewReader(r)
	cr.FieldsPerRecord = -1
	header, err := cr.Read()
	if err != nil {
		return nil, fmt.Errorf("read the CSV header: %w", err)
	}
	var unknown []string
	for i, c := range header {
		c = strings.TrimSpace(strings.TrimPrefix(c, "\ufeff"))
		header[i] = c
		if !slices.Contains(csvColumns, c) && !strings.HasPrefix(c, "metadata.") {
			unknown = append(unknown, c)
		}
	}
	if len(unknown) > 0 {
		return nil, fmt.Errorf("CSV columns %q are not %s or metadata.KEY", unknown, strings.Join(csvColumns, ", "))
	}
	if !slices.Contains(header, intake.FieldItemID) {
		return nil, errors.New("the CSV header has no item_id column")
	}
	return &csvSource{r: cr, cols: header, line: 1}, nil
}

func (s *csvSource) next(n int) ([]submitLine, error) {
	var out []submitLine
	for len(out) < n {
		rec, err := s.r.Read()
		if errors.Is(err, io.EOF) {
			return out, io.EOF
		}
		s.line++
		l := submitLine{line: s.line}
		if err != nil {
			l.err = fmt.Errorf("CSV: %w", err)
			out = append(out, l)
			continue
		}
		if len(rec) == 1 && strings.TrimSpace(rec[0]) == "" {
			continue
		}
		if len(rec) != len(s.cols) {
			l.err = fmt.Errorf("%d fields, the header has %d", len(rec), len(s.cols))
			out = append(out, l)
			continue
		}
		for i, c := range s.cols {
			v := strings.TrimSpace(rec[i])
			switch {
			case c == intake.FieldItemID:
				l.spec.ItemID = v
			case c == intake.FieldKind:
				l.spec.Kind = store.Kind(v)
			case c == intake.FieldSourceURL:
				l.spec.SourceURL = v
			case c == intake.FieldWebhookURL:
				l.spec.WebhookURL = v
			case c == intake.FieldCorrelationID:
				l.spec.CorrelationID = v
			case c == csvNoticeFailed || c == csvNoticeRetryScheduled:
				if v == "" {
					continue
				}
				b, err := strconv.ParseBool(v)
				if err != nil {
					l.err = fmt.Errorf("%s %q is not true or false", c, v)
					continue
				}
				if l.spec.Notices == nil {
					l.spec.Notices = &intake.NoticeSpec{}
				}
				if c == csvNoticeFailed {
					l.spec.Notices.Failed = &b
				} else {
					l.spec.Notices.RetryScheduled = &b
				}
			case v != "":
				if l.spec.Metadata == nil {
					l.spec.Metadata = map[string]string{}
				}
				l.spec.Metadata[strings.TrimPrefix(c, "metadata.")] = v
			}
		}
		out = append(out, l)
	}
	return out, nil
}
