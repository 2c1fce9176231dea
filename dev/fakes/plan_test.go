package fakes

import (
	"fmt"
	"slices"
	"strings"
	"sync"
	"testing"
)

func TestParseFault(t *testing.T) {
	t.Parallel()
	tests := map[string]struct {
		in      string
		want    Fault
		wantErr string
	}{
		"name":             {in: "rate_limit", want: FaultRateLimit},
		"always":           {in: "always:invalid_json", want: Always(FaultInvalidJSON)},
		"empty is none":    {in: "", want: FaultNone},
		"ok is none":       {in: "ok", want: FaultNone},
		"spaces":           {in: " hang ", want: FaultHang},
		"unknown":          {in: "teapot", wantErr: "unknown fault"},
		"always none":      {in: "always:none", wantErr: "only a fault can be persistent"},
		"always unknown":   {in: "always:teapot", wantErr: "unknown fault"},
		"double always":    {in: "always:always:hang", wantErr: "unknown fault"},
		"case is explicit": {in: "Rate_Limit", wantErr: "unknown fault"},
	}
	for name, tt := range tests {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			got, err := ParseFault(tt.in)
			if tt.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
					t.Fatalf("ParseFault(%q) error = %v, want containing %q", tt.in, err, tt.wantErr)
				}
				return
			}
			if err != nil || got != tt.want {
				t.Fatalf("ParseFault(%q) = %q, %v; want %q", tt.in, got, err, tt.want)
			}
		})
	}
}

func TestFaultTraits(t *testing.T) {
	t.Parallel()
	tests := []struct {
		fault                    Fault
		base                     Fault
		repeats, permanent, stky bool
	}{
		{FaultRateLimit, FaultRateLimit, false, false, false},
		{Always(FaultRateLimit), FaultRateLimit, true, false, true},
		{FaultContentPolicy, FaultContentPolicy, false, true, true},
		{Always(FaultContentPolicy), FaultContentPolicy, true, true, true},
		{"", FaultNone, false, false, false},
		{Always(FaultNone), FaultNone, false, false, false},
	}
	for _, tt := range tests {
		t.Run(string(tt.fault), func(t *testing.T) {
			t.Parallel()
			if got := tt.fault.Base(); got != tt.base {
				t.Errorf("Base = %q, want %q", got, tt.base)
			}
			if got := tt.fault.Repeats(); got != tt.repeats {
				t.Errorf("Repeats = %v, want %v", got, tt.repeats)
			}
			if got := tt.fault.Permanent(); got != tt.permanent {
				t.Errorf("Permanent = %v, want %v", got, tt.permanent)
			}
			if got := tt.fault.sticky(); got != tt.stky {
				t.Errorf("sticky = %v, want %v", got, tt.stky)
			}
		})
	}
}

func TestFaultListsAreKnown(t *testing.T) {
	t.Parallel()
	all := Faults()
	for name, list := range map[string][]Fault{"llm": LLMFaults(), "articles": ArticleFaults(), "webhook": WebhookFaults()} {
		if list[0] != FaultNone {
			t.Errorf("%s faults start with %q, want none", name, list[0])
		}
		for _, f := range list {
			if !slices.Contains(all, f) {
				t.Errorf("%s fault %q is not in Faults()", name, f)
			}
		}
	}
	seen := map[Fault]bool{}
	for _, f := range all {
		if seen[f] {
			t.Errorf("fault %q listed twice", f)
		}
		seen[f] = true
		if !f.Valid() {
			t.Errorf("fault %q is not Valid", f)
		}
	}
}

// callsOf decides n calls for key and returns their faults.
func callsOf(p *Plan, key string, n int) []Fault {
	out := make([]Fault, n)
	for i := range out {
		out[i] = p.Decide(key).Fault
	}
	return out
}

