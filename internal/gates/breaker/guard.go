package breaker

import (
	"context"
	"net"
	"net/url"
	"strings"

	"github.com/triagehq/triage/internal/failure"
	"github.com/triagehq/triage/internal/gates"
	"github.com/triagehq/triage/internal/store"
	"github.com/triagehq/triage/internal/telemetry"
	"github.com/triagehq/triage/internal/work"
)

// Work is a stage's work as the runner runs it (the runner's Work): Guard
// guards one and is one.
type Work interface {
	Run(ctx context.Context, item store.Item, d gates.Delivery) (work.Output, error)
}

// Guard is a Work decorator: it asks Breakers before running Inner and
// tells it the outcome after. While the item's service's breaker is open,
// Run returns the breaker's state (a *policy.Closed) without calling Inner,
// and the policy makes the item wait without spending an attempt.
//
//	work := breaker.Guard{Inner: fetcher, Service: breaker.SourceHost, Breakers: b}
type Guard struct {
	// Inner is the stage's work. Required.
	Inner Work
	// Service names the upstream an item's call goes to (SourceHost,
	// WebhookHost, Fixed(host)); an empty name, or a nil Service, leaves the
	// item unguarded.
	Service func(store.Item) string
	// Breakers decides; nil leaves every item unguarded.
	Breakers *Breakers
}

var _ Work = Guard{}

// Run guards one call of Inner. The context Inner gets carries the item and
// correlation ids for a telemetry.ContextHandler. A record the scheduler
// released as the breaker's probe (d.Probe) is the probe when its lease
// still holds; one a gate's ramp released (d.Gate) goes ahead while the
// service drains, where a new record queues behind the gate. A failed
// probe, and a provider's exhausted quota, come back as what Breakers.Done
// reports (the breaker's state, the quota's gate), so the item spends no
// attempt on them; an outage failure Done judges the item's own comes back
// marked, for the decision table. If Inner panics while holding the probe
// lease, the lease is released before the panic continues to the runner.
func (g Guard) Run(ctx context.Context, item store.Item, d gates.Delivery) (out work.Output, err error) {
	if g.Breakers == nil || g.Service == nil {
		return g.Inner.Run(ctx, item, d)
	}
	svc := g.Service(item)
	if svc == "" {
		return g.Inner.Run(ctx, item, d)
	}
	ctx = telemetry.WithAttrs(ctx, "item_id", item.ID, "correlation_id", item.CorrelationID)
	var t Ticket
	switch {
	case d.Probe != "":
		t, err = g.Breakers.AllowProbe(ctx, svc, d.Probe)
	default:
		t, err = g.Breakers.AllowReleased(ctx, svc, d.Gate)
	}
	if err != nil {
		return work.Output{}, err
	}
	// The item's run of outage failures is Done's evidence that a failure
	// follows the item rather than the service.
	t.Suspect = item.Suspect
	done := false
	defer func() {
		if !done {
			g.Breakers.Done(ctx, t, &failure.WaitError{Reason: "work panicked"})
		}
	}()
	out, err = g.Inner.Run(ctx, item, d)
	done = true
	// Classified once, here, where the failure is first seen: the breaker
	// and the runner read it.
	err = failure.Mark(err)
	if verdict := g.Breakers.Done(ctx, t, err); verdict != nil {
		return work.Output{}, verdict
	}
	return out, err
}

// Host returns the lowercase host (with its port, when one other than the
// scheme's own is given) of rawURL, the key of its breaker; "" when rawURL
// has no host. A fully qualified name's root dot is dropped: news.example.
// and news.example:443 (https) are the host news.example is.
func Host(rawURL string) string {
	u, err := url.Parse(strings.TrimSpace(rawURL))
	if err != nil || u.Host == "" {
		return ""
	}
	h := strings.TrimSuffix(strings.ToLower(u.Hostname()), ".")
	if p := u.Port(); p != "" && !(p == "443" && u.Scheme == "https" || p == "80" && u.Scheme == "http") {
		return net.JoinHostPort(h, p)
	}
	return h
}

// SourceHost is the breaker key of an item's article host (fetch stage).
func SourceHost(it store.Item) string { return Host(it.SourceURL) }

// WebhookHost is the breaker key of an item's webhook host (notify stage).
func WebhookHost(it store.Item) string { return Host(it.WebhookURL) }

// Fixed returns a Service function naming one service for every item. (The
// llm stage asks its providers' breakers itself, in internal/gates/fallback.)
func Fixed(service string) func(store.Item) string {
	return func(store.Item) string { return service }
}
