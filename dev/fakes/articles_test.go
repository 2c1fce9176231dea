package fakes

import (
	"io"
	"net/http"
	"strings"
	"testing"
	"time"
)

func TestArticleText(t *testing.T) {
	t.Parallel()
	tests := map[string]struct {
		id   string
		size int
	}{
		"small":   {"a1", 100},
		"default": {"story-42", DefaultArticleSize},
		"large":   {"x", 64 << 10},
	}
	for name, tt := range tests {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			text := ArticleText(tt.id, tt.size)
			if len(text) < tt.size || len(text) > tt.size+300 {
				t.Errorf("len = %d, want about %d", len(text), tt.size)
			}
			if !strings.HasPrefix(text, "Article "+tt.id+": ") {
				t.Errorf("text starts %q", text[:40])
			}
			if again := ArticleText(tt.id, tt.size); again != text {
				t.Error("ArticleText is not deterministic")
			}
			if ArticleText(tt.id+"-other", tt.size) == text {
				t.Error("different ids give the same text")
			}
			if len(EnrichmentFor(text).TopEntities) == 0 {
				t.Error("the fake LLM finds no entities in the article")
			}
		})
	}
}

func TestArticles(t *testing.T) {
	t.Parallel()
	a := NewArticles(ArticleOptions{SlowChunks: 4, SlowInterval: time.Millisecond})
	base := serve(t, a)
	tests := map[Fault]struct {
		status     int
		retryAfter string
		body       string // a substring; "" means the article itself
	}{
		FaultNone:        {200, "", ""},
		FaultNotFound:    {404, "", "not found"},
		FaultGone:        {410, "", "removed"},
		FaultServerError: {500, "", "internal server error"},
		FaultUnavailable: {503, "1", "unavailable"},
		FaultRateLimit:   {429, "1", "too many requests"},
		FaultSlow:        {200, "", ""},
		FaultEmpty:       {200, "", "<empty>"},
	}
	for fault, want := range tests {
		t.Run(string(fault), func(t *testing.T) {
			t.Parallel()
			id := "article-" + string(fault)
			if err := a.SetScript(id, fault); err != nil {
				t.Fatal(err)
			}
			r := do(t, nil, newRequest(t, http.MethodGet, base+"/articles/"+id, nil, nil))
			if r.status != want.status {
				t.Fatalf("status = %d, want %d", r.status, want.status)
			}
			if got := r.header.Get("Retry-After"); got != want.retryAfter {
				t.Errorf("Retry-After = %q, want %q", got, want.retryAfter)
			}
			if ct := r.header.Get("Content-Type"); ct != "text/plain; charset=utf-8" {
				t.Errorf("Content-Type = %q", ct)
			}
			switch {
			case want.body == "<empty>":
				if len(r.body) != 0 {
					t.Errorf("body = %q, want none", r.body)
				}
			case want.body == "":
				if string(r.body) != a.Text(id) {
					t.Errorf("body = %q, want the article", r.body)
				}
			case !strings.Contains(string(r.body), want.body):
				t.Errorf("body = %q, want ~%q", r.body, want.body)
			}
		})
	}
}

// TestArticlesHugeIsStreamed reads past 1 MiB of a 50 MiB body and stops: the
// body arrives without a Content-Length, and the client can bound it.
func TestArticlesHugeIsStreamed(t *testing.T) {
	t.Parallel()
	a := NewArticles(ArticleOptions{})
	base := serve(t, a)
	if err := a.SetScript("big", FaultHuge); err != nil {
		t.Fatal(err)
	}
	resp, err := http.Get(base + "/articles/big")
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK || resp.ContentLength != -1 {
		t.Errorf("status %d, Content-Length %d; want 200 and unknown length", resp.StatusCode, resp.ContentLength)
	}
	const limit = 1<<20 + 1
	n, err := io.Copy(io.Discard, io.LimitReader(resp.Body, limit))
	if err != nil || n != limit {
		t.Fatalf("read %d bytes, %v; want %d", n, err, limit)
	}
}

func TestArticlesHugeSizeIsExact(t *testing.T) {
	t.Parallel()
	a := NewArticles(ArticleOptions{HugeSize: 100_000})
	base := serve(t, a)
	if err := a.SetScript("big", FaultHuge); err != nil {
		t.Fatal(err)
	}
	r := do(t, nil, newRequest(t, http.MethodGet, base+"/articles/big", nil, nil))
	if len(r.body) != 100_000 {
		t.Errorf("huge body = %d bytes, want 100000", len(r.body))
	}
}