func TestPlanScripts(t *testing.T) {
	t.Parallel()
	tests := map[string]struct {
		script []Fault
		want   []Fault
	}{
		"in order, then success": {
			script: []Fault{FaultRateLimit, FaultServerError},
			want:   []Fault{FaultRateLimit, FaultServerError, FaultNone, FaultNone},
		},
		"explicit success in the middle": {
			script: []Fault{FaultHang, FaultNone, FaultUnavailable},
			want:   []Fault{FaultHang, FaultNone, FaultUnavailable, FaultNone},
		},
		"persistent last entry repeats": {
			script: []Fault{FaultRateLimit, Always(FaultInvalidJSON)},
			want:   []Fault{FaultRateLimit, FaultInvalidJSON, FaultInvalidJSON, FaultInvalidJSON, FaultInvalidJSON},
		},
		"persistent entry shadows the rest": {
			script: []Fault{Always(FaultEmpty), FaultRateLimit},
			want:   []Fault{FaultEmpty, FaultEmpty, FaultEmpty},
		},
		"permanent fault without always ends": {
			script: []Fault{FaultContentPolicy},
			want:   []Fault{FaultContentPolicy, FaultNone},
		},
	}
	for name, tt := range tests {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			p := NewPlan()
			if err := p.SetScript("item-1", tt.script...); err != nil {
				t.Fatal(err)
			}
			if got := callsOf(p, "item-1", len(tt.want)); !slices.Equal(got, tt.want) {
				t.Errorf("calls = %v, want %v", got, tt.want)
			}
			if got := callsOf(p, "other", 2); !slices.Equal(got, []Fault{FaultNone, FaultNone}) {
				t.Errorf("unscripted key got %v", got)
			}
		})
	}
}

func TestPlanScriptValidation(t *testing.T) {
	t.Parallel()
	p := NewPlan(ArticleFaults()...)
	if err := p.SetScript("a", FaultInvalidJSON); err == nil || !strings.Contains(err.Error(), "not supported") {
		t.Errorf("SetScript(invalid_json) on articles error = %v, want not supported", err)
	}
	if err := p.SetScript("a", "teapot"); err == nil {
		t.Error("SetScript(teapot) succeeded")
	}
	// A failed batch changes nothing.
	err := p.SetScripts(map[string][]Fault{"a": {FaultGone}, "b": {"teapot"}}, false)
	if err == nil || len(p.Scripts()) != 0 {
		t.Errorf("SetScripts with a bad entry = %v, scripts %v; want an error and no scripts", err, p.Scripts())
	}
	if err := p.SetScript("a", FaultGone); err != nil {
		t.Fatal(err)
	}
	if err := p.SetScript("a"); err != nil || len(p.Scripts()) != 0 {
		t.Errorf("SetScript(a) with no faults = %v, scripts %v; want removed", err, p.Scripts())
	}
}

func TestPlanSwitches(t *testing.T) {
	t.Parallel()
	p := NewPlan()
	if err := p.SetScript("k", Always(FaultContentPolicy)); err != nil {
		t.Fatal(err)
	}
	steps := []struct {
		setup func()
		want  Decision
	}{
		{func() {}, Decision{Key: "k", Call: 1, Fault: FaultContentPolicy}},
		{func() { p.SetOutage(true) }, Decision{Key: "k", Call: 2, Fault: FaultUnavailable, Outage: true}},
		{func() { _ = p.SetOutageMode(OutageHang) }, Decision{Key: "k", Call: 3, Fault: FaultHang, Outage: true}},
		{func() { p.SetFixed(true) }, Decision{Key: "k", Call: 4, Fault: FaultHang, Outage: true, Fixed: true}},
		{func() { p.SetOutage(false) }, Decision{Key: "k", Call: 5, Fault: FaultNone, Fixed: true}},
		{func() { p.SetFixed(false) }, Decision{Key: "k", Call: 6, Fault: FaultContentPolicy}},
		{func() { p.Reset() }, Decision{Key: "k", Call: 1, Fault: FaultNone}},
	}
	for i, s := range steps {
		s.setup()
		if got := p.Decide("k"); got != s.want {
			t.Errorf("step %d: Decide = %+v, want %+v", i, got, s.want)
		}
	}
	if err := p.SetOutageMode("flood"); err == nil {
		t.Error("SetOutageMode(flood) succeeded")
	}
}

