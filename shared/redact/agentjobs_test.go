package redact

import (
	"strings"
	"testing"
)

// agentJobCases hold members of the families round 2 of the holdout found
// — agent frameworks' transcripts, job queues' arguments, secrets deeper in
// a URL's path — that neither the holdout nor the corpus holds, and the
// plain facts beside them that must stay.
var agentJobCases = []struct {
	name string
	in   string
	gone []string // must not survive
	kept []string // must survive unchanged
}{
	// Secrets in URL paths.
	{"webhook secret past the webhook's name", "POST https://auto.acme.example/webhooks/crm/lead-sync/Zt4mW9qLx2Rb7Kc5 -> 401",
		[]string{"Zt4mW9qLx2Rb7Kc5"}, []string{"auto.acme.example/webhooks/crm/lead-sync/", "-> 401"}},
	{"webhook deliveries stay", "GET https://api.acme.example/repos/a/b/hooks/48211/deliveries/9120553 and /hooks/48211/config",
		nil, []string{"/hooks/48211/deliveries/9120553", "/hooks/48211/config"}},
	{"key after an API version", "GET https://api.acme.example/soap/v3/0a1b2c3d4e5f60718293a4b5c6d7e8f90a1b2c3d4e5f60718293a4b5c6d7e8f9/Account 401",
		[]string{"0a1b2c3d4e5f60718293a4b5c6d7e8f90a1b2c3d4e5f60718293a4b5c6d7e8f9"}, []string{"/Account 401"}},
	{"ids after an API version and digests elsewhere stay", "GET https://api.acme.example/v1/6f1c2d3e-4a5b-4c6d-8e7f-9a0b1c2d3e4f/items and https://r.acme.example/v2/app/blobs/sha256/9f86d081884c7d659a2feaa0c55ad015a3bf4f1b2b0b822cd15d6c15b0f00a08",
		nil, []string{"/v1/6f1c2d3e-4a5b-4c6d-8e7f-9a0b1c2d3e4f/items", "9f86d081884c7d659a2feaa0c55ad015a3bf4f1b2b0b822cd15d6c15b0f00a08"}},
}

func TestAgentJobFamilies(t *testing.T) {
	t.Parallel()
	for _, tc := range agentJobCases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			got := String(tc.in)
			for _, s := range tc.gone {
				if strings.Contains(got, s) {
					t.Errorf("%q survived\n in: %s\nout: %s", s, tc.in, got)
				}
			}
			for _, s := range tc.kept {
				if !strings.Contains(got, s) {
					t.Errorf("lost %q\n in: %s\nout: %s", s, tc.in, got)
				}
			}
			if again := String(got); again != got {
				t.Errorf("not idempotent\n once: %s\ntwice: %s", got, again)
			}
		})
	}
}
