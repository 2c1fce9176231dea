package redact

import (
	"encoding/base64"
	"fmt"
	"net/url"
	"strings"
	"testing"
	"unicode/utf8"
)

func TestPercentDecode(t *testing.T) {
	t.Parallel()
	tests := map[string]struct {
		in, want string
		ok       bool
	}{
		"escapes":       {"jane.doe%40example.com", "jane.doe@example.com", true},
		"form plus":     {"a+b%3Dc", "a b=c", true},
		"double":        {"%2540", "%40", true},
		"none":          {"plain", "plain", false},
		"broken escape": {"100%", "100%", false},
		"lower hex":     {"%2f%2F", "//", true},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			got, ok := percentDecode(tc.in)
			if ok != tc.ok || ok && got != tc.want {
				t.Errorf("percentDecode(%q) = %q, %v; want %q, %v", tc.in, got, ok, tc.want, tc.ok)
			}
		})
	}
}

func TestUnescapeRun(t *testing.T) {
	t.Parallel()
	tests := map[string]struct{ in, want string }{
		"unicode":       {`\u0073\u006b-proj`, "sk-proj"},
		"surrogates":    {`\ud83d\ude00`, "😀"},
		"hex":           {`\x73\x6b`, "sk"},
		"json":          {`a\"b\\c\/d\n`, "a\"b\\c/d\n"},
		"entities":      {"&#115;&#x6B;-x", "sk-x"},
		"entity broken": {"&#115 x", "&#115 x"},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			if got, ok := unescapeRun(tc.in); !ok || got != tc.want {
				t.Errorf("unescapeRun(%q) = %q, %v; want %q", tc.in, got, ok, tc.want)
			}
		})
	}
	if _, ok := unescapeRun(`C:\Users\new`); ok {
		t.Error(`a Windows path is not an escaped run`)
	}
}

func TestBase64Text(t *testing.T) {
	t.Parallel()
	enc := func(e *base64.Encoding, s string) string { return e.EncodeToString([]byte(s)) }
	for name, in := range map[string]string{
		"std":     enc(base64.StdEncoding, `{"auths":{"r":{"auth":"dXNlcjpwYXNz"}}}`),
		"raw url": enc(base64.RawURLEncoding, "client_secret=8fKq2LzW9xRt4VbN"),
	} {
		if _, ok := base64Text(in); !ok {
			t.Errorf("%s: %q not decoded", name, in)
		}
	}
	for name, in := range map[string]string{
		"hex digest": "9fceb02d0ae598e95dc970b74767f19372d61af8",
		"binary":     enc(base64.StdEncoding, "\x00\x01\x02\xff\xfe random bytes \x03"),
		"camel case": "ThisIsAVeryLongCamelCaseIdentifierName12",
		"one case":   "abcdefghijklmnopqrstuvwx",
	} {
		if d, ok := base64Text(in); ok {
			t.Errorf("%s: %q decoded as text %q", name, in, d)
		}
	}
}

// Every layer looks at what the one before exposed, down to
// maxDecodeDepth nested encodings.
func TestNestedEncodings(t *testing.T) {
	t.Parallel()
	const secret = "password=hunter2-Zq8"
	wrap := func(s string, n int) string {
		for range n {
			s = url.QueryEscape(s)
		}
		return s
	}
	for n := 1; n <= maxDecodeDepth; n++ {
		in := "next=" + wrap(secret, n)
		st := newState()
		got := redactText(in, st)
		if got != "next="+KindPassword.Marker() {
			t.Errorf("%d nested encodings: %q, want the blob redacted whole", n, got)
		}
		if st.deepest > maxDecodeDepth {
			t.Errorf("%d nested encodings: decoded %d deep", n, st.deepest)
		}
	}
	// Deeper than the bound: looked into no further, and the work stays
	// bounded.
	st := newState()
	redactText("next="+wrap(secret, 12), st)
	if st.deepest > maxDecodeDepth {
		t.Errorf("decoded %d deep, want at most %d", st.deepest, maxDecodeDepth)
	}
	b64 := secret
	for range 6 {
		b64 = base64.StdEncoding.EncodeToString([]byte(b64))
	}
	if got := String("blob " + b64); strings.Contains(got, b64[:20]) {
		t.Errorf("a deeply wrapped blob survived: %q", got)
	}
}

