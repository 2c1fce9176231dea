package fakes

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"sync"
	"time"
)

// Call is one request a fake served, as Stats lists it. It holds lengths,
// never contents or credentials.
type Call struct {
	// Key is the call's key: item id (LLM), article id, idempotency key or
	// hook name (webhook).
	Key string `json:"key"`
	// Call is the 1-based number of this call for Key.
	Call int `json:"call"`
	// Fault is the behaviour the call got, whatever decided it (plan, outage,
	// per-model fault, a wrong API key or signature); FaultNone for a normal
	// answer, and for a malformed request answered 400 by the fake itself.
	Fault Fault `json:"fault"`
	// Outage is set when the outage switch answered.
	Outage bool `json:"outage,omitempty"`
	// Status is the HTTP status answered; 0 while the call is in flight and
	// for a response that was aborted or reset.
	Status int `json:"status"`
	// Model is the requested model (LLM only).
	Model string `json:"model,omitempty"`
	// Dialect is the wire format the request used (LLM only).
	Dialect Dialect `json:"dialect,omitempty"`
	// RequestBytes is the length of the request body.
	RequestBytes int `json:"request_bytes"`
	// Messages is the number of chat messages (LLM only).
	Messages int `json:"messages,omitempty"`
	// At is when the fake received the call, by its clock.
	At time.Time `json:"at"`
}

// Stats is what a fake has served since it started or was last reset, and the
// plan it is following.
type Stats struct {
	// Requests counts service requests (control calls under /_fake/ are not
	// counted).
	Requests int `json:"requests"`
	// Calls counts requests per key.
	Calls map[string]int `json:"calls"`
	// Faults counts requests per applied fault ("none" for normal answers),
	// counted when the fault is decided, so a request still held by a hang
	// is already there.
	Faults map[Fault]int `json:"faults"`
	// Statuses counts finished responses per HTTP status; aborted and reset
	// responses are not counted.
	Statuses map[int]int `json:"statuses"`
	// Models counts requests per model (LLM only).
	Models map[string]int `json:"models,omitempty"`
	// ModelFaults is the LLM's per-model fault table (LLM only).
	ModelFaults map[string]Fault `json:"model_faults,omitempty"`
	// Dialects counts requests per wire dialect (LLM only).
	Dialects map[Dialect]int `json:"dialects,omitempty"`
	// DialectOutages lists the dialects whose own outage switch is on, with
	// its mode (LLM only).
	DialectOutages map[Dialect]OutageMode `json:"dialect_outages,omitempty"`
	// Deliveries summarises the webhook's deliveries (webhook only).
	Deliveries *DeliveryStats `json:"deliveries,omitempty"`
	// Outage is the outage switch.
	Outage bool `json:"outage"`
	// OutageMode is how an outage answers.
	OutageMode OutageMode `json:"outage_mode"`
	// Fixed is the fix switch.
	Fixed bool `json:"fixed"`
	// Scripts are the current scripts.
	Scripts map[string][]Fault `json:"scripts"`
	// Mix is the current mix; Rates is empty when it is off.
	Mix Mix `json:"mix"`
	// Recent lists the last Shared.KeepCalls calls, oldest first.
	Recent []Call `json:"recent"`
}

// recorder counts calls for a fake and serves its control API.
type recorder struct {
	plan *Plan
	opts Shared

	mu       sync.Mutex
	faults   map[Fault]int
	statuses map[int]int
	models   map[string]int
	dialects map[Dialect]int
	recent   []*Call // ring of at most opts.KeepCalls
	next     int     // oldest entry once the ring is full
}

func newRecorder(plan *Plan, opts Shared) *recorder {
	r := &recorder{plan: plan, opts: opts.withDefaults()}
	r.reset()
	return r
}

func (r *recorder) reset() {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.faults = map[Fault]int{}
	r.statuses = map[int]int{}
	r.models = map[string]int{}
	r.dialects = map[Dialect]int{}
	r.recent = nil
	r.next = 0
}

// begin records a call whose fault is decided and returns it for finish.
func (r *recorder) begin(c Call) *Call {
	c.At = r.opts.Clock.Now()
	p := &c
	r.mu.Lock()
	defer r.mu.Unlock()
	r.faults[c.Fault]++
	if c.Model != "" {
		r.models[c.Model]++
	}
	if c.Dialect != "" {
		r.dialects[c.Dialect]++
	}
	if len(r.recent) < r.opts.KeepCalls {
		r.recent = append(r.recent, p)
	} else {
		r.recent[r.next] = p
		r.next = (r.next + 1) % len(r.recent)
	}
	return p
}

// finish records the status a call was answered with.
func (r *recorder) finish(c *Call, status int) {
	r.mu.Lock()
	defer r.mu.Unlock()
	c.Status = status
	if status != 0 {
		r.statuses[status]++
	}
}

