package console

import (
	"context"
	"crypto/hmac"
	"crypto/rand"
	"crypto/sha256"
	"crypto/subtle"
	"embed"
	"encoding/hex"
	"errors"
	"fmt"
	"html/template"
	"io/fs"
	"log/slog"
	"net"
	"net/http"
	"net/url"
	"strings"
	"sync"
	"time"

	"github.com/aws/aws-sdk-go-v2/service/sqs"

	"github.com/triagehq/triage/cmd/triage/ops"
	"github.com/triagehq/triage/internal/clock"
	"github.com/triagehq/triage/internal/gates/breaker"
	"github.com/triagehq/triage/internal/gates/health"
	"github.com/triagehq/triage/internal/policy"
	"github.com/triagehq/triage/internal/replay"
	"github.com/triagehq/triage/internal/report"
	"github.com/triagehq/triage/internal/store"
	"github.com/triagehq/triage/internal/work"
)

//go:embed templates/*.html static/*
var assets embed.FS

// Items reads items (store.Items, store.Memory).
type Items interface {
	Get(ctx context.Context, id string) (store.Item, error)
}

// ErrorLog reads the error log: one item's history, a window of it
// through the by-class index, and the failures nothing recognised through
// the unrecognised index (store.ErrorLogReader).
type ErrorLog interface {
	ops.ItemLog
	report.LogReader
	report.UnrecognisedReader
}

// ClassLog is an ErrorLog that reads one class alone through the by-class
// index (store.ErrorLogReader): the error log page filtered by a class reads
// it so, not the window's first LogMaxRead entries of every class.
type ClassLog interface {
	ClassBetween(ctx context.Context, c work.Class, since, until time.Time, fn func(store.LogEntry) error) error
}

// QueueDepth is the part of SQS the overview reads: a DLQ's approximate
// depth.
type QueueDepth interface {
	GetQueueAttributes(ctx context.Context, in *sqs.GetQueueAttributesInput, opts ...func(*sqs.Options)) (*sqs.GetQueueAttributesOutput, error)
}

// Backend is what the console reads and acts through: the CLI's stores,
// built by `triage console` from the same flags as the other commands. A
// nil optional field leaves its part of a page out with a note saying which
// flag names it.
type Backend struct {
	// Replayer lists, replays and resolves dead letters, as `triage dlq`
	// does; its ErrorLog must be set for resolve. Required.
	Replayer *replay.Replayer
	// Items reads items; Index lists them by state, and counts them when it
	// is a store.Counter (store.ItemIndex, store.Memory). Required.
	Items Items
	Index replay.Index
	// Log reads the error log; Trail the audit trail (optional).
	Log   ErrorLog
	Trail ops.ItemTrail
	// SQS reads the DLQs' depth; Queues names them.
	SQS    QueueDepth
	Queues map[work.Stage]replay.Queues
	// Models and Breakers are the health stores (optional).
	Models   health.Store
	Breakers breaker.Store
	// Days reads the budget table (optional).
	Days report.BudgetReader
	// Profile is the deployed retry profile; nil is not known.
	Profile *policy.Profile
	// By names the operator in replay records, resolutions and model
	// overrides.
	By string
	// Clock is injected; nil is the wall clock.
	Clock clock.Clock
	// Log receives one line per action; nil discards.
	Logger *slog.Logger
	// Missing says, for a nil optional field, how to name it ("models":
	// "pass --models-table or --stack").
	Missing map[string]string
	// Refresh, when positive, keeps the figures that grow with the tables
	// (item counts, dead-letter groups, the error log's last 24 hours) for
	// that long and reads them again in the background, so that a page
	// renders without waiting for them; zero reads them for every page.
	Refresh time.Duration
}

// Server is the console's HTTP handler. Build it with New.
type Server struct {
	b      Backend
	token  string
	cookie string
	csrf   string
	hosts  map[string]bool
	pages  map[string]*template.Template
	mux    *http.ServeMux

	// tally counts the items by state and stage (Index, when it counts).
	tally *store.Tally

	mu         sync.Mutex
	snap       *aggregates
	refreshing bool
	background sync.WaitGroup
}

// cookiePrefix starts the session cookie's name; the cookie holds the
// token itself, HttpOnly. Browsers keep cookies by host, not by port, so
// the name ends with a digest of the token: two consoles on loopback (one
// per stack) keep a cookie each.
const cookiePrefix = "triage_console_"

