package soak

import (
	"encoding/base64"
	"encoding/json"
	"fmt"
	"io"
	"maps"
	"math/rand/v2"
	"net/http"
	"net/url"
	"slices"
	"strings"
	"sync"

	"github.com/rs/zerolog"
	"github.com/zricethezav/gitleaks/v8/detect"
	"github.com/zricethezav/gitleaks/v8/logging"

	"github.com/triagehq/triage/dev/fakes"
	"github.com/triagehq/triage/dev/local/devstack"
)

// Secret is one planted secret and the strings a search looks for: the
// exact value and distinctive fragments of it (the start of its random
// part), so that a value cut short or partly masked is still found.
type Secret struct {
	// Name says what the secret is.
	Name string
	// Where says where it was planted.
	Where string
	// Value is the secret.
	Value string
	// Needles are the strings searched for: Value first.
	Needles []string
}

// secretRole is what one planted-secret item exercises. Every such item
// carries the URL secrets and an article with the prompt secrets; the role
// adds the faults that make them travel through error paths.
type secretRole string

const (
	// roleFetchEcho: the article server answers 404 with the request line
	// and its parameters, tokens included, in a JSON body → NOT_FOUND at
	// fetch.
	roleFetchEcho secretRole = "fetch 404 echoing the URL"
	// roleFetchReset: resets and a hang on the article → fetch errors that
	// quote the URL; then success.
	roleFetchReset secretRole = "fetch reset/hang, then ok"
	// rolePromptRetry: the LLM answers 500 and invalid JSON, then succeeds.
	rolePromptRetry secretRole = "llm 500 + invalid JSON, then ok"
	// rolePromptPolicy: the LLM refuses the prompt → CONTENT_POLICY.
	rolePromptPolicy secretRole = "llm content policy"
	// rolePromptContext: the prompt is too long → TOKEN_LIMIT.
	rolePromptContext secretRole = "llm context length"
	// roleLLMEcho500: a 500 whose message carries a bearer token, then ok.
	roleLLMEcho500 secretRole = "llm 500 echoing a bearer token, then ok"
	// roleLLMEcho401: a 401 echoing the presented API key in full and
	// another key → AUTH_DENIED at llm.
	roleLLMEcho401 secretRole = "llm 401 echoing full API keys"
	// roleLLMEchoInvalid: a 200 whose content repeats the prompt's secrets
	// and is not JSON → RESPONSE_INVALID until the attempts run out.
	roleLLMEchoInvalid secretRole = "llm invalid answer echoing the prompt"
	// roleHookEcho500: a webhook 500 echoing a Slack bot token and the hook
	// URL, then ok.
	roleHookEcho500 secretRole = "webhook 500 echoing a token and the URL, then ok"
	// roleHookEcho401: a webhook 401 echoing a bearer token → AUTH_DENIED at
	// notify.
	roleHookEcho401 secretRole = "webhook 401 echoing a bearer token"
	// roleHookReset: a reset, then channel_not_found → NOT_FOUND at notify.
	roleHookReset secretRole = "webhook reset, then channel not found"
)

// secretRoles lists the roles in the order items get them.
var secretRoles = []secretRole{roleFetchEcho, roleFetchReset, rolePromptRetry, rolePromptPolicy, rolePromptContext,
	roleLLMEcho500, roleLLMEcho401, roleLLMEchoInvalid, roleHookEcho500, roleHookEcho401, roleHookReset}

// Planted holds the secrets of a run and the items that carry them. Its Wrap
// answers the fakes' echoing errors.
type Planted struct {
	// Secrets are every planted secret, the functions' own credentials
	// included (the API key and the webhook signing secret the fakes check).
	Secrets []Secret
	// Items maps each planted-secret item to what it exercises.
	Items map[string]string

	roles                              map[string]secretRole
	urlToken, urlKey, slackPath        string
	apiKey, email, card, jwt           string
	gitlab, doToken                    string // shapes only gitleaks' rules name
	llmBearer, slackBot, hookBearer    string
	mu                                 sync.Mutex
	calls                              map[string]int // "<fake> <item>" → calls answered or passed
	articlePreamble                    string
	slackTeam, slackChannel, hookAlias string
}

