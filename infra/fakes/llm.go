package fakes

import (
	"crypto/subtle"
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
	// APIKey, when set, is the only key accepted as "Authorization: Bearer
	// <key>"; a missing or different key answers OpenAI's 401. Empty accepts
	// every request, with or without a key.
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

// LLM is a fake OpenAI-compatible Chat Completions server:
//
//	POST /v1/chat/completions
//
// Its fault plan is keyed on the X-Triage-Item-Id header, falling back to
// "msg-" + FNV-1a hex of the last user message. For one call, first match
// wins: outage; missing or wrong API key (401); a malformed request (400, as
// OpenAI words it); a model not in Models (404); the model's fault (unless
// fixed); the key's plan. A normal answer is a 200 whose content is the
// Enrichment of the last user message (see EnrichmentFor), followed by a line
// "ACTION_OUTCOME: success" when a system message mentions ACTION_OUTCOME.
//
// Every answer but bad_gateway, hang and reset carries x-request-id,
// openai-version and x-ratelimit-* headers. Stats never hold the
// Authorization header or message text, only lengths. The control API is
// described in the package documentation; LLM adds POST /_fake/models.
type LLM struct {
	*Plan

	opts LLMOptions
	rec  *recorder
	mux  *http.ServeMux

	mu          sync.Mutex
	modelFaults map[string]Fault
}

// NewLLM returns a fake LLM server; it is an http.Handler. It fails when a
// ModelFaults entry is not an LLM fault.
func NewLLM(opts LLMOptions) (*LLM, error) {
	opts.Shared = opts.Shared.withDefaults()
	if opts.RetryAfter <= 0 {
		opts.RetryAfter = DefaultLLMRetryAfter
	}
	l := &LLM{Plan: NewPlan(LLMFaults()...), opts: opts, mux: http.NewServeMux()}
	if _, err := l.normalizeModelFaults(opts.ModelFaults); err != nil {
		return nil, err
	}
	l.rec = newRecorder(l.Plan, opts.Shared)
	l.Reset()
	l.mux.HandleFunc("POST /v1/chat/completions", l.chatCompletions)
	l.rec.register(l.mux, l.Stats, l.Reset)
	l.mux.HandleFunc("POST /_fake/models", l.controlModels)
	return l, nil
}

// ServeHTTP serves the chat completions endpoint and the control API.
func (l *LLM) ServeHTTP(w http.ResponseWriter, r *http.Request) { l.mux.ServeHTTP(w, r) }

// Reset forgets calls and stats, clears the plan and switches, and restores
// LLMOptions.ModelFaults.
func (l *LLM) Reset() {
	l.Plan.Reset()
	l.rec.reset()
	faults, _ := l.normalizeModelFaults(l.opts.ModelFaults) // validated by NewLLM
	l.mu.Lock()
	defer l.mu.Unlock()
	l.modelFaults = faults
}

// Stats returns what the server has answered, per key, fault, status and
// model, with its plan and per-model faults.
func (l *LLM) Stats() Stats {
	s := l.rec.stats()
	s.ModelFaults = l.ModelFaults()
	return s
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

// chatRequest is the part of a Chat Completions request the fake reads;
// temperature, response_format and the rest are accepted and ignored.
type chatRequest struct {
	Model    string        `json:"model"`
	Messages []chatMessage `json:"messages"`
	Stream   bool          `json:"stream"`
}

type chatMessage struct {
	Role    string          `json:"role"`
	Content json.RawMessage `json:"content"`
}

// text returns the message's text: a string content, or the text parts of an
// array content.
func (m chatMessage) text() (string, error) {
	c := strings.TrimSpace(string(m.Content))
	switch {
	case c == "" || c == "null":
		return "", nil
	case c[0] == '"':
		var s string
		err := json.Unmarshal(m.Content, &s)
		return s, err
	case c[0] == '[':
		var parts []struct {
			Type string `json:"type"`
			Text string `json:"text"`
		}
		if err := json.Unmarshal(m.Content, &parts); err != nil {
			return "", err
		}
		var b strings.Builder
		for _, p := range parts {
			if p.Type == "text" {
				b.WriteString(p.Text)
			}
		}
		return b.String(), nil
	}
	return "", errors.New("content must be a string or an array of parts")
}

// prompt is what the fake needs from a parsed request.
type prompt struct {
	lastUser string
	action   bool // a system message mentions ACTION_OUTCOME
	chars    int
}

func (req chatRequest) prompt() (prompt, error) {
	var p prompt
	for i, m := range req.Messages {
		text, err := m.text()
		if err != nil {
			return p, fmt.Errorf("messages[%d].content: %w", i, err)
		}
		p.chars += len(text)
		switch m.Role {
		case "user":
			p.lastUser = text
		case "system", "developer":
			if strings.Contains(text, "ACTION_OUTCOME") {
				p.action = true
			}
		}
	}
	return p, nil
}

// badRequest is a request the fake rejects itself, as OpenAI would.
type badRequest struct {
	status  int
	message string
	param   string
	code    string
}

func validateChat(body []byte, readErr error) (chatRequest, prompt, *badRequest) {
	var req chatRequest
	var mbe *http.MaxBytesError
	switch {
	case errors.As(readErr, &mbe):
		return req, prompt{}, &badRequest{status: http.StatusRequestEntityTooLarge,
			message: fmt.Sprintf("Request body too large: the limit is %d bytes.", mbe.Limit), code: "request_too_large"}
	case readErr != nil:
		return req, prompt{}, &badRequest{status: http.StatusBadRequest, message: "Could not read the request body."}
	}
	if err := json.Unmarshal(body, &req); err != nil {
		return req, prompt{}, &badRequest{status: http.StatusBadRequest, message: "We could not parse the JSON body of your request. " +
			"(HINT: This likely means you aren't using your HTTP library correctly. The OpenAI API expects a JSON payload, " +
			"but what was sent was not valid JSON.)"}
	}
	p, err := req.prompt()
	switch {
	case err != nil:
		return req, p, &badRequest{status: http.StatusBadRequest, message: "Invalid " + err.Error(), param: "messages"}
	case req.Model == "":
		return req, p, &badRequest{status: http.StatusBadRequest, message: "you must provide a model parameter"}
	case len(req.Messages) == 0:
		return req, p, &badRequest{status: http.StatusBadRequest, message: "[] is too short - 'messages'", param: "messages"}
	case req.Stream:
		return req, p, &badRequest{status: http.StatusBadRequest, message: "stream is not supported by the fake LLM", param: "stream"}
	}
	return req, p, nil
}

func (l *LLM) chatCompletions(w http.ResponseWriter, r *http.Request) {
	sw := &statusWriter{ResponseWriter: w}
	body, readErr := io.ReadAll(http.MaxBytesReader(sw, r.Body, maxLLMBody))
	req, p, bad := validateChat(body, readErr)

	key := r.Header.Get(ItemIDHeader)
	if key == "" {
		text := p.lastUser
		if bad != nil {
			text = string(body)
		}
		key = fmt.Sprintf("msg-%016x", fnv1a(text))
	}
	d := l.Decide(key)
	presented, authOK := l.authorize(r)
	modelFault := l.modelFault(req.Model)
	fault := d.Fault
	switch {
	case d.Outage:
	case !authOK:
		fault = FaultAuth
	case bad != nil:
		fault = FaultNone
	case len(l.opts.Models) > 0 && !slices.Contains(l.opts.Models, req.Model):
		fault = FaultModelNotFound
	case !d.Fixed && modelFault != FaultNone:
		fault = modelFault
	}
	call := l.rec.begin(Call{Key: key, Call: d.Call, Fault: fault, Outage: d.Outage, Model: req.Model,
		RequestBytes: len(body), Messages: len(req.Messages)})
	defer func() { l.rec.finish(call, sw.status) }()

	if !d.Outage && authOK && bad != nil {
		l.headers(sw, d, false)
		openAIError(sw, bad.status, bad.message, "invalid_request_error", bad.param, bad.code)
		return
	}
	l.answer(sw, r, d, fault, req, p, presented)
}

// authorize reports the presented bearer key and whether it is accepted.
func (l *LLM) authorize(r *http.Request) (presented string, ok bool) {
	auth := r.Header.Get("Authorization")
	if scheme, key, found := strings.Cut(auth, " "); found && strings.EqualFold(scheme, "Bearer") {
		presented = strings.TrimSpace(key)
	}
	if l.opts.APIKey == "" {
		return presented, true
	}
	return presented, subtle.ConstantTimeCompare([]byte(presented), []byte(l.opts.APIKey)) == 1
}

// maskKey masks an API key the way OpenAI's 401 message does: the first three
// and last four characters survive. Keys shorter than 8 are fully masked.
func maskKey(k string) string {
	if len(k) < 8 {
		return strings.Repeat("*", len(k))
	}
	return k[:3] + strings.Repeat("*", len(k)-7) + k[len(k)-4:]
}

// headers sets the headers OpenAI puts on every API response.
func (l *LLM) headers(w http.ResponseWriter, d Decision, limited bool) {
	h := w.Header()
	id1 := splitmix64(fnv1a(d.Key) ^ uint64(d.Call))
	h.Set("x-request-id", fmt.Sprintf("req_%016x%016x", id1, splitmix64(id1)))
	h.Set("openai-organization", "org-fake")
	h.Set("openai-processing-ms", "42")
	h.Set("openai-version", "2020-10-01")
	if limited {
		h.Set("x-ratelimit-limit-requests", "3")
		h.Set("x-ratelimit-remaining-requests", "0")
		h.Set("x-ratelimit-reset-requests", l.opts.RetryAfter.String())
	} else {
		h.Set("x-ratelimit-limit-requests", "10000")
		h.Set("x-ratelimit-remaining-requests", "9999")
		h.Set("x-ratelimit-reset-requests", "6ms")
	}
	h.Set("x-ratelimit-limit-tokens", "200000")
	h.Set("x-ratelimit-remaining-tokens", "199000")
	h.Set("x-ratelimit-reset-tokens", "300ms")
}

// apiError is OpenAI's error object; empty Param and Code encode as null.
type apiError struct {
	Message string  `json:"message"`
	Type    string  `json:"type"`
	Param   *string `json:"param"`
	Code    *string `json:"code"`
}

func openAIError(w http.ResponseWriter, status int, message, typ, param, code string) {
	e := apiError{Message: message, Type: typ}
	if param != "" {
		e.Param = &param
	}
	if code != "" {
		e.Code = &code
	}
	writeJSON(w, status, map[string]apiError{"error": e})
}

// badGatewayHTML is what a CDN in front of a model API answers when the
// origin fails.
const badGatewayHTML = "<html>\r\n<head><title>502 Bad Gateway</title></head>\r\n<body>\r\n" +
	"<center><h1>502 Bad Gateway</h1></center>\r\n<hr><center>cloudflare</center>\r\n</body>\r\n</html>\r\n"

// Texts of the 200 faults.
const (
	invalidJSONContent = "Sure! Here is the summary: {summary: oops"
	actionFailedLine   = "ACTION_OUTCOME: failed | target system rejected the change"
	actionSuccessLine  = "ACTION_OUTCOME: success"
)

func (l *LLM) answer(w http.ResponseWriter, r *http.Request, d Decision, fault Fault, req chatRequest, p prompt, presented string) {
	switch fault {
	case FaultHang:
		hang(w, r, l.opts.MaxHang)
		return
	case FaultReset:
		resetConnection(w, "application/json", 800, []byte(`{"id":"chatcmpl-`))
		return
	case FaultBadGateway:
		w.Header().Set("Content-Type", "text/html")
		w.WriteHeader(http.StatusBadGateway)
		_, _ = io.WriteString(w, badGatewayHTML)
		return
	}
	l.headers(w, d, fault == FaultRateLimit)
	switch fault {
	case FaultRateLimit:
		w.Header().Set("Retry-After", seconds(l.opts.RetryAfter))
		openAIError(w, http.StatusTooManyRequests, fmt.Sprintf("Rate limit reached for %s in organization org-xxx on "+
			"requests per min (RPM): Limit 3, Used 3, Requested 1. Please try again in %s. Visit "+
			"https://platform.openai.com/account/rate-limits to learn more.", req.Model, l.opts.RetryAfter),
			"requests", "", "rate_limit_exceeded")
	case FaultQuota:
		openAIError(w, http.StatusTooManyRequests, "You exceeded your current quota, please check your plan and "+
			"billing details. For more information on this error, read the docs: "+
			"https://platform.openai.com/docs/guides/error-codes/api-errors.", "insufficient_quota", "", "insufficient_quota")
	case FaultServerError:
		openAIError(w, http.StatusInternalServerError, "The server had an error while processing your request. "+
			"Sorry about that!", "server_error", "", "")
	case FaultUnavailable:
		openAIError(w, http.StatusServiceUnavailable, "The engine is currently overloaded, please try again later.",
			"server_error", "", "engine_overloaded")
	case FaultContentPolicy:
		openAIError(w, http.StatusBadRequest, "Your request was rejected as a result of our safety system. Your "+
			"prompt may contain text that is not allowed by our safety system.", "invalid_request_error", "",
			"content_policy_violation")
	case FaultContextLength:
		openAIError(w, http.StatusBadRequest, "This model's maximum context length is 128000 tokens. However, your "+
			"messages resulted in 130012 tokens. Please reduce the length of the messages.", "invalid_request_error",
			"messages", "context_length_exceeded")
	case FaultAuth:
		if presented == "" && l.opts.APIKey != "" {
			openAIError(w, http.StatusUnauthorized, "You didn't provide an API key. You need to provide your API key "+
				"in an Authorization header using Bearer auth (i.e. Authorization: Bearer YOUR_KEY). You can obtain "+
				"an API key from https://platform.openai.com/account/api-keys.", "invalid_request_error", "", "")
			return
		}
		masked := "sk-...xxxx"
		if presented != "" {
			masked = maskKey(presented)
		}
		openAIError(w, http.StatusUnauthorized, "Incorrect API key provided: "+masked+". You can find your API key "+
			"at https://platform.openai.com/account/api-keys.", "invalid_request_error", "", "invalid_api_key")
	case FaultModelNotFound:
		openAIError(w, http.StatusNotFound, "The model `"+req.Model+"` does not exist or you do not have access to it.",
			"invalid_request_error", "", "model_not_found")
	case FaultInvalidJSON:
		l.complete(w, d, req, p, invalidJSONContent, "stop")
	case FaultSchemaMismatch:
		e := EnrichmentFor(p.lastUser)
		content, _ := json.Marshal(map[string]any{"summary": e.SummaryNeutral, "tags": []string{e.Category}})
		l.complete(w, d, req, p, string(content), "stop")
	case FaultEmpty:
		l.complete(w, d, req, p, "", "stop")
	case FaultContentFilter:
		l.complete(w, d, req, p, "", "content_filter")
	case FaultActionFailed:
		l.complete(w, d, req, p, enrichmentJSON(p.lastUser)+"\n"+actionFailedLine, "stop")
	default:
		content := enrichmentJSON(p.lastUser)
		if p.action {
			content += "\n" + actionSuccessLine
		}
		l.complete(w, d, req, p, content, "stop")
	}
}

type chatResponse struct {
	ID                string       `json:"id"`
	Object            string       `json:"object"`
	Created           int64        `json:"created"`
	Model             string       `json:"model"`
	Choices           []chatChoice `json:"choices"`
	Usage             chatUsage    `json:"usage"`
	SystemFingerprint string       `json:"system_fingerprint"`
}

type chatChoice struct {
	Index        int               `json:"index"`
	Message      chatAnswer        `json:"message"`
	Logprobs     *struct{}         `json:"logprobs"`
	FinishReason string            `json:"finish_reason"`
	Filter       map[string]filter `json:"content_filter_results,omitempty"`
}

type chatAnswer struct {
	Role    string `json:"role"`
	Content string `json:"content"`
}

type filter struct {
	Filtered bool   `json:"filtered"`
	Severity string `json:"severity"`
}

type chatUsage struct {
	PromptTokens     int `json:"prompt_tokens"`
	CompletionTokens int `json:"completion_tokens"`
	TotalTokens      int `json:"total_tokens"`
}

// complete answers a 200 chat completion with content.
func (l *LLM) complete(w http.ResponseWriter, d Decision, req chatRequest, p prompt, content, finish string) {
	choice := chatChoice{Message: chatAnswer{Role: "assistant", Content: content}, FinishReason: finish}
	if finish == "content_filter" { // Azure OpenAI reports which category tripped
		choice.Filter = map[string]filter{
			"hate": {false, "safe"}, "self_harm": {false, "safe"}, "sexual": {false, "safe"}, "violence": {true, "high"},
		}
	}
	usage := chatUsage{PromptTokens: (p.chars+3)/4 + 3*len(req.Messages), CompletionTokens: (len(content) + 3) / 4}
	usage.TotalTokens = usage.PromptTokens + usage.CompletionTokens
	writeJSON(w, http.StatusOK, chatResponse{
		ID:                fmt.Sprintf("chatcmpl-%016x", splitmix64(fnv1a(d.Key)+uint64(d.Call))),
		Object:            "chat.completion",
		Created:           l.opts.Now().Unix(),
		Model:             req.Model,
		Choices:           []chatChoice{choice},
		Usage:             usage,
		SystemFingerprint: "fp_fake",
	})
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
	h := fnv1a(text)
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
