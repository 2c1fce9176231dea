package policy

import "time"

// QuotaProbeAt is when a provider's exhausted quota may be probed again
// after the failure that last opened its breaker (at openedAt, for the
// breaker's window; reopens counts the probes in a row that found the quota
// still exhausted, 0 for the failure that opened it): one probe per wait
// period (docs/design.md "Waits and parking"). The period starts at the
// breaker's window and grows by Probing's multiplier with each failed probe
// after the first, up to ProviderQuotaWait — 5, 5, 10, 20, 40, then 60
// minutes at the standard profile's numbers — so a short quota is found over
// as soon as an outage is, and a long one costs one call per
// ProviderQuotaWait. A quota resets at a boundary of its period (the hour,
// the UTC day), so no probe waits past the next multiple of
// ProviderQuotaWait: once the period is that long, the probes come on the
// boundaries and find the reset within a scheduler run. A window longer than
// ProviderQuotaWait (the provider asked for it) is kept.
func (p *Profile) QuotaProbeAt(openedAt time.Time, window time.Duration, reopens int) time.Time {
	wait := p.ProviderQuotaWait
	if window <= 0 || wait <= window {
		return openedAt.Add(window)
	}
	period := window
	if reopens > 1 {
		pr := p.Probing.WithDefaults()
		period = Exponential{Initial: window, Multiplier: pr.IntervalMultiplier, Max: wait}.Base(reopens)
	}
	next := openedAt.Add(period)
	if boundary := openedAt.Truncate(wait).Add(wait); boundary.Before(next) {
		next = boundary
	}
	return next
}
