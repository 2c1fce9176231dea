package fakes

import (
	"cmp"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"maps"
	"net/http"
	"slices"
	"strings"
	"sync"
	"time"
)

// DefaultLLMRetryAfter is LLMOptions.RetryAfter when it is zero.
const DefaultLLMRetryAfter = 2 * time.Second

// maxLLMBody bounds a chat request body; larger ones answer 413.
const maxLLMBody = 8 << 20

// ItemIDHeader carries the item id our llm client sends; the fake LLM keys
// its fault plan on it.
const ItemIDHeader = "X-Triage-Item-Id"

// LLMOptions configures NewLLM. The zero value accepts any request, any
// model, and asks rate-limited clients to wait DefaultLLMRetryAfter.
type LLMOptions struct {
	Shared
	// APIKey, when set, is the only key the HTTP dialects accept — OpenAI's
	// "Authorization: Bearer <key>", Azure's "api-key", Anthropic's
	// "x-api-key", Gemini's "x-goog-api-key" (or ?key=); a missing or
	// different key answers the dialect's 401 (Gemini's 403 or 400).
	// Empty accepts every request, with or without a key. Bedrock requests
	// need a SigV4 signature instead (its value is not checked).
	APIKey string
	// RetryAfter is the wait a rate_limit fault asks for (Retry-After,
	// x-ratelimit-reset-requests and the message's "try again in"); 0 means
	// DefaultLLMRetryAfter. Real limits ask for more; small values keep the
	// demo fast.
	RetryAfter time.Duration
	// Models, when non-empty, lists the models served; any other model
	// answers 404 model_not_found, even while fixed. Empty serves every model.
	Models []string
	// ModelFaults maps a model to the fault it answers on every call, ahead
	// of the key's plan (for example "bad-model": invalid_json, to walk a
	// fallback chain). The fix switch suspends them; Reset restores this
	// table.
	ModelFaults map[string]Fault
}

// Dialect is a wire format the fake LLM answers in.
type Dialect string

// Dialects.
const (
	// DialectOpenAI is OpenAI chat completions: POST /v1/chat/completions,
	// "Authorization: Bearer".
	DialectOpenAI Dialect = "openai"
	// DialectAzure is Azure OpenAI: POST
	// /openai/deployments/{deployment}/chat/completions, "api-key".
	DialectAzure Dialect = "azure"
	// DialectAnthropic is the Anthropic Messages API: POST /v1/messages,
	// "x-api-key" and "anthropic-version".
	DialectAnthropic Dialect = "anthropic"
	// DialectBedrock is the Bedrock Runtime Converse API: POST
	// /model/{modelId}/converse, SigV4-signed, where the AWS SDK's endpoint
	// override points.
	DialectBedrock Dialect = "bedrock"
	// DialectGemini is Google's generateContent: POST
	// /v1beta/models/{model}:generateContent (the Gemini API) or a Vertex
	// AI publisher's path, "x-goog-api-key".
	DialectGemini Dialect = "gemini"
)

// Dialects lists every dialect.
func Dialects() []Dialect {
	return []Dialect{DialectOpenAI, DialectAzure, DialectAnthropic, DialectBedrock, DialectGemini}
}

// ParseDialect returns the dialect named s.
func ParseDialect(s string) (Dialect, error) {
	d := Dialect(strings.TrimSpace(s))
	if slices.Contains(Dialects(), d) {
		return d, nil
	}
	return "", fmt.Errorf("unknown dialect %q (want openai, azure, anthropic, bedrock or gemini)", s)
}