// PlantSecrets makes a run's secrets from rng and gives the first
// len(secretRoles) of ids (or fewer) a role each.
func PlantSecrets(rng *rand.Rand, ids []string) *Planted {
	p := &Planted{roles: map[string]secretRole{}, Items: map[string]string{}, calls: map[string]int{},
		slackTeam: "T0SOAK" + upper(rng, 5), slackChannel: "B0SOAK" + upper(rng, 5), hookAlias: "slack-soak"}
	core := func() string { return alnum(rng, 24) }
	add := func(name, where, value string, needles ...string) string {
		p.Secrets = append(p.Secrets, Secret{Name: name, Where: where, Value: value,
			Needles: append([]string{value}, needles...)})
		return value
	}
	c := core()
	p.urlToken = add("source URL token", "items: ?token= of the source URL", "tok_"+c, c[:12])
	c = core()
	p.urlKey = add("source URL API key", "items: ?api_key= of the source URL", "soakkey"+c, c[:12])
	c = core()
	p.slackPath = add("Slack webhook path secret", "items: /hooks/services/T…/B…/<secret> of the webhook URL", c, c[:12])
	c = alnum(rng, 48)
	p.apiKey = add("OpenAI-style API key", "prompts (article text) and llm 401 bodies", "sk-proj-"+c, c[:12])
	local := "soak." + lower(rng, 10)
	p.email = add("email address", "prompts (article text)", local+"@example.org", local)
	digits := luhnCard(rng)
	p.card = add("card number", "prompts (article text)", digits[0:4]+" "+digits[4:8]+" "+digits[8:12]+" "+digits[12:16], digits)
	payload := base64.RawURLEncoding.EncodeToString(fmt.Appendf(nil, `{"sub":"soak-%s","name":"Soak Test","iat":1700000000}`, lower(rng, 8)))
	sig := b64url(rng, 43)
	p.jwt = add("JWT", "prompts (article text)", "eyJhbGciOiJIUzI1NiIsInR5cCI6IkpXVCJ9."+payload+"."+sig, payload, sig)
	c = alnum(rng, 20)
	p.gitlab = add("GitLab token", "prompts (article text), llm invalid answers, webhook 500 bodies", "glpat-"+c, c[:12])
	c = lowerHex(rng, 64)
	p.doToken = add("DigitalOcean token", "prompts (article text), webhook 500 bodies", "dop_v1_"+c, c[:16])
	c = alnum(rng, 40)
	p.llmBearer = add("bearer token (llm)", "llm 500 bodies", c, c[:12])
	c = alnum(rng, 24)
	p.slackBot = add("Slack bot token", "webhook 500 bodies", fmt.Sprintf("xoxb-%d-%d-%s", 100000000000+rng.Int64N(1e11),
		100000000000+rng.Int64N(1e11), c), c[:12])
	c = alnum(rng, 40)
	p.hookBearer = add("bearer token (webhook)", "webhook 401 bodies", c, c[:12])
	add("the functions' LLM API key", "the Authorization header; echoed in full by llm 401 bodies", devstack.LLMKey)
	add("the webhook signing secret", "SSM only (must never appear)", devstack.WebhookSecret)

	p.articlePreamble = "Internal memo leaked to the press. The vendor's API key is " + p.apiKey +
		" and the billing contact is " + p.email + ", card on file " + p.card + ". A session token was attached: " +
		p.jwt + ". Deploy with " + p.gitlab + " and " + p.doToken + ".\n"
	for i, id := range ids {
		if i == len(secretRoles) {
			break
		}
		p.roles[id] = secretRoles[i]
		p.Items[id] = string(secretRoles[i])
	}
	return p
}

// Has reports whether id carries planted secrets.
func (p *Planted) Has(id string) bool {
	if p == nil {
		return false
	}
	_, ok := p.roles[id]
	return ok
}

// SourceURL is id's article URL at the article server base, with the URL
// secrets in its query for a planted-secret item.
func (p *Planted) SourceURL(base, id string) string {
	u := base + "/articles/" + id
	if p.Has(id) {
		u += "?token=" + url.QueryEscape(p.urlToken) + "&api_key=" + url.QueryEscape(p.urlKey) + "&lang=en"
	}
	return u
}

