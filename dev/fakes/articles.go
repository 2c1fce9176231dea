package fakes

import (
	"net/http"
	"strconv"
	"strings"
	"time"
)

// Defaults of ArticleOptions.
const (
	// DefaultArticleSize is ArticleOptions.Size when it is zero.
	DefaultArticleSize = 2048
	// DefaultHugeSize is ArticleOptions.HugeSize when it is zero: 50 MiB.
	DefaultHugeSize = 50 << 20
	// DefaultArticleRetryAfter is ArticleOptions.RetryAfter when it is zero.
	DefaultArticleRetryAfter = time.Second
	// DefaultSlowChunks is ArticleOptions.SlowChunks when it is zero.
	DefaultSlowChunks = 10
	// DefaultSlowInterval is ArticleOptions.SlowInterval when it is zero.
	DefaultSlowInterval = 200 * time.Millisecond
)

// ArticleOptions configures NewArticles. The zero value serves ~2 KiB
// articles and a 50 MiB huge body.
type ArticleOptions struct {
	Shared
	// Size is the length an article reaches at least, in bytes; the text ends
	// at the first sentence past it. 0 means DefaultArticleSize.
	Size int
	// HugeSize is the length of a huge body, in bytes; 0 means
	// DefaultHugeSize. The body is generated while it is written, never held.
	HugeSize int64
	// RetryAfter is the Retry-After of rate_limit and unavailable; 0 means
	// DefaultArticleRetryAfter.
	RetryAfter time.Duration
	// SlowChunks is how many pieces the slow fault splits the article into;
	// one arrives every SlowInterval, so the body takes SlowChunks ×
	// SlowInterval (2 s by default). 0 means DefaultSlowChunks.
	SlowChunks int
	// SlowInterval is the wait before each piece of a slow body; 0 means
	// DefaultSlowInterval.
	SlowInterval time.Duration
	// Text, if set, returns the article for an id in place of
	// ArticleText(id, Size); faults still apply (the soak plants secrets in
	// articles this way). Huge bodies are always generated.
	Text func(id string) string
}

// Articles is a fake article server:
//
//	GET /articles/{id}
//
// A normal answer is a 200 text/plain article generated deterministically
// from the id (see Text). The fault plan is keyed on the id; for one call the
// outage switch wins, then the plan. The control API is described in the
// package documentation.
type Articles struct {
	*Plan

	opts ArticleOptions
	rec  *recorder
	mux  *http.ServeMux
}

// NewArticles returns a fake article server; it is an http.Handler.
func NewArticles(opts ArticleOptions) *Articles {
	opts.Shared = opts.Shared.withDefaults()
	opts.Size = positiveOr(opts.Size, DefaultArticleSize)
	opts.HugeSize = positiveOr(opts.HugeSize, DefaultHugeSize)
	opts.RetryAfter = positiveOr(opts.RetryAfter, DefaultArticleRetryAfter)
	opts.SlowChunks = positiveOr(opts.SlowChunks, DefaultSlowChunks)
	opts.SlowInterval = positiveOr(opts.SlowInterval, DefaultSlowInterval)
	a := &Articles{Plan: NewPlan(ArticleFaults()...), opts: opts, mux: http.NewServeMux()}
	a.rec = newRecorder(a.Plan, opts.Shared)
	a.mux.HandleFunc("GET /articles/{id}", a.article)
	a.rec.register(a.mux, a.Stats, a.Reset)
	return a
}

// ServeHTTP serves articles and the control API.
func (a *Articles) ServeHTTP(w http.ResponseWriter, r *http.Request) { a.mux.ServeHTTP(w, r) }

// Reset forgets calls and stats and clears the plan and switches.
func (a *Articles) Reset() {
	a.Plan.Reset()
	a.rec.reset()
}

// Stats returns what the server has answered, per key, fault and status,
// with its plan.
func (a *Articles) Stats() Stats { return a.rec.stats() }

// Text returns the article the server answers for id: ArticleOptions.Text's,
// or ArticleText(id, Size).
func (a *Articles) Text(id string) string {
	if a.opts.Text != nil {
		return a.opts.Text(id)
	}
	return ArticleText(id, a.opts.Size)
}