// LLM is a fake model API speaking five dialects over one fault plan:
//
//	POST /v1/chat/completions                           OpenAI
//	POST /openai/deployments/{deployment}/chat/completions  Azure OpenAI
//	POST /v1/messages                                   Anthropic Messages
//	POST /model/{modelId}/converse                      Bedrock Converse
//	POST /v1beta/models/{model}:generateContent         Gemini API
//	POST /v1/projects/{p}/locations/{l}/publishers/google/models/{model}:generateContent  Vertex AI
//	POST /v1/publishers/google/models/{model}:generateContent  Vertex AI (express)
//
// Its fault plan is keyed on the X-Triage-Item-Id header, falling back to
// "msg-" + FNV-1a hex of the last user message, and decides the fault of a
// call whatever its dialect; each dialect renders the fault as its provider
// does (see the dialect files: OpenAI's and Anthropic's error bodies,
// Bedrock's X-Amzn-Errortype header with a {"message"} body, Google's
// google.rpc.Status). For one call,
// first match wins: the global outage; the dialect's own outage
// (SetDialectOutage); missing or wrong credentials; a malformed request
// (400, as the provider words it); a model not in Models (404, or Bedrock's
// ValidationException); the model's fault (unless fixed); the key's plan. A
// normal answer is a 200 whose text is the Enrichment of the last user
// message (see EnrichmentFor), followed by a line "ACTION_OUTCOME: success"
// when a system message mentions ACTION_OUTCOME.
//
// Stats never hold credentials or message text, only lengths. The control
// API is described in the package documentation; LLM adds POST
// /_fake/models and POST /_fake/dialect-outage (DialectOutageRequest).
type LLM struct {
	*Plan

	opts LLMOptions
	rec  *recorder
	mux  *http.ServeMux

	mu             sync.Mutex
	modelFaults    map[string]Fault
	dialectOutages map[Dialect]OutageMode
}

// NewLLM returns a fake LLM server; it is an http.Handler. It fails when a
// ModelFaults entry is not an LLM fault.
func NewLLM(opts LLMOptions) (*LLM, error) {
	opts.Shared = opts.Shared.withDefaults()
	opts.RetryAfter = positiveOr(opts.RetryAfter, DefaultLLMRetryAfter)
	l := &LLM{Plan: NewPlan(LLMFaults()...), opts: opts, mux: http.NewServeMux()}
	if _, err := l.normalizeModelFaults(opts.ModelFaults); err != nil {
		return nil, err
	}
	l.rec = newRecorder(l.Plan, opts.Shared)
	l.Reset()
	l.mux.HandleFunc("POST /v1/chat/completions", l.serve(DialectOpenAI))
	l.mux.HandleFunc("POST /openai/deployments/{deployment}/chat/completions", l.serve(DialectAzure))
	l.mux.HandleFunc("POST /v1/messages", l.serve(DialectAnthropic))
	l.mux.HandleFunc("POST /model/{modelId}/converse", l.serve(DialectBedrock))
	l.mux.HandleFunc("POST /v1beta/models/{action}", l.serve(DialectGemini))
	l.mux.HandleFunc("POST /v1/projects/{project}/locations/{location}/publishers/google/models/{action}", l.serve(DialectGemini))
	l.mux.HandleFunc("POST /v1/publishers/google/models/{action}", l.serve(DialectGemini))
	l.rec.register(l.mux, l.Stats, l.Reset)
	l.mux.HandleFunc("POST /_fake/models", l.controlModels)
	l.mux.HandleFunc("POST /_fake/dialect-outage", l.controlDialectOutage)
	return l, nil
}

// ServeHTTP serves the model endpoints and the control API.
func (l *LLM) ServeHTTP(w http.ResponseWriter, r *http.Request) { l.mux.ServeHTTP(w, r) }

// Reset forgets calls and stats, clears the plan and switches (dialect
// outages included), and restores LLMOptions.ModelFaults.
func (l *LLM) Reset() {
	l.Plan.Reset()
	l.rec.reset()
	faults, _ := l.normalizeModelFaults(l.opts.ModelFaults) // validated by NewLLM
	l.mu.Lock()
	defer l.mu.Unlock()
	l.modelFaults = faults
	l.dialectOutages = map[Dialect]OutageMode{}
}

// Stats returns what the server has answered, per key, fault, status,
// model and dialect, with its plan, per-model faults and dialect outages.
func (l *LLM) Stats() Stats {
	s := l.rec.stats()
	s.ModelFaults = l.ModelFaults()
	l.mu.Lock()
	defer l.mu.Unlock()
	if len(l.dialectOutages) > 0 {
		s.DialectOutages = maps.Clone(l.dialectOutages)
	}
	return s
}