func (r *recorder) stats() Stats {
	calls := r.plan.CallCounts()
	s := Stats{
		Calls:   calls,
		Scripts: r.plan.Scripts(),
		Mix:     r.plan.Mix(),
		Fixed:   r.plan.Fixed(),
	}
	s.Outage, s.OutageMode = r.plan.Outage()
	for _, n := range calls {
		s.Requests += n
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	s.Faults = make(map[Fault]int, len(r.faults))
	for k, v := range r.faults {
		s.Faults[k] = v
	}
	s.Statuses = make(map[int]int, len(r.statuses))
	for k, v := range r.statuses {
		s.Statuses[k] = v
	}
	if len(r.models) > 0 {
		s.Models = make(map[string]int, len(r.models))
		for k, v := range r.models {
			s.Models[k] = v
		}
	}
	if len(r.dialects) > 0 {
		s.Dialects = make(map[Dialect]int, len(r.dialects))
		for k, v := range r.dialects {
			s.Dialects[k] = v
		}
	}
	s.Recent = make([]Call, 0, len(r.recent))
	for i := range r.recent {
		s.Recent = append(s.Recent, *r.recent[(r.next+i)%len(r.recent)])
	}
	return s
}

// maxControlBody bounds a control request's body.
const maxControlBody = 1 << 20

// ScriptRequest is the body of POST /_fake/script.
type ScriptRequest struct {
	// Scripts maps a key to its faults; an empty list removes the key's script.
	Scripts map[string][]Fault `json:"scripts"`
	// Replace drops every script not named in Scripts.
	Replace bool `json:"replace,omitempty"`
}

// SwitchRequest is the body of POST /_fake/outage and POST /_fake/fix.
type SwitchRequest struct {
	// On is required.
	On *bool `json:"on"`
	// Mode is the outage mode ("unavailable" or "hang"); only for
	// /_fake/outage; empty keeps the current mode.
	Mode OutageMode `json:"mode,omitempty"`
}

// register adds the control API to mux. stats and reset are the fake's own,
// which extend the recorder's.
func (r *recorder) register(mux *http.ServeMux, stats func() Stats, reset func()) {
	mux.HandleFunc("GET /_fake/stats", func(w http.ResponseWriter, _ *http.Request) {
		writeJSON(w, http.StatusOK, stats())
	})
	mux.HandleFunc("POST /_fake/script", func(w http.ResponseWriter, req *http.Request) {
		var body ScriptRequest
		if !decodeControl(w, req, &body) {
			return
		}
		controlResult(w, r.plan.SetScripts(body.Scripts, body.Replace))
	})
	mux.HandleFunc("POST /_fake/mix", func(w http.ResponseWriter, req *http.Request) {
		var body Mix
		if !decodeControl(w, req, &body) {
			return
		}
		controlResult(w, r.plan.SetMix(body))
	})
	mux.HandleFunc("POST /_fake/outage", func(w http.ResponseWriter, req *http.Request) {
		var body SwitchRequest
		if !decodeSwitch(w, req, &body) {
			return
		}
		if body.Mode != "" {
			if err := r.plan.SetOutageMode(body.Mode); err != nil {
				controlResult(w, err)
				return
			}
		}
		r.plan.SetOutage(*body.On)
		controlResult(w, nil)
	})
	mux.HandleFunc("POST /_fake/fix", func(w http.ResponseWriter, req *http.Request) {
		var body SwitchRequest
		if !decodeSwitch(w, req, &body) {
			return
		}
		if body.Mode != "" {
			controlResult(w, errors.New("mode applies to /_fake/outage only"))
			return
		}
		r.plan.SetFixed(*body.On)
		controlResult(w, nil)
	})
	mux.HandleFunc("POST /_fake/reset", func(w http.ResponseWriter, _ *http.Request) {
		reset()
		controlResult(w, nil)
	})
}

func decodeSwitch(w http.ResponseWriter, req *http.Request, body *SwitchRequest) bool {
	if !decodeControl(w, req, body) {
		return false
	}
	if body.On == nil {
		controlResult(w, errors.New(`body must set "on": true or false`))
		return false
	}
	return true
}

// decodeControl decodes a control request strictly; on failure it answers
// 400 and returns false.
func decodeControl(w http.ResponseWriter, req *http.Request, v any) bool {
	dec := json.NewDecoder(http.MaxBytesReader(w, req.Body, maxControlBody))
	dec.DisallowUnknownFields()
	if err := dec.Decode(v); err != nil {
		controlResult(w, fmt.Errorf("decode control request: %w", err))
		return false
	}
	if dec.More() {
		controlResult(w, errors.New("decode control request: trailing data after the JSON value"))
		return false
	}
	return true
}

// controlResult answers {"ok":true} or 400 {"error":"..."}.
func controlResult(w http.ResponseWriter, err error) {
	if err != nil {
		writeJSON(w, http.StatusBadRequest, map[string]string{"error": err.Error()})
		return
	}
	writeJSON(w, http.StatusOK, map[string]bool{"ok": true})
}

// writeJSON writes v as a JSON body. HTML escaping is off so provider
// messages keep their literal characters.
func writeJSON(w http.ResponseWriter, status int, v any) {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		http.Error(w, "encode response: "+err.Error(), http.StatusInternalServerError)
		return
	}
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	_, _ = io.Copy(w, &buf)
}