// WebhookURL is id's webhook at the receiver base: Slack's shape with the
// path secret for a planted-secret item.
func (p *Planted) WebhookURL(base, id string) string {
	if p.Has(id) {
		return base + "/hooks/services/" + p.slackTeam + "/" + p.slackChannel + "/" + p.slackPath
	}
	return base + "/hooks/soak"
}

// ArticleText is the article server's text: the generated article, led by
// the prompt secrets for a planted-secret item. A nil Planted serves the
// plain article.
func (p *Planted) ArticleText(id string) string {
	text := fakes.ArticleText(id, fakes.DefaultArticleSize)
	if !p.Has(id) {
		return text
	}
	title, rest, _ := strings.Cut(text, "\n")
	return title + "\n\n" + p.articlePreamble + rest
}

// Scripts are the fault scripts of the planted-secret items, per fake.
func (p *Planted) Scripts() (articles, llm, webhook map[string][]fakes.Fault) {
	articles, llm, webhook = map[string][]fakes.Fault{}, map[string][]fakes.Fault{}, map[string][]fakes.Fault{}
	for id, r := range p.roles {
		switch r {
		case roleFetchReset:
			articles[id] = []fakes.Fault{fakes.FaultReset, fakes.FaultHang}
		case rolePromptRetry:
			llm[id] = []fakes.Fault{fakes.FaultServerError, fakes.FaultInvalidJSON}
		case rolePromptPolicy:
			llm[id] = []fakes.Fault{fakes.Always(fakes.FaultContentPolicy)}
		case rolePromptContext:
			llm[id] = []fakes.Fault{fakes.Always(fakes.FaultContextLength)}
		case roleHookReset:
			webhook[id+":notify"] = []fakes.Fault{fakes.FaultReset, fakes.Always(fakes.FaultChannelNotFound)}
		}
		// Every other planted-secret item gets no fault of its own from the
		// fakes: the fixed script keeps the mix off it.
		if _, ok := articles[id]; !ok {
			articles[id] = []fakes.Fault{fakes.FaultNone}
		}
		if _, ok := llm[id]; !ok {
			llm[id] = []fakes.Fault{fakes.FaultNone}
		}
		if _, ok := webhook[id+":notify"]; !ok {
			webhook[id+":notify"] = []fakes.Fault{fakes.FaultNone}
		}
	}
	return articles, llm, webhook
}

// Wrap puts the echoing upstream errors in front of a fake, and maps the
// Slack-shaped webhook paths onto the receiver's /hooks/{name}.
func (p *Planted) Wrap(name string, h http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch name {
		case devstack.FakeArticles:
			if id := articleKey(r); p.role(id) == roleFetchEcho {
				p.count(name, id)
				body, _ := json.Marshal(map[string]any{"error": "article not found", "request": "GET " + r.URL.RequestURI(),
					"params": map[string]string{"token": p.urlToken, "api_key": p.urlKey}})
				writeBody(w, http.StatusNotFound, "application/json", string(body))
				return
			}
		case devstack.FakeLLM:
			if p.echoLLM(w, r) {
				return
			}
		case devstack.FakeWebhook:
			if rest, ok := strings.CutPrefix(r.URL.Path, "/hooks/"); ok && strings.Contains(rest, "/") {
				r2 := r.Clone(r.Context())
				r2.URL.Path, r2.URL.RawPath = "/hooks/"+p.hookAlias, ""
				r = r2
			}
			if p.echoWebhook(w, r) {
				return
			}
		}
		h.ServeHTTP(w, r)
	})
}

func (p *Planted) role(id string) secretRole {
	if p == nil || id == "" {
		return ""
	}
	return p.roles[id]
}

func (p *Planted) count(fake, id string) int {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.calls[fake+" "+id]++
	return p.calls[fake+" "+id]
}