// SetDialectOutage switches one dialect's own outage: while on, every
// request in that dialect answers the dialect's 503-class error
// (OutageUnavailable; Anthropic's 529 overloaded_error, Bedrock's
// ServiceUnavailableException) or hangs (OutageHang), and the other
// dialects answer normally — a provider-wide outage of one provider.
// mode "" is OutageUnavailable.
func (l *LLM) SetDialectOutage(d Dialect, on bool, mode OutageMode) error {
	if _, err := ParseDialect(string(d)); err != nil {
		return err
	}
	mode = cmp.Or(mode, OutageUnavailable)
	if !slices.Contains(OutageModes(), mode) {
		return fmt.Errorf("unknown outage mode %q", mode)
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	if on {
		l.dialectOutages[d] = mode
	} else {
		delete(l.dialectOutages, d)
	}
	return nil
}

func (l *LLM) dialectOutage(d Dialect) (OutageMode, bool) {
	l.mu.Lock()
	defer l.mu.Unlock()
	m, ok := l.dialectOutages[d]
	return m, ok
}

// DialectOutageRequest is the body of POST /_fake/dialect-outage.
type DialectOutageRequest struct {
	// Dialect is the dialect to switch. Required.
	Dialect Dialect `json:"dialect"`
	// On is required.
	On *bool `json:"on"`
	// Mode is "unavailable" (the default) or "hang".
	Mode OutageMode `json:"mode,omitempty"`
}

func (l *LLM) controlDialectOutage(w http.ResponseWriter, r *http.Request) {
	var body DialectOutageRequest
	if !decodeControl(w, r, &body) {
		return
	}
	if body.On == nil {
		controlResult(w, errors.New(`body must set "on": true or false`))
		return
	}
	controlResult(w, l.SetDialectOutage(body.Dialect, *body.On, body.Mode))
}

// SetModelFault makes model answer f on every call; FaultNone removes the
// model's fault. "always:" is accepted and changes nothing: model faults
// always persist.
func (l *LLM) SetModelFault(model string, f Fault) error {
	return l.SetModelFaults(map[string]Fault{model: f}, false)
}

// SetModelFaults sets several model faults at once, validating all first.
// With replace, every other model's fault is removed.
func (l *LLM) SetModelFaults(faults map[string]Fault, replace bool) error {
	normalized, err := l.normalizeModelFaults(faults)
	if err != nil {
		return err
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	if replace {
		l.modelFaults = map[string]Fault{}
	}
	for model := range faults {
		delete(l.modelFaults, model)
	}
	maps.Copy(l.modelFaults, normalized)
	return nil
}

// ModelFaults returns a copy of the per-model fault table.
func (l *LLM) ModelFaults() map[string]Fault {
	l.mu.Lock()
	defer l.mu.Unlock()
	return maps.Clone(l.modelFaults)
}

// normalizeModelFaults validates faults and returns their base names without
// FaultNone entries.
func (l *LLM) normalizeModelFaults(faults map[string]Fault) (map[string]Fault, error) {
	out := make(map[string]Fault, len(faults))
	for model, f := range faults {
		if err := l.Plan.check(f); err != nil {
			return nil, fmt.Errorf("model %q: %w", model, err)
		}
		if b := f.Base(); b != FaultNone {
			out[model] = b
		}
	}
	return out, nil
}

func (l *LLM) modelFault(model string) Fault {
	l.mu.Lock()
	defer l.mu.Unlock()
	if f, ok := l.modelFaults[model]; ok {
		return f
	}
	return FaultNone
}

// ModelFaultsRequest is the body of POST /_fake/models.
type ModelFaultsRequest struct {
	// ModelFaults maps a model to its fault; "none" removes the model's fault.
	ModelFaults map[string]Fault `json:"model_faults"`
	// Replace removes every model fault not named in ModelFaults.
	Replace bool `json:"replace,omitempty"`
}

func (l *LLM) controlModels(w http.ResponseWriter, r *http.Request) {
	var body ModelFaultsRequest
	if !decodeControl(w, r, &body) {
		return
	}
	controlResult(w, l.SetModelFaults(body.ModelFaults, body.Replace))
}

// prompt is what the fake needs from a parsed request.
type prompt struct {
	lastUser string
	action   bool // a system message mentions ACTION_OUTCOME
	chars    int
}

// add counts one message of role with text.
func (p *prompt) add(role, text string) {
	p.chars += len(text)
	switch role {
	case "user":
		p.lastUser = text
	case "system", "developer":
		if strings.Contains(text, "ACTION_OUTCOME") {
			p.action = true
		}
	}
}

// badRequest is a request the fake rejects itself, as the provider would.
type badRequest struct {
	status  int
	message string
	param   string
	code    string
}

// llmCall is one parsed request, whatever its dialect.
type llmCall struct {
	dialect  Dialect
	model    string
	messages int
	p        prompt
	bad      *badRequest
	// presented is the credential presented (never stored or logged); ok
	// reports whether it is accepted.
	presented string
	authOK    bool
}

// addSystem adds a request's top-level system prompt (a string or content
// parts of partType, as textOf reads them) to the prompt, where it counts
// as a message. When it does not read, the call is a 400 whose message is
// prefix and the reason, and addSystem returns false.
func (c *llmCall) addSystem(raw json.RawMessage, partType, prefix string) bool {
	system, err := textOf(raw, partType)
	if err != nil {
		c.bad = &badRequest{status: http.StatusBadRequest, message: prefix + "system: " + err.Error()}
		return false
	}
	if system != "" {
		c.p.add("system", system)
		c.messages++
	}
	return true
}

// parse reads a request of dialect d.
func (l *LLM) parse(d Dialect, r *http.Request, body []byte, readErr error) llmCall {
	c := llmCall{dialect: d}
	var mbe *http.MaxBytesError
	switch {
	case errors.As(readErr, &mbe):
		c.bad = &badRequest{status: http.StatusRequestEntityTooLarge,
			message: fmt.Sprintf("Request body too large: the limit is %d bytes.", mbe.Limit), code: "request_too_large"}
	case readErr != nil:
		c.bad = &badRequest{status: http.StatusBadRequest, message: "Could not read the request body."}
	}
	switch d {
	case DialectAnthropic:
		l.parseAnthropic(&c, r, body)
	case DialectBedrock:
		l.parseBedrock(&c, r, body)
	case DialectGemini:
		l.parseGemini(&c, r, body)
	default:
		l.parseChat(&c, r, body)
	}
	return c
}

// serve answers one model request of dialect d.
func (l *LLM) serve(d Dialect) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		sw := &statusWriter{ResponseWriter: w}
		body, readErr := io.ReadAll(http.MaxBytesReader(sw, r.Body, maxLLMBody))
		c := l.parse(d, r, body, readErr)

		key := r.Header.Get(ItemIDHeader)
		if key == "" {
			text := c.p.lastUser
			if c.bad != nil {
				text = string(body)
			}
			key = fmt.Sprintf("msg-%016x", HashString(text))
		}
		dec := l.Decide(key)
		mode, down := l.dialectOutage(d)
		modelFault := l.modelFault(c.model)
		fault := dec.Fault
		outage := dec.Outage
		switch {
		case dec.Outage:
		case down:
			fault, outage = mode.fault(), true
		case !c.authOK:
			fault = FaultAuth
		case c.bad != nil:
			fault = FaultNone
		case len(l.opts.Models) > 0 && !slices.Contains(l.opts.Models, c.model):
			fault = FaultModelNotFound
		case !dec.Fixed && modelFault != FaultNone:
			fault = modelFault
		}
		call := l.rec.begin(Call{Key: key, Call: dec.Call, Fault: fault, Outage: outage, Model: c.model, Dialect: d,
			RequestBytes: len(body), Messages: c.messages})
		defer func() { l.rec.finish(call, sw.status) }()

		if !outage && c.authOK && c.bad != nil {
			l.rejectRequest(sw, dec, c)
			return
		}
		switch fault {
		case FaultHang:
			hang(sw, r, l.opts.MaxHang)
			return
		case FaultReset:
			resetConnection(sw, "application/json", 800, []byte(`{"id":"`))
			return
		case FaultBadGateway:
			sw.Header().Set("Content-Type", "text/html")
			sw.WriteHeader(http.StatusBadGateway)
			_, _ = io.WriteString(sw, badGatewayHTML)
			return
		}
		if a, ok := l.text(fault, c); ok {
			l.complete(sw, dec, c, a)
			return
		}
		l.fail(sw, dec, c, fault)
	}
}