// Decoding spends a budget of maxDecodedBytes a pass: past it, what would
// be decoded is denied whole, and the output is idempotent.
func TestDecodeBudget(t *testing.T) {
	t.Parallel()
	var b strings.Builder
	for b.Len() < 3*maxDecodedBytes {
		b.WriteString("GET /s?q=caf%C3%A9%20au%20lait%20noir 200\n")
	}
	in := b.String()
	out := String(in)
	if !strings.Contains(out, "q=caf%C3%A9%20au%20lait%20noir") {
		t.Fatal("the first URLs, within the budget, were not kept")
	}
	if !strings.Contains(out, "q="+KindToken.Marker()) {
		t.Fatal("the URLs past the budget were not denied")
	}
	if again := String(out); again != out {
		t.Fatal("not idempotent past the budget")
	}
}

// lenient returns its edits in order, within the text, never overlapping.
func checkEdits(t *testing.T, s string, edits []edit) {
	t.Helper()
	last := 0
	for _, e := range edits {
		if e.start < last || e.end < e.start || e.end > len(s) {
			t.Fatalf("edit %+v out of order or range (last %d, len %d) in %q", e, last, len(s), s)
		}
		last = e.end
	}
}

// wantUnchanged checks that String leaves each text as it is.
func wantUnchanged(t *testing.T, texts ...string) {
	t.Helper()
	for _, in := range texts {
		if out := String(in); out != in {
			t.Errorf("String(%q) = %q, want it unchanged", in, out)
		}
	}
}

// wantRedacted checks that String turns each case's in into its want.
func wantRedacted(t *testing.T, cases []struct{ in, want string }) {
	t.Helper()
	for _, c := range cases {
		if got := String(c.in); got != c.want {
			t.Errorf("String(%q)\n got %q\nwant %q", c.in, got, c.want)
		}
	}
}

// wantNoPersonal checks that String redacts nothing of each text as a
// person's datum; why says why nothing in it is one.
func wantNoPersonal(t *testing.T, why string, texts ...string) {
	t.Helper()
	for _, s := range texts {
		if got := String(s); strings.Contains(got, "[REDACTED:personal]") {
			t.Errorf("String(%q) = %q: %s", s, got, why)
		}
	}
}

func TestLenient(t *testing.T) {
	t.Parallel()
	tests := map[string]struct{ in, want string }{
		"python dict":  {`{'role': 'user', 'content': 'hi there'}`, `{'role': 'user', 'content': '` + Text("hi there") + `'}`},
		"js literal":   {`{ apiKey: "3375e3ad9a874cd6", baseURL: "https://x" }`, `{ apiKey: "[REDACTED:secret]", baseURL: "https://x" }`},
		"ruby hash":    {`{"api_key"=>"abc123def", "region"=>"eu"}`, `{"api_key"=>"[REDACTED:secret]", "region"=>"eu"}`},
		"go struct":    {`{Model:gpt-4o Content:Hello there}`, `{Model:gpt-4o Content:` + Text("Hello there") + `}`},
		"go map":       {`map[Authorization:[Bearer abc123] X-Trace:[t1]]`, `map[Authorization:"[REDACTED:bearer]" X-Trace:[t1]]`},
		"name/value":   {`{"name": "Authorization", "value": "Bearer abc123"}`, `{"name": "Authorization", "value": "Bearer [REDACTED:bearer]"}`},
		"tuple":        {`[(b'Set-Cookie', b'sid=abc123; path=/')]`, `[(b'Set-Cookie', b'[REDACTED:cookie]')]`},
		"cut short":    {`{"messages":[{"role":"user","content":"tell me`, `{"messages":"` + Text(`[{"role":"user","content":"tell me`) + `"`},
		"no structure": {`see [the docs] and {curly} prose`, `see [the docs] and {curly} prose`},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			if got := structures(tc.in, newState()); got != tc.want {
				t.Errorf("structures(%q)\n got %q\nwant %q", tc.in, got, tc.want)
			}
		})
	}
}

