package fakes

import (
	"net/http"
	"slices"
	"strings"
	"testing"
)

// TestControlAPIRoundTrip drives a fake only through /_fake/ and checks both
// its answers and what /_fake/stats reports.
func TestControlAPIRoundTrip(t *testing.T) {
	t.Parallel()
	a := NewArticles(ArticleOptions{})
	base := serve(t, a)
	get := func(id string) int {
		return do(t, nil, newRequest(t, http.MethodGet, base+"/articles/"+id, nil, nil)).status
	}

	control(t, base, "/_fake/script", ScriptRequest{Scripts: map[string][]Fault{
		"a1": {FaultRateLimit, FaultNone, Always(FaultGone)},
	}}, http.StatusOK)
	if got := []int{get("a1"), get("a1"), get("a1"), get("a1")}; !slices.Equal(got, []int{429, 200, 410, 410}) {
		t.Errorf("scripted a1 = %v", got)
	}

	control(t, base, "/_fake/mix", Mix{Seed: 7, Rates: map[Fault]float64{FaultNotFound: 1}}, http.StatusOK)
	if got := get("fresh"); got != 404 {
		t.Errorf("mixed key = %d, want 404", got)
	}
	control(t, base, "/_fake/fix", map[string]bool{"on": true}, http.StatusOK)
	if got := []int{get("fresh"), get("a1")}; !slices.Equal(got, []int{200, 200}) {
		t.Errorf("fixed = %v, want 200s", got)
	}
	control(t, base, "/_fake/outage", map[string]any{"on": true}, http.StatusOK)
	if got := get("fresh"); got != 503 {
		t.Errorf("outage = %d, want 503", got)
	}

	s := fetchStats(t, base)
	if !s.Outage || s.OutageMode != OutageUnavailable || !s.Fixed {
		t.Errorf("switches = outage %v %s, fixed %v", s.Outage, s.OutageMode, s.Fixed)
	}
	if s.Mix.Seed != 7 || s.Mix.Rates[FaultNotFound] != 1 {
		t.Errorf("mix = %+v", s.Mix)
	}
	if got := s.Scripts["a1"]; !slices.Equal(got, []Fault{FaultRateLimit, FaultNone, Always(FaultGone)}) {
		t.Errorf("scripts = %v", s.Scripts)
	}
	if s.Requests != 8 || s.Calls["a1"] != 5 || s.Calls["fresh"] != 3 {
		t.Errorf("requests %d calls %v", s.Requests, s.Calls)
	}
	wantFaults := map[Fault]int{FaultRateLimit: 1, FaultNone: 3, FaultGone: 2, FaultNotFound: 1, FaultUnavailable: 1}
	for f, n := range wantFaults {
		if s.Faults[f] != n {
			t.Errorf("faults[%s] = %d, want %d (all %v)", f, s.Faults[f], n, s.Faults)
		}
	}
	if s.Statuses[200] != 3 || s.Statuses[410] != 2 || len(s.Recent) != 8 || s.Recent[0].Fault != FaultRateLimit {
		t.Errorf("statuses %v recent %+v", s.Statuses, s.Recent)
	}

	control(t, base, "/_fake/reset", nil, http.StatusOK)
	s = fetchStats(t, base)
	if s.Outage || s.Fixed || s.Requests != 0 || len(s.Scripts) != 0 || len(s.Mix.Rates) != 0 || len(s.Recent) != 0 {
		t.Errorf("after reset: %+v", s)
	}
	if got := get("a1"); got != 200 {
		t.Errorf("a1 after reset = %d, want 200", got)
	}
}

func TestControlAPIRejects(t *testing.T) {
	t.Parallel()
	b := setupLLM(t, LLMOptions{})
	tests := map[string]struct {
		path string
		body string
		want string
	}{
		"unknown fault":         {"/_fake/script", `{"scripts":{"k":["teapot"]}}`, "unknown fault"},
		"fault of another fake": {"/_fake/script", `{"scripts":{"k":["huge"]}}`, "not supported"},
		"unknown field":         {"/_fake/script", `{"script":{"k":["hang"]}}`, "unknown field"},
		"rates too high":        {"/_fake/mix", `{"seed":1,"rates":{"hang":0.7,"rate_limit":0.7}}`, "sum"},
		"mix unknown fault":     {"/_fake/mix", `{"rates":{"teapot":0.1}}`, "unknown fault"},
		"switch without on":     {"/_fake/outage", `{}`, "must set"},
		"bad outage mode":       {"/_fake/outage", `{"on":true,"mode":"flood"}`, "outage mode"},
		"mode on fix":           {"/_fake/fix", `{"on":true,"mode":"hang"}`, "outage only"},
		"not json":              {"/_fake/fix", `on`, "decode"},
		"trailing data":         {"/_fake/fix", `{"on":true}{}`, "trailing"},
		"model fault":           {"/_fake/models", `{"model_faults":{"m":"gone"}}`, "not supported"},
	}
	for name, tt := range tests {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			r := do(t, nil, newRequest(t, http.MethodPost, b.base+tt.path, []byte(tt.body), nil))
			if r.status != http.StatusBadRequest || !strings.Contains(string(r.body), tt.want) {
				t.Errorf("POST %s %s = %d %s, want 400 ~%q", tt.path, tt.body, r.status, r.body, tt.want)
			}
		})
	}
	if r := do(t, nil, newRequest(t, http.MethodGet, b.base+"/_fake/reset", nil, nil)); r.status != http.StatusMethodNotAllowed {
		t.Errorf("GET /_fake/reset = %d, want 405", r.status)
	}
	if s := b.llm.Stats(); len(s.Scripts) != 0 || len(s.Mix.Rates) != 0 || s.Outage || s.Fixed || len(s.ModelFaults) != 0 {
		t.Errorf("a rejected request changed the fake: %+v", s)
	}
}

func TestControlModelsAndOutageHang(t *testing.T) {
	t.Parallel()
	b := setupLLM(t, LLMOptions{})
	control(t, b.base, "/_fake/models", ModelFaultsRequest{ModelFaults: map[string]Fault{"bad-model": FaultInvalidJSON}}, http.StatusOK)
	control(t, b.base, "/_fake/outage", map[string]any{"on": true, "mode": "hang"}, http.StatusOK)
	s := fetchStats(t, b.base)
	if s.ModelFaults["bad-model"] != FaultInvalidJSON || !s.Outage || s.OutageMode != OutageHang {
		t.Errorf("stats = model faults %v outage %v %s", s.ModelFaults, s.Outage, s.OutageMode)
	}
	if on, mode := b.llm.Outage(); !on || mode != OutageHang {
		t.Errorf("Outage() = %v %s", on, mode)
	}
}