// rejectRequest answers a malformed request in the dialect's words.
func (l *LLM) rejectRequest(w http.ResponseWriter, dec Decision, c llmCall) {
	switch c.dialect {
	case DialectAnthropic:
		l.anthropicHeaders(w, dec, false)
		anthropicError(w, dec, c.bad.status, anthropicBadType(c.bad.status), c.bad.message)
	case DialectBedrock:
		bedrockError(w, dec, c.bad.status, bedrockBadCode(c.bad.status), c.bad.message)
	case DialectGemini:
		geminiError(w, c.bad.status, c.bad.message)
	default:
		l.headers(w, dec, false)
		WriteOpenAIError(w, c.bad.status, c.bad.message, "invalid_request_error", c.bad.param, c.bad.code)
	}
}

// fail answers an error fault in the dialect's shape.
func (l *LLM) fail(w http.ResponseWriter, dec Decision, c llmCall, fault Fault) {
	switch c.dialect {
	case DialectAnthropic:
		l.failAnthropic(w, dec, c, fault)
	case DialectBedrock:
		l.failBedrock(w, dec, c, fault)
	case DialectGemini:
		l.failGemini(w, dec, c, fault)
	case DialectAzure:
		l.failAzure(w, dec, c, fault)
	default:
		l.failOpenAI(w, dec, c, fault)
	}
}

