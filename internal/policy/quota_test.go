package policy

import (
	"testing"
	"time"
)

// TestQuotaProbeAt is the schedule of an exhausted quota's probes: the
// breaker's window while the quota is young, doubling per failed probe to
// the profile's ProviderQuotaWait, never past the period's next boundary —
// one probe an hour, on the hour, at the standard profile; one a day, at
// 00:00 UTC, at the daily batch's.
func TestQuotaProbeAt(t *testing.T) {
	const w = 5 * time.Minute
	day := time.Date(2026, 3, 1, 0, 0, 0, 0, time.UTC)
	at := func(h, m int) time.Time { return day.Add(time.Duration(h)*time.Hour + time.Duration(m)*time.Minute) }
	for _, tc := range []struct {
		name    string
		profile *Profile
		opened  time.Time
		window  time.Duration
		reopens int
		want    time.Time
	}{
		{"the opening failure", Standard(), at(1, 0), w, 0, at(1, 5)},
		{"the first failed probe", Standard(), at(1, 5), w, 1, at(1, 10)},
		{"doubling", Standard(), at(1, 10), w, 2, at(1, 20)},
		{"doubling again", Standard(), at(1, 20), w, 3, at(1, 40)},
		{"cut at the hour", Standard(), at(1, 40), w, 4, at(2, 0)},
		{"on the hour", Standard(), at(2, 0), w, 5, at(3, 0)},
		{"a probe late in its hour", Standard(), at(3, 1), w, 30, at(4, 0)},
		{"predictions", Predictions(), at(7, 30), w, 9, at(8, 0)},
		{"daily batch, doubling", DailyBatch(), at(6, 20), w, 7, at(11, 40)},
		{"daily batch, doubling on", DailyBatch(), at(11, 40), w, 8, at(22, 20)},
		{"daily batch, cut at 00:00 UTC", DailyBatch(), at(22, 20), w, 9, at(24, 0)},
		{"daily batch, a day", DailyBatch(), at(24, 0), w, 10, at(48, 0)},
		{"the provider asked for longer", Standard(), at(1, 30), 3 * time.Hour, 4, at(4, 30)},
		{"a compressed window", Standard(), at(1, 0), 15 * time.Second, 3, at(1, 1)},
	} {
		if got := tc.profile.QuotaProbeAt(tc.opened, tc.window, tc.reopens); !got.Equal(tc.want) {
			t.Errorf("%s: QuotaProbeAt(%s, %s, %d) = %s, want %s", tc.name, tc.opened.Format(time.TimeOnly), tc.window, tc.reopens,
				got.Format(time.DateTime), tc.want.Format(time.DateTime))
		}
	}
	// Twelve hours of an exhausted quota from 01:00 cost about a probe an
	// hour, and the last comes at 13:00, when the quota resets.
	probes, t0 := 0, at(1, 0)
	for n := 0; t0.Before(at(13, 0)); n++ {
		t0 = Standard().QuotaProbeAt(t0, w, n)
		probes++
	}
	if probes != 16 || !t0.Equal(at(13, 0)) {
		t.Errorf("%d probes, the last at %s; want 16, the last at 13:00 (4 backing off, then one an hour)", probes, t0.Format(time.TimeOnly))
	}
}