func (p *Planted) echoLLM(w http.ResponseWriter, r *http.Request) bool {
	id := llmKey(r)
	switch p.role(id) {
	case roleLLMEcho500:
		if p.count(devstack.FakeLLM, id) > 1 {
			return false
		}
		_, _ = io.Copy(io.Discard, r.Body)
		fakes.WriteOpenAIError(w, http.StatusInternalServerError, "The server had an error processing your request: the "+
			"upstream rejected Authorization: Bearer "+p.llmBearer+" (request forwarded with your credentials).", "server_error", "", "")
		return true
	case roleLLMEcho401:
		p.count(devstack.FakeLLM, id)
		_, _ = io.Copy(io.Discard, r.Body)
		presented := strings.TrimSpace(strings.TrimPrefix(r.Header.Get("Authorization"), "Bearer "))
		fakes.WriteOpenAIError(w, http.StatusUnauthorized, "Incorrect API key provided: "+presented+
			". The organization key "+p.apiKey+" was revoked too. You can find your API key at "+
			"https://platform.openai.com/account/api-keys.", "invalid_request_error", "", "invalid_api_key")
		return true
	case roleLLMEchoInvalid:
		p.count(devstack.FakeLLM, id)
		_, _ = io.Copy(io.Discard, r.Body)
		content := "I cannot produce JSON for this document. It contains the API key " + p.apiKey + ", the contact " +
			p.email + ", the card " + p.card + ", the session " + p.jwt + " and the deploy token " + p.gitlab + "."
		body, _ := json.Marshal(map[string]any{
			"id": "chatcmpl-soak-" + id, "object": "chat.completion", "created": 1700000000, "model": "gpt-4o-mini",
			"choices": []map[string]any{{"index": 0, "finish_reason": "stop",
				"message": map[string]string{"role": "assistant", "content": content}}},
			"usage": map[string]int{"prompt_tokens": 900, "completion_tokens": 60, "total_tokens": 960},
		})
		writeBody(w, http.StatusOK, "application/json", string(body))
		return true
	}
	return false
}

func (p *Planted) echoWebhook(w http.ResponseWriter, r *http.Request) bool {
	id := webhookKey(r)
	switch p.role(id) {
	case roleHookEcho500:
		if p.count(devstack.FakeWebhook, id) > 1 {
			return false
		}
		_, _ = io.Copy(io.Discard, r.Body)
		writeBody(w, http.StatusInternalServerError, "text/plain; charset=utf-8", "internal_error: token "+p.slackBot+
			" rejected for https://hooks.slack.com/services/"+p.slackTeam+"/"+p.slackChannel+"/"+p.slackPath+
			" (deploy token "+p.gitlab+")\nDIGITALOCEAN_TOKEN="+p.doToken)
		return true
	case roleHookEcho401:
		p.count(devstack.FakeWebhook, id)
		_, _ = io.Copy(io.Discard, r.Body)
		writeBody(w, http.StatusUnauthorized, "application/json",
			`{"message": "401: Unauthorized", "detail": "Authorization: Bearer `+p.hookBearer+` is not valid"}`)
		return true
	}
	return false
}

func writeBody(w http.ResponseWriter, status int, contentType, body string) {
	w.Header().Set("Content-Type", contentType)
	w.Header().Set("Content-Length", fmt.Sprint(len(body)))
	w.WriteHeader(status)
	_, _ = io.WriteString(w, body)
}

// Leak is one planted secret found where it must not be.
type Leak struct {
	// Secret names the secret; Needle says whether the exact value or a
	// fragment matched.
	Secret, Needle string
	// Corpus is "function logs", "DLQ payloads" or "error log"; Where
	// locates the match (function and line number, queue, item).
	Corpus, Where string
}

// SecretScan searches text for the planted secrets, and runs gitleaks'
// detector (its default rules) over the same text, and counts what it
// searched. It is safe for concurrent use.
type SecretScan struct {
	secrets  []Secret
	gitleaks *detect.Detector // nil when its configuration failed to load: see GitleaksErr
	// GitleaksErr is why gitleaks does not run, or nil.
	GitleaksErr error

	mu       sync.Mutex
	searched map[string]int // corpus → units searched
	lines    map[string]int // function → lines seen
	leaks    []Leak
}

// NewSecretScan searches for secrets, and for whatever gitleaks' default
// rules find.
func NewSecretScan(secrets []Secret) *SecretScan {
	s := &SecretScan{secrets: secrets, searched: map[string]int{}, lines: map[string]int{}}
	s.gitleaks, s.GitleaksErr = gitleaksDetector()
	return s
}