// stop is why a fake answer ended, before a dialect spells it.
type stop int

const (
	stopEnd       stop = iota // a natural end
	stopMaxTokens             // cut off at the output token limit
	stopFilter                // a provider content filter
	stopRefusal               // the model declined
	stopGuardrail             // a Bedrock guardrail
	stopBlocked               // a prompt Gemini blocked: no candidate at all
)

// answerText is a 200 answer: its text and why it stopped. refusal is the
// model's refusal text, for dialects that carry it apart from the content.
type answerText struct {
	content string
	stop    stop
	refusal string
}

// Texts of the 200 faults.
const (
	invalidJSONContent = "Sure! Here is the summary: {summary: oops"
	actionFailedLine   = "ACTION_OUTCOME: failed | target system rejected the change"
	actionSuccessLine  = "ACTION_OUTCOME: success"
	refusalText        = "I'm sorry, but I can't help with that request."
	guardrailText      = "Sorry, the model cannot answer this question."
)

// text returns the 200 answer of fault, or false for a fault that is an
// error in c's dialect. Content policy is an error for OpenAI and Azure (a
// 400) and a 200 elsewhere: Anthropic's refusal, a Bedrock guardrail,
// Gemini's blocked prompt.
func (l *LLM) text(fault Fault, c llmCall) (answerText, bool) {
	switch fault {
	case FaultNone:
		content := enrichmentJSON(c.p.lastUser)
		if c.p.action {
			content += "\n" + actionSuccessLine
		}
		return answerText{content: content}, true
	case FaultInvalidJSON:
		return answerText{content: invalidJSONContent}, true
	case FaultSchemaMismatch:
		e := EnrichmentFor(c.p.lastUser)
		content, _ := json.Marshal(map[string]any{"summary": e.SummaryNeutral, "tags": []string{e.Category}})
		return answerText{content: string(content)}, true
	case FaultEmpty:
		return answerText{}, true
	case FaultContentFilter:
		return answerText{stop: stopFilter}, true
	case FaultActionFailed:
		return answerText{content: enrichmentJSON(c.p.lastUser) + "\n" + actionFailedLine}, true
	case FaultCutOff:
		full := enrichmentJSON(c.p.lastUser)
		return answerText{content: full[:len(full)/2], stop: stopMaxTokens}, true
	case FaultRefusal:
		return answerText{stop: stopRefusal, refusal: refusalText}, true
	case FaultContentPolicy:
		switch c.dialect {
		case DialectAnthropic:
			return answerText{stop: stopRefusal, refusal: refusalText}, true
		case DialectBedrock:
			return answerText{content: guardrailText, stop: stopGuardrail}, true
		case DialectGemini:
			return answerText{stop: stopBlocked}, true
		}
	}
	return answerText{}, false
}

// complete answers a 200 in c's dialect.
func (l *LLM) complete(w http.ResponseWriter, dec Decision, c llmCall, a answerText) {
	in := (c.p.chars+3)/4 + 3*c.messages
	out := (len(a.content) + len(a.refusal) + 3) / 4
	switch c.dialect {
	case DialectAnthropic:
		l.completeAnthropic(w, dec, c, a, in, out)
	case DialectBedrock:
		l.completeBedrock(w, dec, a, in, out)
	case DialectGemini:
		l.completeGemini(w, dec, c, a, in, out)
	default:
		l.completeChat(w, dec, c, a, in, out)
	}
}