// NewToken returns a random token of 32 bytes, hex-encoded.
func NewToken() (string, error) {
	b := make([]byte, 32)
	if _, err := rand.Read(b); err != nil {
		return "", fmt.Errorf("console token: %w", err)
	}
	return hex.EncodeToString(b), nil
}

// New builds the console for b. token is what every request must present
// (NewToken); hosts are the Host headers it answers (the listening
// address, e.g. "127.0.0.1:8080"; empty accepts any loopback host, for
// tests).
func New(b Backend, token string, hosts ...string) (*Server, error) {
	if b.Replayer == nil || b.Items == nil || b.Index == nil {
		return nil, errors.New("console: Replayer, Items and Index are required")
	}
	if len(token) < 32 {
		return nil, errors.New("console: the token is too short")
	}
	if b.Logger == nil {
		b.Logger = slog.New(slog.DiscardHandler)
	}
	mac := hmac.New(sha256.New, []byte(token))
	mac.Write([]byte("triage console csrf"))
	digest := sha256.Sum256([]byte(token))
	s := &Server{b: b, token: token, cookie: cookiePrefix + hex.EncodeToString(digest[:6]), csrf: hex.EncodeToString(mac.Sum(nil)),
		hosts: map[string]bool{}, mux: http.NewServeMux()}
	for _, h := range hosts {
		s.hosts[h] = true
	}
	if c, ok := b.Index.(store.Counter); ok {
		s.tally = &store.Tally{Index: c}
	}
	if err := s.parse(); err != nil {
		return nil, err
	}
	static, err := fs.Sub(assets, "static")
	if err != nil {
		return nil, err
	}
	s.mux.Handle("GET /static/", http.StripPrefix("/static/", http.FileServerFS(static)))
	s.mux.HandleFunc("GET /{$}", s.overview)
	s.mux.HandleFunc("GET /dlq", s.deadLetters)
	s.mux.HandleFunc("GET /items/{id}", s.item)
	s.mux.HandleFunc("GET /item", s.item)
	s.mux.HandleFunc("GET /errors", s.errorLog)
	s.mux.HandleFunc("GET /unknown", s.unknown)
	s.mux.HandleFunc("GET /policy", s.policy)
	s.mux.HandleFunc("GET /states", s.states)
	s.mux.HandleFunc("POST /actions/replay", s.replay)
	s.mux.HandleFunc("POST /actions/resolve", s.resolve)
	s.mux.HandleFunc("POST /actions/model", s.model)
	s.mux.HandleFunc("POST /actions/breaker", s.breaker)
	return s, nil
}

func (s *Server) now() time.Time { return clock.Or(s.b.Clock).Now() }

// parse builds one template set per page: the layout, the shared parts and
// the page's own content.
func (s *Server) parse() error {
	funcs := template.FuncMap{
		"time": Time, "ago": func(t time.Time) string { return ago(t, s.now()) },
		"clean": clean, "dash": dash, "stages": work.Stages, "csrf": func() string { return s.csrf },
		"attempts": func(a map[work.Stage]int, st work.Stage) int { return a[st] },
		"usd":      func(v any) string { return usd(v) }, "yes": YesNo, "join": strings.Join, "add": func(a, b int) int { return a + b },
		"itemURL": ItemURL,
	}
	s.pages = map[string]*template.Template{}
	for _, page := range []string{"overview", "dlq", "item", "errors", "unknown", "policy", "action", "denied"} {
		t, err := template.New(page).Funcs(funcs).ParseFS(assets, "templates/layout.html", "templates/parts.html", "templates/"+page+".html")
		if err != nil {
			return fmt.Errorf("console templates: %w", err)
		}
		s.pages[page] = t
	}
	return nil
}