var gitleaksDetector = sync.OnceValues(func() (*detect.Detector, error) {
	logging.Logger = zerolog.Nop()
	return detect.NewDetectorDefaultConfig()
})

// GitleaksNeedle starts the Needle of a Leak that gitleaks found rather
// than a planted secret's needle.
const GitleaksNeedle = "gitleaks rule "

// Corpora of the scan.
const (
	CorpusLogs     = "function log lines"
	CorpusDLQ      = "DLQ payloads"
	CorpusErrorLog = "error-log entries"
)

// Line searches one function output line (a devstack OnLog callback).
func (s *SecretScan) Line(fn, line string) {
	s.mu.Lock()
	s.lines[fn]++
	n := s.lines[fn]
	s.mu.Unlock()
	s.Search(CorpusLogs, fmt.Sprintf("%s line %d", fn, n), line)
}

// Search searches one unit of a corpus.
func (s *SecretScan) Search(corpus, where, text string) {
	var found []Leak
	for _, sec := range s.secrets {
		for i, n := range sec.Needles {
			if n != "" && strings.Contains(text, n) {
				kind := "exact value"
				if i > 0 {
					kind = "fragment " + n
				}
				found = append(found, Leak{Secret: sec.Name, Needle: kind, Corpus: corpus, Where: where})
				break
			}
		}
	}
	if s.gitleaks != nil {
		for _, f := range s.gitleaks.DetectString(text) {
			// The report says which rule and where, never the secret itself.
			found = append(found, Leak{Secret: fmt.Sprintf("a %d-byte secret", len(f.Secret)),
				Needle: GitleaksNeedle + f.RuleID, Corpus: corpus, Where: where})
		}
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	s.searched[corpus]++
	s.leaks = append(s.leaks, found...)
}

// Searched returns how many units of each corpus were searched.
func (s *SecretScan) Searched() map[string]int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return maps.Clone(s.searched)
}

// Leaks returns every match so far.
func (s *SecretScan) Leaks() []Leak {
	s.mu.Lock()
	defer s.mu.Unlock()
	return slices.Clone(s.leaks)
}

// Needles counts the strings searched for.
func (s *SecretScan) Needles() int {
	n := 0
	for _, sec := range s.secrets {
		n += len(sec.Needles)
	}
	return n
}

const (
	alnumChars = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789"
	b64Chars   = alnumChars + "-_"
)

func lowerHex(rng *rand.Rand, n int) string { return pick(rng, "0123456789abcdef", n) }

func pick(rng *rand.Rand, chars string, n int) string {
	b := make([]byte, n)
	for i := range b {
		b[i] = chars[rng.IntN(len(chars))]
	}
	return string(b)
}

func alnum(rng *rand.Rand, n int) string  { return pick(rng, alnumChars, n) }
func b64url(rng *rand.Rand, n int) string { return pick(rng, b64Chars, n) }
func lower(rng *rand.Rand, n int) string  { return pick(rng, "abcdefghijklmnopqrstuvwxyz", n) }
func upper(rng *rand.Rand, n int) string  { return pick(rng, "ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789", n) }

// luhnCard returns 16 digits starting with 4 whose Luhn checksum is valid,
// so that a card-number detector cannot dismiss them.
func luhnCard(rng *rand.Rand) string {
	d := make([]int, 16)
	d[0] = 4
	for i := 1; i < 15; i++ {
		d[i] = rng.IntN(10)
	}
	sum := 0
	for i := 0; i < 15; i++ {
		v := d[i]
		if i%2 == 0 { // doubled: every second digit from the right, the check digit excluded
			v *= 2
			if v > 9 {
				v -= 9
			}
		}
		sum += v
	}
	d[15] = (10 - sum%10) % 10
	var b strings.Builder
	for _, v := range d {
		b.WriteByte(byte('0' + v))
	}
	return b.String()
}

// luhnValid reports whether digits pass the Luhn check.
func luhnValid(digits string) bool {
	sum, double := 0, false
	for i := len(digits) - 1; i >= 0; i-- {
		v := int(digits[i] - '0')
		if double {
			v *= 2
			if v > 9 {
				v -= 9
			}
		}
		sum += v
		double = !double
	}
	return sum%10 == 0
}
