package work_test

import (
	"strings"
	"testing"

	"github.com/triagehq/triage/internal/work"
)

func TestParseClass(t *testing.T) {
	t.Parallel()
	tests := map[string]struct {
		in      string
		want    work.Class
		wantErr bool
	}{
		"exact":                {in: "RATE_LIMITED", want: work.RateLimited},
		"lower case":           {in: "budget_exceeded", want: work.BudgetExceeded},
		"dashes":               {in: "network-timeout", want: work.NetworkTimeout},
		"spaces and padding":   {in: "  Upstream Unavailable ", want: work.UpstreamUnavailable},
		"mixed":                {in: "Action-Failed", want: work.ActionFailed},
		"unknown is a class":   {in: "unknown", want: work.Unknown},
		"not a class":          {in: "TIMEOUT", wantErr: true},
		"empty":                {in: "", wantErr: true},
		"doubled separator":    {in: "RATE__LIMITED", wantErr: true},
		"prefix of a class":    {in: "RATE", wantErr: true},
		"class with a suffix":  {in: "NOT_FOUND_404", wantErr: true},
		"unicode lookalike":    {in: "RATE_LİMITED", wantErr: true},
		"trailing underscore":  {in: "CONFLICT_", wantErr: true},
		"model class by value": {in: "client_error", want: work.ClientError},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			got, err := work.ParseClass(tc.in)
			if tc.wantErr {
				if err == nil {
					t.Fatalf("ParseClass(%q) = %s, want an error", tc.in, got)
				}
				// The error lists the valid names, so an operator can fix a filter.
				if !strings.Contains(err.Error(), "RATE_LIMITED") || !strings.Contains(err.Error(), "UNKNOWN") {
					t.Errorf("error %q does not list the classes", err)
				}
				return
			}
			if err != nil || got != tc.want {
				t.Errorf("ParseClass(%q) = %q, %v; want %q", tc.in, got, err, tc.want)
			}
		})
	}
}
