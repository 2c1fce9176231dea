package console

import (
	"errors"
	"fmt"
	"net/http"
	"slices"
	"strconv"
	"strings"

	"github.com/triagehq/triage/internal/gates/breaker"
	"github.com/triagehq/triage/internal/gates/health"
	"github.com/triagehq/triage/internal/replay"
	"github.com/triagehq/triage/internal/store"
	"github.com/triagehq/triage/internal/work"
)

// maxSelection bounds the items one replay or resolve names.
const maxSelection = 500

// actionForm is what an action's form carries: the dead letters it selects
// (item ids, or a stage and class), or the model or service it names.
type actionForm struct {
	Items   []string
	Stage   work.Stage
	Class   work.Class
	Mode    store.ReplayMode
	Model   string
	Op      string
	Service string
	Note    string
	// Count is what the confirmation said the action touches; the
	// confirmed action does at most that many.
	Count int
}

// actionData is an action's answer: a confirmation to make, an error to
// fix, or what was done.
type actionData struct {
	Title   string
	Action  string
	Path    string
	Form    actionForm
	Confirm bool
	Done    bool
	Err     string
	// Summary says what the action touches or touched.
	Summary string
	Header  []string
	Rows    [][]string
	// Live are item ids whose state the page follows.
	Live []string
	// Model and Breaker are the record after the action.
	Model   *health.Model
	Breaker *breaker.Record
}

// readForm reads and checks an action's form: a note is required whatever
// the action.
func readForm(r *http.Request) (actionForm, bool, error) {
	f := actionForm{Note: strings.TrimSpace(r.PostFormValue("note")), Model: strings.TrimSpace(r.PostFormValue("model")),
		Op: r.PostFormValue("op"), Service: strings.TrimSpace(r.PostFormValue("service"))}
	for _, id := range r.PostForm["item"] {
		if id = strings.TrimSpace(id); id != "" && !slices.Contains(f.Items, id) {
			f.Items = append(f.Items, id)
		}
	}
	confirmed := r.PostFormValue("confirm") == "yes"
	if n, err := strconv.Atoi(r.PostFormValue("count")); err == nil && n >= 0 {
		f.Count = n
	}
	var err error
	if v := r.PostFormValue("stage"); v != "" {
		if f.Stage, err = work.ParseStage(v); err != nil {
			return f, false, fmt.Errorf("stage: %w", err)
		}
	}
	if v := r.PostFormValue("class"); v != "" {
		f.Class = work.Class(strings.ToUpper(v))
		if !slices.Contains(work.Classes(), f.Class) {
			return f, false, fmt.Errorf("class %q is not an error class", v)
		}
	}
	f.Mode = store.FromFailedStage
	if v := r.PostFormValue("mode"); v != "" {
		if f.Mode, err = store.ParseReplayMode(v); err != nil {
			return f, false, err
		}
	}
	switch {
	case f.Note == "":
		return f, false, errors.New("a note is required: say what was fixed, or why")
	case len(f.Note) > store.MaxNoteBytes:
		return f, false, fmt.Errorf("the note is longer than %d bytes", store.MaxNoteBytes)
	case len(f.Items) > maxSelection:
		return f, false, fmt.Errorf("at most %d items at once", maxSelection)
	}
	return f, confirmed, nil
}

// selection is the dead letters a replay or resolve form selects, as the
// CLI's --dlq, --stage, --class and --item flags would.
func (f actionForm) selection() (replay.Stages, replay.Filter, error) {
	var flt replay.Filter
	if len(f.Items) == 0 && (f.Stage == "" || f.Class == "") {
		return nil, flt, errors.New("select items, or a class at a stage")
	}
	flt.ItemIDs = f.Items
	var dlqs replay.Stages
	if f.Stage != "" {
		flt.Stage, dlqs = f.Stage, replay.Stages{f.Stage}
	}
	if f.Class != "" {
		flt.ErrorClass = replay.Classes{f.Class}
	}
	return dlqs, flt, nil
}

func (s *Server) actionAnswer(w http.ResponseWriter, r *http.Request, d actionData) {
	if d.Err != "" {
		w.WriteHeader(http.StatusUnprocessableEntity)
	}
	d.Title = d.Action
	s.render(w, r, "action", d)
}

// deadLetterForm reads a replay's or a resolve's form and the dead letters
// it selects; when either is wrong it answers with the problem and ok is
// false.
func (s *Server) deadLetterForm(w http.ResponseWriter, r *http.Request, d *actionData) (f actionForm, confirmed bool,
	dlqs replay.Stages, flt replay.Filter, ok bool) {
	f, confirmed, err := readForm(r)
	d.Form = f
	if err == nil {
		dlqs, flt, err = f.selection()
	}
	if err != nil {
		d.Err = clean(err.Error())
		s.actionAnswer(w, r, *d)
		return f, false, nil, flt, false
	}
	return f, confirmed, dlqs, flt, true
}

