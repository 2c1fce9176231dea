package console

import (
	"encoding/json"
	"fmt"
	"io"
	"strconv"
	"strings"
	"time"

	"github.com/triagehq/triage/internal/gates/budget"
	"github.com/triagehq/triage/internal/redact"
)

// clean is every free text the console renders: redacted once more (the
// stores hold redacted text already; this is the second line) and cut to
// a length a table can hold.
func clean(s string) string {
	s = redact.String(s)
	if r := []rune(s); len(r) > 600 {
		s = string(r[:597]) + "..."
	}
	return s
}

func dash(s any) string {
	v := fmt.Sprint(s)
	if v == "" {
		return "-"
	}
	return v
}

// YesNo is a flag as the console and the CLI print it.
func YesNo(b bool) string {
	if b {
		return "yes"
	}
	return "no"
}

// Time is an instant as the console and the CLI print it: UTC to the
// second, "-" for the zero time.
func Time(t time.Time) string {
	if t.IsZero() {
		return "-"
	}
	return t.UTC().Format("2006-01-02 15:04:05Z")
}

// ago renders t relative to now: "5m ago", "in 2m", "-" for zero.
func ago(t, now time.Time) string {
	if t.IsZero() {
		return "-"
	}
	d := now.Sub(t).Round(time.Second)
	if d < 0 {
		return "in " + (-d).String()
	}
	return d.String() + " ago"
}

func usd(v any) string {
	switch m := v.(type) {
	case budget.Micros:
		return fmt.Sprintf("$%.2f", m.USD())
	default:
		return fmt.Sprint(v)
	}
}

// parseAge reads an age before now ("24h", "7d", "90m") or an RFC 3339
// time.
func parseAge(s string, now time.Time) (time.Time, error) {
	s = strings.TrimSpace(s)
	if t, err := time.Parse(time.RFC3339, s); err == nil {
		return t, nil
	}
	if n, ok := strings.CutSuffix(s, "d"); ok {
		days, err := strconv.Atoi(n)
		if err != nil || days < 0 || days > 90 {
			return time.Time{}, fmt.Errorf("%q is not an age like 7d (at most 90d)", s)
		}
		return now.Add(-time.Duration(days) * 24 * time.Hour), nil
	}
	d, err := time.ParseDuration(s)
	if err != nil || d < 0 {
		return time.Time{}, fmt.Errorf("%q is not an age like 24h or 7d, nor an RFC 3339 time", s)
	}
	return now.Add(-d), nil
}

func writeJSON(w io.Writer, v any) {
	_ = json.NewEncoder(w).Encode(v)
}
