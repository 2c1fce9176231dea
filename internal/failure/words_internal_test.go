package failure

import "testing"

// TestPeriodWords pins the two hand-written searches of a limit's period.
func TestPeriodWords(t *testing.T) {
	t.Parallel()
	for s, want := range map[string]bool{
		"on tokens per day (TPD)": true, "PerDayPerProjectPerModel": true, "Daily request limit": true, "DAILY": true,
		"a monthly cap": true, "per week": true, "free-models-per-day": true,
		"Limit 30000, Used 29541": false, "requests per min (RPM)": false, "dayz": true, "": false, "y": false,
	} {
		if got := longPeriod(s); got != want {
			t.Errorf("longPeriod(%q) = %v, want %v", s, got, want)
		}
	}
	for s, want := range map[string]bool{
		"limit: 0, model: gemini": true, "Limit 0, Used 0": true, "limit:0": true, "LIMIT: 0": true, "limit: 0": true,
		"limit: 10": false, "limit: 0.5": false, "Limit 30000": false, "limit_value: \"0\"": true, "\"quota_limit_value\": \"0\"": true,
		"quota_limit_value: \"10\"": false, "0": false, "the 0 limit": false, "limit \"0\"": false,
	} {
		if got := limitZero(s); got != want {
			t.Errorf("limitZero(%q) = %v, want %v", s, got, want)
		}
	}
}