// replay is `triage dlq replay`: first a dry run that counts, then, on
// confirmation, the replay bounded to that count.
func (s *Server) replay(w http.ResponseWriter, r *http.Request) {
	d := actionData{Action: "Replay", Path: "/actions/replay"}
	f, confirmed, dlqs, flt, ok := s.deadLetterForm(w, r, &d)
	if !ok {
		return
	}
	req := replay.Request{Source: replay.SourceDLQ, DLQs: dlqs, Filter: flt, Mode: f.Mode, Note: f.Note, By: s.b.By, DryRun: !confirmed}
	if confirmed {
		if f.Count <= 0 {
			d.Err = "nothing to replay"
			s.actionAnswer(w, r, d)
			return
		}
		req.Max = f.Count
	}
	if err := req.Validate(); err != nil {
		d.Err = clean(err.Error())
		s.actionAnswer(w, r, d)
		return
	}
	sum, err := s.b.Replayer.Run(r.Context(), req)
	if err != nil && len(sum.Items) == 0 {
		d.Err = s.explain(err)
		s.actionAnswer(w, r, d)
		return
	}
	d.Header = []string{"Item", "DLQ", "Class", "Failed at", "Resumes at", "Action", "Reason"}
	for _, o := range sum.Items {
		d.Rows = append(d.Rows, []string{o.ItemID, string(o.DLQ), string(o.Class), string(o.FailedStage), string(o.Target), string(o.Action), clean(o.Reason)})
		if o.Action == replay.Replayed || o.Action == replay.Resent {
			d.Live = append(d.Live, o.ItemID)
		}
	}
	if err != nil {
		// It stopped part-way: what it replayed before is gone from the DLQs.
		d.Err = fmt.Sprintf("%s (the dry run stopped: nothing changed)", s.explain(err))
		if confirmed {
			s.invalidate()
			d.Err = fmt.Sprintf("%s (it replayed %d before it stopped, %d skipped, %d errors: replay again to resume)", s.explain(err),
				sum.Replayed, sum.Skipped, sum.Errors)
		}
		s.actionAnswer(w, r, d)
		return
	}
	if !confirmed {
		d.Confirm = sum.Replayed > 0
		d.Form.Count = sum.Replayed
		d.Summary = fmt.Sprintf("This replays %d %s (%s): %d selected, %d would be skipped.", sum.Replayed, plural(sum.Replayed, "item", "items"),
			f.Mode, sum.Selected, sum.Skipped)
		if sum.Replayed == 0 {
			d.Summary = fmt.Sprintf("Nothing to replay: %d selected, %d would be skipped.", sum.Selected, sum.Skipped)
		}
		s.actionAnswer(w, r, d)
		return
	}
	s.invalidate()
	d.Done = true
	d.Summary = fmt.Sprintf("Replayed %d %s; %d skipped, %d errors.", sum.Replayed, plural(sum.Replayed, "item", "items"), sum.Skipped, sum.Errors)
	if sum.Errors > 0 {
		d.Summary += " Some replays failed part-way: replay again to resume them."
	}
	s.b.Logger.Info("console replay", "by", s.b.By, "note", f.Note, "replayed", sum.Replayed, "skipped", sum.Skipped, "errors", sum.Errors)
	s.actionAnswer(w, r, d)
}

