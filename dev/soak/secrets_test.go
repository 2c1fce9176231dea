package soak

import (
	"encoding/json"
	"io"
	"math/rand/v2"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/triagehq/triage/dev/local/devstack"
	"github.com/triagehq/triage/internal/redact"
)

func planted(seed uint64) *Planted {
	return PlantSecrets(rand.New(rand.NewPCG(seed, 0x5ec7)), []string{"item-0001", "item-0002", "item-0003", "item-0004",
		"item-0005", "item-0006", "item-0007", "item-0008", "item-0009", "item-0010", "item-0011"})
}

func TestPlantSecrets(t *testing.T) {
	t.Parallel()
	p, again := planted(3), planted(3)
	if len(p.Secrets) != 14 || len(p.Items) != len(secretRoles) {
		t.Fatalf("%d secrets, %d items", len(p.Secrets), len(p.Items))
	}
	for i, s := range p.Secrets {
		if s.Value != again.Secrets[i].Value {
			t.Errorf("%s differs between two plantings of one seed", s.Name)
		}
		if len(s.Needles) == 0 || s.Needles[0] != s.Value {
			t.Errorf("%s: needles %v do not start with the value", s.Name, s.Needles)
		}
	}
	if !luhnValid(strings.ReplaceAll(p.card, " ", "")) {
		t.Errorf("card %s fails the Luhn check", p.card)
	}
	if planted(4).apiKey == p.apiKey {
		t.Error("two seeds planted the same key")
	}

	src := p.SourceURL("http://127.0.0.1:1", "item-0001")
	hook := p.WebhookURL("http://127.0.0.1:2", "item-0001")
	text := p.ArticleText("item-0003")
	for what, s := range map[string]string{"source URL": src, "webhook URL": hook, "article": text} {
		found := false
		for _, sec := range p.Secrets {
			if strings.Contains(s, sec.Value) {
				found = true
			}
		}
		if !found {
			t.Errorf("the %s carries no secret: %s", what, s)
		}
	}
	for _, v := range []string{p.apiKey, p.email, p.card, p.jwt, p.gitlab, p.doToken} {
		if !strings.Contains(text, v) {
			t.Errorf("the article lacks %s", v)
		}
	}
	if plain := p.ArticleText("item-0020"); strings.Contains(plain, p.apiKey) || p.SourceURL("u", "item-0020") != "u/articles/item-0020" {
		t.Error("an item without a role carries secrets")
	}
	var none *Planted
	if none.Has("item-0001") || none.WebhookURL("u", "item-0001") != "u/hooks/soak" {
		t.Error("a nil Planted plants something")
	}
}