// badGatewayHTML is what a CDN in front of a model API answers when the
// origin fails.
const badGatewayHTML = "<html>\r\n<head><title>502 Bad Gateway</title></head>\r\n<body>\r\n" +
	"<center><h1>502 Bad Gateway</h1></center>\r\n<hr><center>cloudflare</center>\r\n</body>\r\n</html>\r\n"

// requestID derives a stable request id for a decision.
func requestID(dec Decision) string {
	id1 := splitmix64(HashString(dec.Key) ^ uint64(dec.Call))
	return fmt.Sprintf("%016x%016x", id1, splitmix64(id1))
}

// Enrichment is the JSON object the fake LLM answers by default; its fields
// are the ones our llm stage requires.
type Enrichment struct {
	// SummaryNeutral is a plain summary: the message's first 20 words.
	SummaryNeutral string `json:"summary_neutral"`
	// SummarySpicy is an opinionated one: "Hot take: " and the first 8 words.
	SummarySpicy string `json:"summary_spicy"`
	// Category is one of technology, business, politics, science, health,
	// security, culture, sports.
	Category string `json:"category"`
	// Severity is low, medium, high or critical.
	Severity string `json:"severity"`
	// PrimaryActor is the first entity, or "unknown".
	PrimaryActor string `json:"primary_actor"`
	// TopEntities are up to 5 distinct capitalised words; never nil.
	TopEntities []string `json:"top_entities"`
}

// Categories the fake LLM assigns.
var enrichmentCategories = []string{"technology", "business", "politics", "science", "health", "security", "culture", "sports"}

// Severities in increasing order.
var enrichmentSeverities = []string{"low", "medium", "high", "critical"}

// notEntities are capitalised words that start sentences rather than name
// anyone.
var notEntities = map[string]bool{
	"A": true, "An": true, "And": true, "As": true, "At": true, "But": true, "By": true, "For": true, "He": true,
	"I": true, "In": true, "It": true, "Its": true, "Of": true, "On": true, "Or": true, "She": true, "So": true,
	"The": true, "This": true, "That": true, "They": true, "To": true, "We": true, "With": true,
}

// EnrichmentFor returns the enrichment the fake LLM derives from a user
// message, deterministically: the neutral summary is the first 20 words, the
// spicy one the first 8 with a "Hot take:", category and severity come from
// the text's FNV-1a hash, the entities are the first 5 distinct capitalised
// words (skipping sentence starters such as "The"), and the primary actor is
// the first entity ("unknown" when there is none). TopEntities is never nil.
func EnrichmentFor(text string) Enrichment {
	words := strings.Fields(text)
	h := HashString(text)
	e := Enrichment{
		Category:     enrichmentCategories[h%uint64(len(enrichmentCategories))],
		Severity:     enrichmentSeverities[(h>>8)%uint64(len(enrichmentSeverities))],
		PrimaryActor: "unknown",
		TopEntities:  []string{},
	}
	trim := func(ws []string) string {
		return strings.TrimRight(strings.Join(ws, " "), ".,;:!?-")
	}
	if len(words) == 0 {
		e.SummaryNeutral = "The message is empty."
		e.SummarySpicy = "Hot take: nothing to see here!"
	} else {
		e.SummaryNeutral = trim(words[:min(20, len(words))]) + "."
		e.SummarySpicy = "Hot take: " + trim(words[:min(8, len(words))]) + "!"
	}
	for _, w := range words {
		w = strings.Trim(w, ".,;:!?\"'()[]{}")
		if w == "" || w[0] < 'A' || w[0] > 'Z' || notEntities[w] || slices.Contains(e.TopEntities, w) {
			continue
		}
		e.TopEntities = append(e.TopEntities, w)
		if len(e.TopEntities) == 5 {
			break
		}
	}
	if len(e.TopEntities) > 0 {
		e.PrimaryActor = e.TopEntities[0]
	}
	return e
}

func enrichmentJSON(text string) string {
	b, _ := json.Marshal(EnrichmentFor(text)) // only strings: cannot fail
	return string(b)
}