// resolve is `triage dlq resolve`: a dry run that counts, then the
// resolutions.
func (s *Server) resolve(w http.ResponseWriter, r *http.Request) {
	d := actionData{Action: "Resolve", Path: "/actions/resolve"}
	f, confirmed, dlqs, flt, ok := s.deadLetterForm(w, r, &d)
	if !ok {
		return
	}
	if s.b.Replayer.ErrorLog == nil {
		d.Err = s.missing("errorlog")
		s.actionAnswer(w, r, d)
		return
	}
	req := replay.ResolveRequest{DLQs: dlqs, Filter: flt, Note: f.Note, By: s.b.By, DryRun: !confirmed}
	if confirmed {
		if f.Count <= 0 {
			d.Err = "nothing to resolve"
			s.actionAnswer(w, r, d)
			return
		}
		req.Max = f.Count
	}
	sum, err := s.b.Replayer.Resolve(r.Context(), req)
	if err != nil && len(sum.Items) == 0 {
		d.Err = s.explain(err)
		s.actionAnswer(w, r, d)
		return
	}
	d.Header = []string{"Item", "DLQ", "Class", "Kind", "Action", "Reason"}
	for _, o := range sum.Items {
		d.Rows = append(d.Rows, []string{o.ItemID, string(o.DLQ), o.Class, string(o.Kind), o.Action, clean(o.Reason)})
	}
	if err != nil {
		// It stopped part-way: what it resolved before is gone from the DLQs.
		d.Err = fmt.Sprintf("%s (the dry run stopped: nothing changed)", s.explain(err))
		if confirmed {
			s.invalidate()
			d.Err = fmt.Sprintf("%s (it resolved %d before it stopped, %d errors: resolve again to resume)", s.explain(err), sum.Resolved, sum.Errors)
		}
		s.actionAnswer(w, r, d)
		return
	}
	if !confirmed {
		d.Confirm = sum.Resolved > 0
		d.Form.Count = sum.Selected
		d.Summary = fmt.Sprintf("This resolves %d dead %s: each is recorded with the note, then deleted from its DLQ.", sum.Resolved, plural(sum.Resolved, "letter", "letters"))
		if sum.Skipped > 0 {
			d.Summary += fmt.Sprintf(" %d %s still in flight.", sum.Skipped, plural(sum.Skipped, "left on its DLQ: its item is", "left on their DLQs: their items are"))
		}
		s.actionAnswer(w, r, d)
		return
	}
	s.invalidate()
	d.Done = true
	d.Summary = fmt.Sprintf("Resolved %d dead %s; %d errors.", sum.Resolved, plural(sum.Resolved, "letter", "letters"), sum.Errors)
	if sum.Skipped > 0 {
		d.Summary += fmt.Sprintf(" %d %s still in flight.", sum.Skipped, plural(sum.Skipped, "left on its DLQ: its item is", "left on their DLQs: their items are"))
	}
	s.b.Logger.Info("console resolve", "by", s.b.By, "note", f.Note, "resolved", sum.Resolved, "errors", sum.Errors)
	s.actionAnswer(w, r, d)
}

// model is `triage models enable|disable`, the note as the reason.
func (s *Server) model(w http.ResponseWriter, r *http.Request) {
	s.oneRecord(w, r, actionData{Action: "Model", Path: "/actions/model"}, func(f actionForm) (string, string) {
		switch {
		case s.b.Models == nil:
			return "", s.missing("models")
		case f.Model == "":
			return "", "name the model"
		case f.Op != "enable" && f.Op != "disable":
			return "", "op must be enable or disable"
		}
		return fmt.Sprintf("This %ss 1 model: %s.", f.Op, clean(f.Model)), ""
	}, func(d *actionData) error {
		m, err := s.b.Models.SetDisabled(r.Context(), d.Form.Model, d.Form.Op == "disable", s.b.By+": "+d.Form.Note, s.now())
		if err != nil {
			return err
		}
		d.Model, d.Summary = &m, fmt.Sprintf("Model %s %sd.", clean(m.Name), d.Form.Op)
		s.b.Logger.Info("console model", "by", s.b.By, "model", m.Name, "op", d.Form.Op, "note", d.Form.Note)
		return nil
	})
}

// breaker is `triage breakers reset`.
func (s *Server) breaker(w http.ResponseWriter, r *http.Request) {
	s.oneRecord(w, r, actionData{Action: "Breaker reset", Path: "/actions/breaker"}, func(f actionForm) (string, string) {
		switch {
		case s.b.Breakers == nil:
			return "", s.missing("breakers")
		case f.Service == "":
			return "", "name the service"
		}
		return fmt.Sprintf("This closes 1 breaker now: %s.", clean(f.Service)), ""
	}, func(d *actionData) error {
		rec, err := s.b.Breakers.Reset(r.Context(), d.Form.Service, s.now())
		if err != nil {
			return err
		}
		d.Breaker, d.Summary = &rec, fmt.Sprintf("Breaker %s reset: %s.", clean(rec.Service), rec.State)
		s.b.Logger.Info("console breaker reset", "by", s.b.By, "service", rec.Service, "note", d.Form.Note)
		return nil
	})
}

// oneRecord is an action on one record, a model or a breaker: check says
// what the confirmation says (or what is wrong with the form), do acts
// once it is confirmed.
func (s *Server) oneRecord(w http.ResponseWriter, r *http.Request, d actionData, check func(actionForm) (summary, problem string),
	do func(*actionData) error) {
	f, confirmed, err := readForm(r)
	d.Form = f
	if err != nil {
		d.Err = clean(err.Error())
		s.actionAnswer(w, r, d)
		return
	}
	summary, problem := check(f)
	switch {
	case problem != "":
		d.Err = problem
	case !confirmed:
		d.Confirm, d.Form.Count, d.Summary = true, 1, summary
	default:
		if err := do(&d); err != nil {
			d.Err = s.explain(err)
		} else {
			d.Done = true
		}
	}
	s.actionAnswer(w, r, d)
}

func plural(n int, one, many string) string {
	if n == 1 {
		return one
	}
	return many
}
