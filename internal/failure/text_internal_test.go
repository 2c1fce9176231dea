package failure

import (
	"bufio"
	"math/rand/v2"
	"net/http"
	"os"
	"regexp"
	"strconv"
	"strings"
	"testing"
)

// ownHTTPExpression is what ownHTTP parses by hand.
var ownHTTPExpression = regexp.MustCompile(`(?:^|: )([a-z][a-z0-9._-]{1,39})(?: ([^:\n]{0,80}))?: HTTP ([1-5]\d\d)(?: ([^\s:]{1,100}))?(?::|$)`)

// TestOwnHTTPIsTheExpression: ownHTTP agrees with the expression it
// replaces on rendered errors, on the corpus and on mutations of both.
func TestOwnHTTPIsTheExpression(t *testing.T) {
	t.Parallel()
	var texts []string
	for _, p := range []Provider{OpenAI, Azure, Anthropic, Bedrock, Gemini, Webhook, AWS, HTTP, "groq", "acme-llm"} {
		for _, st := range []int{200, 400, 429, 503} {
			for _, body := range []string{"", `{"error":{"code":"rate_limit_exceeded","message":"slow down: now"}}`, "<html>Service Unavailable</html>"} {
				e := &HTTPError{Provider: p, Op: "chat.completions", Status: st, Header: http.Header{}, Body: []byte(body)}
				texts = append(texts, e.Error(), "fetch story-1: "+e.Error(), e.Error()+": context canceled")
			}
		}
	}
	for _, f := range []string{"../../cmd/triage/testdata/corpus/failures.jsonl", "../../cmd/triage/testdata/corpus/holdout.jsonl"} {
		fh, err := os.Open(f)
		if err != nil {
			t.Fatal(err)
		}
		sc := bufio.NewScanner(fh)
		sc.Buffer(nil, 1<<20)
		for sc.Scan() {
			texts = append(texts, sc.Text())
		}
		fh.Close()
	}
	texts = append(texts, "openai: HTTP 429", "x: aws op: HTTP 500 Code", "aws op: HTTP 500 Code more", "http "+strings.Repeat("o", 81)+": HTTP 404",
		"http "+strings.Repeat("o", 80)+": HTTP 404", "http a:b: HTTP 404", "webhook: HTTP 600", "webhook: HTTP 4041", "webhook: HTTP 404 "+strings.Repeat("c", 101),
		"webhook: HTTP 404 "+strings.Repeat("c", 100)+":", "azure\nop: HTTP 404", "bedrock op: HTTP 404 \tcode", "http: HTTP 503 a\u00a0b: x",
		"Groq chat: HTTP 429", "a chat: HTTP 429", strings.Repeat("g", 41)+": HTTP 500", strings.Repeat("g", 40)+": HTTP 500", "9x: HTTP 500",
		"request failed: HTTP 502", "vllm chat.completions: HTTP 400 BadRequestError: max")
	rng := rand.New(rand.NewPCG(1, 2))
	n := len(texts)
	for i := 0; i < 4000; i++ {
		s := []byte(texts[rng.IntN(n)])
		for k := 0; k < 3 && len(s) > 0; k++ {
			j := rng.IntN(len(s))
			switch rng.IntN(4) {
			case 0:
				s = append(s[:j], s[j+1:]...)
			case 1:
				s[j] = ": \n\tHTTP45x"[rng.IntN(11)]
			case 2:
				s = append(s[:j], append([]byte(": HTTP 4"), s[j:]...)...)
			case 3:
				s = s[:j]
			}
		}
		texts = append(texts, string(s))
	}
	for _, s := range texts {
		p, op, st, code, ok := ownHTTP(s)
		m := ownHTTPExpression.FindStringSubmatch(s)
		if ok != (m != nil) || ok && (p != m[1] || op != m[2] || strconv.Itoa(st) != m[3] || code != m[4]) {
			t.Errorf("ownHTTP(%q) = %q %q %d %q %v; the expression says %q", s, p, op, st, code, ok, m)
		}
	}
}