func (a *Articles) article(w http.ResponseWriter, r *http.Request) {
	sw := &statusWriter{ResponseWriter: w}
	id := r.PathValue("id")
	d := a.Decide(id)
	call := a.rec.begin(Call{Key: id, Call: d.Call, Fault: d.Fault, Outage: d.Outage})
	defer func() { a.rec.finish(call, sw.status) }()

	retryAfter := seconds(a.opts.RetryAfter)
	switch d.Fault {
	case FaultNotFound:
		writeText(sw, http.StatusNotFound, "article not found\n")
	case FaultGone:
		writeText(sw, http.StatusGone, "article removed\n")
	case FaultServerError:
		writeText(sw, http.StatusInternalServerError, "internal server error\n")
	case FaultUnavailable:
		sw.Header().Set("Retry-After", retryAfter)
		writeText(sw, http.StatusServiceUnavailable, "service unavailable\n")
	case FaultRateLimit:
		sw.Header().Set("Retry-After", retryAfter)
		writeText(sw, http.StatusTooManyRequests, "too many requests\n")
	case FaultHang:
		hang(sw, r, a.opts.MaxHang)
	case FaultSlow:
		a.slow(sw, r, a.Text(id))
	case FaultHuge:
		a.huge(sw, r, id)
	case FaultReset:
		text := a.Text(id)
		resetConnection(sw, "text/plain; charset=utf-8", len(text), []byte(text[:len(text)/4]))
	case FaultEmpty:
		// A 200 with nothing in it: a document the fetch stage must refuse.
		writeText(sw, http.StatusOK, "")
	default:
		writeText(sw, http.StatusOK, a.Text(id))
	}
}

// slow writes text in SlowChunks pieces, one every SlowInterval.
func (a *Articles) slow(w http.ResponseWriter, r *http.Request, text string) {
	w.Header().Set("Content-Type", "text/plain; charset=utf-8")
	w.Header().Set("Content-Length", strconv.Itoa(len(text)))
	w.WriteHeader(http.StatusOK)
	rc := http.NewResponseController(w)
	_ = rc.Flush()
	n := a.opts.SlowChunks
	for i := range n {
		if !pause(r, a.opts.SlowInterval) {
			abort()
		}
		if _, err := w.Write([]byte(text[i*len(text)/n : (i+1)*len(text)/n])); err != nil {
			return
		}
		_ = rc.Flush()
	}
}

// huge streams HugeSize bytes of article text without a Content-Length,
// repeating one generated block, so the server holds a block, not the body.
func (a *Articles) huge(w http.ResponseWriter, r *http.Request, id string) {
	block := []byte(ArticleText(id, 32<<10))
	w.Header().Set("Content-Type", "text/plain; charset=utf-8")
	w.WriteHeader(http.StatusOK)
	for left := a.opts.HugeSize; left > 0; {
		if r.Context().Err() != nil {
			abort()
		}
		chunk := block[:min(int64(len(block)), left)]
		if _, err := w.Write(chunk); err != nil {
			return // the client stopped reading
		}
		left -= int64(len(chunk))
	}
}

// Vocabulary of generated articles. Names are capitalised so that the fake
// LLM finds entities in them.
var (
	articleSubjects = []string{
		"Acme Corp", "Globex", "Initech", "Umbrella Health", "Northwind Traders", "Maria Lopez", "Chen Wei",
		"Priya Natarajan", "the city council", "the regulator", "Jonas Berg", "the union",
	}
	articleVerbs = []string{
		"announced", "denied", "confirmed", "delayed", "expanded", "questioned", "approved", "launched",
		"investigated", "paused",
	}
	articleObjects = []string{
		"a new data centre", "the quarterly results", "a security patch", "the merger", "a pilot programme",
		"the price increase", "a recall", "the proposal", "an internal review", "the outage report",
	}
	articleTails = []string{
		"on Tuesday", "after weeks of speculation", "citing rising costs", "despite objections from staff",
		"according to people familiar with the matter", "in a brief statement", "ahead of the deadline",
		"for the second time this year",
	}
)

// ArticleText returns the article for id: a title line, then paragraphs of
// four sentences separated by blank lines, ending at the first sentence that
// reaches size bytes. The same id and size always give the same text.
func ArticleText(id string, size int) string {
	state := HashString(id)
	pick := func(words []string) string {
		state = splitmix64(state)
		return words[state%uint64(len(words))]
	}
	var b strings.Builder
	b.Grow(size + 256)
	b.WriteString("Article " + id + ": " + capitalize(pick(articleSubjects)) + " " + pick(articleVerbs) + " " +
		pick(articleObjects) + "\n")
	for i := 0; b.Len() < size; i++ {
		if i%4 == 0 {
			b.WriteString("\n")
		} else {
			b.WriteString(" ")
		}
		b.WriteString(capitalize(pick(articleSubjects)) + " " + pick(articleVerbs) + " " + pick(articleObjects) +
			" " + pick(articleTails) + ".")
	}
	b.WriteString("\n")
	return b.String()
}

func capitalize(s string) string {
	if s == "" || s[0] < 'a' || s[0] > 'z' {
		return s
	}
	return string(s[0]-'a'+'A') + s[1:]
}