func FuzzLayers(f *testing.F) {
	seeds := []string{
		`{"messages":[{"role":"user","content":"hi"}],"api_key":"k"}`,
		`{'a': 'b', 'prompt': 'x'} {Model:m Content:c} map[K:[v]]`,
		`next=` + url.QueryEscape(url.QueryEscape("password=hunter2")),
		`body="{\"token\":\"abc\\\"def\"}" [{\"a\"`,
		`\u0073\u006b-&#115;&#x6b; %25%32%35`,
		base64.StdEncoding.EncodeToString([]byte(`{"auth":"` + base64.StdEncoding.EncodeToString([]byte("u:p")) + `"}`)),
		"<wsse:Password>p</wsse:Password><add key=\"ApiKey\" value=\"v\"/>",
		"prompt: |\n  line one\n  line two\nnext: 1",
		"[[[[[[[[[[{{{{{{{{'''''\"\"\"\\\\\\",
		"ChatRequest(model=m, messages=[Message(role=user, content=a (b), c)], n=1) Type{text='x', k=v}",
		"array(1) {\n  [\"api_key\":protected]=>\n  string(3) \"abc\"\n}\n[password] => p\n",
		"     -> gen_ai.prompt.0.content: Str(x)\n    Rendered prompt: a\n  b\nINFO next\n> [Node 1] [score: 0.5] text",
		"Authorization: Hawk id=\"a\", mac=\"b\" (Authorization: GenieKey 3a6f2c1e-8b4d-4f7a-9c2e-5d1b0a9e8f7c)",
		"+ cmd -p 'P@ss!1' --token=x -passin pass:y u/p@//h:1521/s https://h.example/inputs/3a6f2c1e-8b4d-4f7a-9c2e-5d1b0a9e8f7c/t",
		"tel 06 12 34 56 78 to=447700900123 auth=('u', 'p')",
		"\x1b[31mUser message:\x1b[0m\n\n[[ ## q ## ]]\nhi there\n---------- TextMessage (user) ----------\nx\nA (to B):\n\ny\n## Task: z\nuser:\n  w\nlast_prompt: <d>\nv\n",
		"system('a b') + HumanMessage(\"c\") UserMessage.from('d') args=('x y z w v', 1) kwargs: {'k': 'a b c d e'} with arguments: \"p q r s t\", 2",
		"https://h.example/webhook/n/0a1b2c3d4e5f60718293a4b5c6d7e8f9 https://h.example/rest/v3.1/0a1b2c3d4e5f60718293a4b5c6d7e8f90a1b2c3d4e5f60718293a4b5c6d7e8f9/x",
	}
	for _, s := range seeds {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		st := newState()
		st.perPass = true
		out := redactText(s, st)
		if utf8.ValidString(s) && !utf8.ValidString(out) {
			t.Fatalf("valid UTF-8 in, invalid out:\n in %q\nout %q", s, out)
		}
		if again := String(out); again != out {
			t.Fatalf("not idempotent:\n   in %q\n once %q\ntwice %q", s, out, again)
		}
		if st.deepest > maxDecodeDepth {
			t.Fatalf("decoded %d deep", st.deepest)
		}
		// Every pass looks at the input once and at no more than the
		// budget of decoded text again, at every depth.
		if bound := maxPasses * (len(s) + (maxDecodeDepth+1)*maxDecodedBytes); st.work > bound {
			t.Fatalf("looked at %d bytes for %d of input (bound %d)", st.work, len(s), bound)
		}
		p := lenient{s: s, st: newState()}
		if end := p.parse(0); end < 0 || end > len(s) {
			t.Fatalf("parse ended at %d of %d", end, len(s))
		}
		checkEdits(t, s, p.sorted())
		for _, find := range []func(string, int) []int{findKeyValue, findContentValue, findCLIFlag, findConnectString,
			findPathSecret, findPHPSecret, findPHPText, findLabelLine, findRetrievalHit, findTurnText, findRoleCall} {
			if loc := find(s, 0); loc != nil && !(0 <= loc[0] && loc[0] <= loc[4] && loc[4] <= loc[5] && loc[5] <= loc[1] && loc[1] <= len(s)) {
				t.Fatalf("finder returned %v for %d bytes", loc, len(s))
			}
		}
		for _, dec := range []func(string) (string, bool){percentDecode, unescapeRun, base64Text} {
			if d, ok := dec(s); ok && len(d) > len(s) {
				t.Fatalf("decoding grew %d bytes to %d", len(s), len(d))
			}
		}
	})
}

// TestRolesMemoized holds roleOf's memo to judgeKey: the same role for
// every key, and no more than maxRoles keys kept whatever the text.
func TestRolesMemoized(t *testing.T) {
	keys := []string{"api_key", "X-Api-Key", "messages", "customer.name", "prompt_tokens", "notes", "request_id", "", "body"}
	for i := 0; i < maxRoles+500; i++ {
		keys = append(keys, fmt.Sprintf("field_%d_token", i))
	}
	for _, k := range keys {
		if got, want := roleOf(k), judgeKey(k); got != want {
			t.Fatalf("roleOf(%q) = %+v, judgeKey says %+v", k, got, want)
		}
		if got, want := roleOf(k), judgeKey(k); got != want { // from the memo this time
			t.Fatalf("roleOf(%q) again = %+v, judgeKey says %+v", k, got, want)
		}
	}
	roles.RLock()
	n := len(roles.m)
	roles.RUnlock()
	if n > maxRoles {
		t.Fatalf("the memo holds %d keys, more than %d", n, maxRoles)
	}
}