// ServeHTTP checks the host and the token, sets the security headers and
// serves the page or action.
func (s *Server) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	h := w.Header()
	h.Set("Content-Security-Policy", "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self'; connect-src 'self'; form-action 'self'; frame-ancestors 'none'; base-uri 'none'")
	h.Set("X-Frame-Options", "DENY")
	h.Set("X-Content-Type-Options", "nosniff")
	h.Set("Referrer-Policy", "no-referrer")
	h.Set("Cache-Control", "no-store")
	if !s.hostAllowed(r.Host) {
		http.Error(w, "console: unexpected Host header", http.StatusMisdirectedRequest)
		return
	}
	if t := r.URL.Query().Get("token"); t != "" {
		if !s.tokenOK(t) {
			s.deny(w, r)
			return
		}
		// Trade the token in the URL for a cookie, and take it out of the
		// address bar and the history.
		http.SetCookie(w, &http.Cookie{Name: s.cookie, Value: s.token, Path: "/", HttpOnly: true, SameSite: http.SameSiteStrictMode})
		q := r.URL.Query()
		q.Del("token")
		u := *r.URL
		u.RawQuery = q.Encode()
		http.Redirect(w, r, u.RequestURI(), http.StatusSeeOther)
		return
	}
	c, err := r.Cookie(s.cookie)
	if err != nil || !s.tokenOK(c.Value) {
		s.deny(w, r)
		return
	}
	if r.Method == http.MethodPost {
		if err := s.checkPost(r); err != nil {
			w.WriteHeader(http.StatusForbidden)
			s.render(w, r, "denied", denied("Refused", err.Error()))
			return
		}
	}
	s.mux.ServeHTTP(w, r)
}

func (s *Server) tokenOK(t string) bool {
	return subtle.ConstantTimeCompare([]byte(t), []byte(s.token)) == 1
}

func (s *Server) hostAllowed(host string) bool {
	if s.hosts[host] {
		return true
	}
	if len(s.hosts) > 0 {
		return false
	}
	h, _, err := net.SplitHostPort(host)
	if err != nil {
		h = host
	}
	if h == "localhost" {
		return true
	}
	ip := net.ParseIP(h)
	return ip != nil && ip.IsLoopback()
}

// checkPost is the CSRF check of an action: the browser's fetch metadata
// (Sec-Fetch-Site, when it sends it) says the request comes from this
// console's own pages, its Origin (when it sends one) is this console's —
// "null", what a sandboxed frame, a data: URL or a cross-origin redirect
// sends, is refused — and the form carries the csrf field.
func (s *Server) checkPost(r *http.Request) error {
	switch site := r.Header.Get("Sec-Fetch-Site"); site {
	case "", "same-origin", "none":
	default:
		return fmt.Errorf("a %s request (Sec-Fetch-Site): actions are taken from the console's own pages", clean(site))
	}
	if o := r.Header.Get("Origin"); o != "" && o != "http://"+r.Host {
		return fmt.Errorf("a cross-origin request from %s", clean(o))
	}
	if err := r.ParseForm(); err != nil {
		return fmt.Errorf("a malformed form: %v", err)
	}
	if subtle.ConstantTimeCompare([]byte(r.PostFormValue("csrf")), []byte(s.csrf)) != 1 {
		return errors.New("the form's CSRF token is missing or wrong: reload the page and try again")
	}
	return nil
}

// deniedData is the error page's: a title and why.
type deniedData struct{ Title, Reason string }

func denied(title, reason string) deniedData { return deniedData{Title: title, Reason: reason} }

// ItemURL is the console's address of an item's page: the id escaped as one
// path segment, so that any id — slashes, percent signs, spaces, unicode —
// comes back whole; an id that is "." or ".." (which a browser would
// resolve away) goes in the query instead.
func ItemURL(id string) string {
	if id == "." || id == ".." || id == "" {
		return "/item?id=" + url.QueryEscape(id)
	}
	return "/items/" + url.PathEscape(id)
}

func (s *Server) deny(w http.ResponseWriter, r *http.Request) {
	w.WriteHeader(http.StatusUnauthorized)
	s.render(w, r, "denied", denied("Not signed in", "this console needs the token in the URL triage console printed"))
}

// render executes page's layout, or only its "fragment" template for a
// script's request (X-Console-Fragment).
func (s *Server) render(w http.ResponseWriter, r *http.Request, page string, data any) {
	w.Header().Set("Content-Type", "text/html; charset=utf-8")
	name := "layout"
	if r.Header.Get("X-Console-Fragment") != "" && s.pages[page].Lookup("fragment") != nil {
		name = "fragment"
	}
	if err := s.pages[page].ExecuteTemplate(w, name, data); err != nil {
		s.b.Logger.Error("console render", "page", page, "err", err)
	}
}

// missing says how to name an optional source the console was not given.
func (s *Server) missing(what string) string {
	if m := s.b.Missing[what]; m != "" {
		return "not shown: " + m
	}
	return "not shown: not configured"
}