func TestMixValidate(t *testing.T) {
	t.Parallel()
	tests := map[string]struct {
		mix     Mix
		wantErr string
	}{
		"empty is off":         {mix: Mix{}},
		"both groups full":     {mix: Mix{Rates: map[Fault]float64{FaultRateLimit: 1, FaultAuth: 1}}},
		"transient over one":   {mix: Mix{Rates: map[Fault]float64{FaultRateLimit: 0.6, FaultHang: 0.5}}, wantErr: "transient rates sum"},
		"sticky over one":      {mix: Mix{Rates: map[Fault]float64{FaultAuth: 0.6, Always(FaultHang): 0.5}}, wantErr: "sticky"},
		"negative":             {mix: Mix{Rates: map[Fault]float64{FaultHang: -0.1}}, wantErr: "probability"},
		"none":                 {mix: Mix{Rates: map[Fault]float64{FaultNone: 0.5}}, wantErr: "successes"},
		"unknown":              {mix: Mix{Rates: map[Fault]float64{"teapot": 0.5}}, wantErr: "unknown fault"},
		"negative calls bound": {mix: Mix{TransientCalls: -1}, wantErr: "transient_calls"},
	}
	for name, tt := range tests {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			err := tt.mix.Validate()
			if tt.wantErr == "" && err != nil || tt.wantErr != "" && (err == nil || !strings.Contains(err.Error(), tt.wantErr)) {
				t.Fatalf("Validate = %v, want %q", err, tt.wantErr)
			}
		})
	}
}

var testMix = Mix{Seed: 42, Rates: map[Fault]float64{
	FaultRateLimit:           0.2,
	FaultServerError:         0.1,
	FaultHang:                0.1,
	FaultInvalidJSON:         0.1,
	FaultContentPolicy:       0.05,
	Always(FaultEmpty):       0.05,
	Always(FaultServerError): 0.02,
}}

func mixKeys(n int) []string {
	keys := make([]string, n)
	for i := range keys {
		keys[i] = fmt.Sprintf("item-%04d", i)
	}
	return keys
}

// TestMixDeterministicAnyOrder decides the same keys sequentially in order,
// then concurrently in reverse order on another plan, and expects the same
// faults per key and call.
func TestMixDeterministicAnyOrder(t *testing.T) {
	t.Parallel()
	const calls = 5
	keys := mixKeys(300)

	sequential := NewPlan()
	if err := sequential.SetMix(testMix); err != nil {
		t.Fatal(err)
	}
	want := map[string][]Fault{}
	for _, k := range keys {
		want[k] = callsOf(sequential, k, calls)
	}

	concurrent := NewPlan()
	if err := concurrent.SetMix(testMix); err != nil {
		t.Fatal(err)
	}
	var mu sync.Mutex
	got := map[string][]Fault{}
	var wg sync.WaitGroup
	for _, k := range slices.Backward(keys) {
		wg.Go(func() {
			fs := callsOf(concurrent, k, calls)
			mu.Lock()
			got[k] = fs
			mu.Unlock()
		})
	}
	wg.Wait()

	faulty := 0
	for _, k := range keys {
		if !slices.Equal(got[k], want[k]) {
			t.Errorf("key %s: concurrent %v, sequential %v", k, got[k], want[k])
		}
		if slices.ContainsFunc(want[k], func(f Fault) bool { return f != FaultNone }) {
			faulty++
		}
		for n := 1; n <= calls; n++ {
			if f := testMix.Fault(k, n); f != want[k][n-1] {
				t.Errorf("Mix.Fault(%s, %d) = %s, Plan gave %s", k, n, f, want[k][n-1])
			}
		}
	}
	if faulty == 0 {
		t.Error("no key drew a fault: the mix is not applied")
	}

	other := testMix
	other.Seed = 43
	differs := false
	for _, k := range keys {
		for n := 1; n <= calls; n++ {
			if other.Fault(k, n) != testMix.Fault(k, n) {
				differs = true
			}
		}
	}
	if !differs {
		t.Error("seed 43 gives the same faults as seed 42")
	}
}