func TestPlantedWrap(t *testing.T) {
	t.Parallel()
	p := planted(5)
	reached := map[string]string{}
	inner := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		reached[r.Header.Get("X-Triage-Item-Id")+r.Header.Get("Idempotency-Key")] = r.URL.Path
		w.WriteHeader(http.StatusOK)
	})
	call := func(fake, method, path string, hdr map[string]string) (int, string) {
		req := httptest.NewRequest(method, path, strings.NewReader("{}"))
		for k, v := range hdr {
			req.Header.Set(k, v)
		}
		rec := httptest.NewRecorder()
		p.Wrap(fake, inner).ServeHTTP(rec, req)
		b, _ := io.ReadAll(rec.Result().Body)
		return rec.Code, string(b)
	}
	roleItem := func(r secretRole) string {
		for id, role := range p.roles {
			if role == r {
				return id
			}
		}
		t.Fatalf("no item has role %s", r)
		return ""
	}

	id := roleItem(roleLLMEcho401)
	code, body := call(devstack.FakeLLM, "POST", "/v1/chat/completions", map[string]string{"X-Triage-Item-Id": id,
		"Authorization": "Bearer " + devstack.LLMKey})
	if code != 401 || !strings.Contains(body, devstack.LLMKey) || !strings.Contains(body, p.apiKey) {
		t.Errorf("llm 401: %d %s", code, body)
	}
	id = roleItem(roleLLMEcho500)
	if code, body = call(devstack.FakeLLM, "POST", "/v1/chat/completions", map[string]string{"X-Triage-Item-Id": id}); code != 500 ||
		!strings.Contains(body, p.llmBearer) {
		t.Errorf("llm 500: %d %s", code, body)
	}
	if code, _ = call(devstack.FakeLLM, "POST", "/v1/chat/completions", map[string]string{"X-Triage-Item-Id": id}); code != 200 {
		t.Errorf("the second call of an echo-500 item did not reach the fake: %d", code)
	}
	id = roleItem(roleLLMEchoInvalid)
	_, body = call(devstack.FakeLLM, "POST", "/v1/chat/completions", map[string]string{"X-Triage-Item-Id": id})
	var completion struct {
		Choices []struct {
			Message struct{ Content string }
		}
	}
	if json.Unmarshal([]byte(body), &completion) != nil || len(completion.Choices) != 1 ||
		!strings.Contains(completion.Choices[0].Message.Content, p.jwt) {
		t.Errorf("llm invalid answer: %s", body)
	}
	id = roleItem(roleHookEcho401)
	if code, body = call(devstack.FakeWebhook, "POST", "/hooks/services/T/B/"+p.slackPath, map[string]string{"Idempotency-Key": id + ":notify"}); code != 401 ||
		!strings.Contains(body, p.hookBearer) {
		t.Errorf("webhook 401: %d %s", code, body)
	}
	id = roleItem(rolePromptRetry)
	if code, _ = call(devstack.FakeWebhook, "POST", "/hooks/services/T/B/"+p.slackPath, map[string]string{"Idempotency-Key": id + ":notify"}); code != 200 ||
		reached[id+":notify"] != "/hooks/slack-soak" {
		t.Errorf("the Slack-shaped path did not reach the receiver as /hooks/slack-soak: %d %v", code, reached)
	}
	id = roleItem(roleFetchEcho)
	if code, body = call(devstack.FakeArticles, "GET", "/articles/"+id+"?token=x", nil); code != 404 || !strings.Contains(body, p.urlToken) {
		t.Errorf("article 404: %d %s", code, body)
	}
}

func TestSecretScan(t *testing.T) {
	t.Parallel()
	s := NewSecretScan([]Secret{{Name: "key", Value: "sk-proj-abcdefghijkl", Needles: []string{"sk-proj-abcdefghijkl", "abcdefghijkl"}}})
	s.Line("LLMFunc", `{"error":"key [REDACTED:openai-key]"}`)
	s.Line("LLMFunc", `{"error":"key sk-proj-abcdefghijkl"}`)
	s.Search(CorpusDLQ, "m-1", `{"last_stack":"…abcdefghijkl…"}`)
	leaks := s.Leaks()
	if len(leaks) != 2 || leaks[0].Where != "LLMFunc line 2" || leaks[0].Needle != "exact value" ||
		leaks[1].Needle != "fragment abcdefghijkl" || leaks[1].Corpus != CorpusDLQ {
		t.Fatalf("leaks %+v", leaks)
	}
	if got := s.Searched(); got[CorpusLogs] != 2 || got[CorpusDLQ] != 1 {
		t.Fatalf("searched %v", got)
	}
}

// TestSecretScanRunsGitleaks: a credential nobody planted is found by
// gitleaks' default rules, reported by rule without its value; the same
// text redacted is clean.
func TestSecretScanRunsGitleaks(t *testing.T) {
	t.Parallel()
	s := NewSecretScan(nil)
	if s.GitleaksErr != nil {
		t.Fatal(s.GitleaksErr)
	}
	token := "glpat-" + "Zq3xV9kLm2Pw8RtY4bNc"
	line := `{"level":"error","error":"clone failed: remote said 401 for ` + token + `"}`
	s.Line("FetchFunc", line)
	s.Line("FetchFunc", redact.String(line))
	leaks := s.Leaks()
	if len(leaks) != 1 || leaks[0].Needle != GitleaksNeedle+"gitlab-pat" || leaks[0].Where != "FetchFunc line 1" {
		t.Fatalf("leaks %+v", leaks)
	}
	if strings.Contains(leaks[0].Secret+leaks[0].Needle+leaks[0].Where, token) {
		t.Errorf("the leak repeats the secret: %+v", leaks[0])
	}
}