// TestMixTransientBound checks the semantics over many keys: transient faults
// only on calls 1..TransientCalls, sticky faults on every call, and rates
// roughly honoured.
func TestMixTransientBound(t *testing.T) {
	t.Parallel()
	tests := map[string]struct {
		transientCalls int
		bound          int
	}{
		"default": {0, DefaultTransientCalls},
		"three":   {3, 3},
	}
	for name, tt := range tests {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			m := testMix
			m.TransientCalls = tt.transientCalls
			p := NewPlan()
			if err := p.SetMix(m); err != nil {
				t.Fatal(err)
			}
			c, err := m.compile()
			if err != nil {
				t.Fatal(err)
			}
			const keys, calls = 2000, 6
			var sticky, transientCalls int
			for _, k := range mixKeys(keys) {
				seq := make([]Fault, calls)
				for n := range seq {
					seq[n] = p.Planned(k, n+1)
				}
				if drawn := draw(c.sticky, unit(m.Seed, k, 0)).Base(); drawn != FaultNone {
					sticky++
					for n, f := range seq {
						if f != drawn {
							t.Fatalf("key %s: sticky %s, call %d got %s", k, drawn, n+1, f)
						}
					}
					continue
				}
				for n, f := range seq {
					if n >= tt.bound && f != FaultNone {
						t.Fatalf("key %s call %d got transient %s past the bound %d", k, n+1, f, tt.bound)
					}
					if f != FaultNone {
						transientCalls++
					}
					if f.Permanent() {
						t.Fatalf("key %s call %d got permanent %s on a non-sticky key", k, n+1, f)
					}
				}
			}
			// Sticky rates sum to 0.12; transient ones to 0.5 per call.
			if got := float64(sticky) / keys; got < 0.09 || got > 0.15 {
				t.Errorf("sticky share = %.3f, want about 0.12", got)
			}
			perCall := float64(transientCalls) / float64((keys-sticky)*tt.bound)
			if perCall < 0.45 || perCall > 0.55 {
				t.Errorf("transient share per call = %.3f, want about 0.5", perCall)
			}
		})
	}
}

func TestPlanScriptOverridesMix(t *testing.T) {
	t.Parallel()
	p := NewPlan()
	if err := p.SetMix(Mix{Rates: map[Fault]float64{Always(FaultHang): 1}}); err != nil {
		t.Fatal(err)
	}
	if err := p.SetScript("scripted", FaultRateLimit); err != nil {
		t.Fatal(err)
	}
	if got := callsOf(p, "scripted", 2); !slices.Equal(got, []Fault{FaultRateLimit, FaultNone}) {
		t.Errorf("scripted key = %v, want [rate_limit none]", got)
	}
	if got := callsOf(p, "mixed", 2); !slices.Equal(got, []Fault{FaultHang, FaultHang}) {
		t.Errorf("mixed key = %v, want [hang hang]", got)
	}
	if got := p.Planned("mixed", 100); got != FaultHang {
		t.Errorf("Planned(mixed, 100) = %s, want hang", got)
	}
	if got := p.Calls("mixed"); got != 2 {
		t.Errorf("Calls(mixed) = %d, want 2 (Planned does not count)", got)
	}
	if err := p.SetMix(Mix{}); err != nil {
		t.Fatal(err)
	}
	if got := p.Decide("mixed").Fault; got != FaultNone {
		t.Errorf("after clearing the mix: %s, want none", got)
	}
}

func TestParseRates(t *testing.T) {
	t.Parallel()
	tests := map[string]struct {
		in      string
		want    map[Fault]float64
		wantErr bool
	}{
		"empty":   {in: "", want: map[Fault]float64{}},
		"two":     {in: "rate_limit=0.1, always:invalid_json=0.02", want: map[Fault]float64{FaultRateLimit: 0.1, Always(FaultInvalidJSON): 0.02}},
		"no rate": {in: "rate_limit", wantErr: true},
		"bad num": {in: "rate_limit=lots", wantErr: true},
		"unknown": {in: "teapot=0.1", wantErr: true},
	}
	for name, tt := range tests {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			got, err := ParseRates(tt.in)
			if (err != nil) != tt.wantErr {
				t.Fatalf("ParseRates(%q) error = %v, wantErr %v", tt.in, err, tt.wantErr)
			}
			if !tt.wantErr && fmt.Sprint(got) != fmt.Sprint(tt.want) {
				t.Errorf("ParseRates(%q) = %v, want %v", tt.in, got, tt.want)
			}
		})
	}
}
