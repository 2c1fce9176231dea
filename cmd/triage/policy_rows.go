package main

import (
	"fmt"
	"io"

	"github.com/triagehq/triage/cmd/triage/console"
	"github.com/triagehq/triage/internal/policy"
	"github.com/triagehq/triage/internal/work"
)

// callView is one row of the policy for work that is not a stage's
// (policy.CallRows): an owner's notice, a producer's send, the CLI's calls.
type callView struct {
	Name             string `json:"name"`
	For              string `json:"for"`
	MaxAttempts      int    `json:"max_attempts"`
	Backoff          string `json:"backoff"`
	MinDelay         string `json:"min_delay,omitempty"`
	MaxDelay         string `json:"max_delay,omitempty"`
	HonoursRequested bool   `json:"honours_requested"`
	StoreRetry       string `json:"store_retry,omitempty"`
}

// outputsView is what the policy decides besides a failure's retry:
// escalation, give-up thresholds, drain limits, the dead-letter reason of
// a message with no usable item.
type outputsView struct {
	Unusable             string `json:"unusable"`
	Escalation           string `json:"escalation"`
	NoticeGiveUpMargin   int    `json:"notice_give_up_margin"`
	StoreOutageTolerance string `json:"store_outage_tolerance"`
	BreakerFailures      int    `json:"breaker_failures_to_open"`
	BreakerOpenFor       string `json:"breaker_open_for"`
	ResendDelay          string `json:"resend_delay"`
	ModelFailures        int    `json:"model_failures_to_disable"`
	ModelCooldown        string `json:"model_cooldown"`
	ModelResetTo         int    `json:"model_reset_to"`
	DrainIntervals       int    `json:"drain_intervals"`
	MaxReleaseDelay      string `json:"max_release_delay"`
	BatchRemainder       string `json:"batch_remainder"`
}

func callRows() []callView {
	var out []callView
	for _, d := range policy.CallRows() {
		v := callView{Name: d.Name, For: d.For, MaxAttempts: d.MaxAttempts, Backoff: d.Backoff.String(),
			HonoursRequested: d.HonoursRequested}
		if d.MinDelay > 0 {
			v.MinDelay = d.MinDelay.String()
		}
		if d.MaxDelay > 0 {
			v.MaxDelay = d.MaxDelay.String()
		}
		if d.StoreRetry > 0 {
			v.StoreRetry = d.StoreRetry.String()
		}
		out = append(out, v)
	}
	return out
}

func outputs() outputsView {
	return outputsView{
		Unusable: "a message that names no usable item is dead-lettered at once: " + policy.Unusable(work.SchemaInvalid).Reason(),
		Escalation: "a replayed item that fails again at the stage, with the class, it was dead-lettered with," +
			" a class no retry can fix: its dead letter is escalated",
		NoticeGiveUpMargin: policy.NoticeGiveUpMargin, StoreOutageTolerance: policy.StoreOutageTolerance.String(),
		BreakerFailures: policy.BreakerTrip().Failures, BreakerOpenFor: policy.BreakerTrip().For.String(), ResendDelay: policy.ResendDelay.String(),
		ModelFailures: policy.ModelTrip().Failures, ModelCooldown: policy.ModelTrip().For.String(), ModelResetTo: policy.ModelTrip().ResetTo,
		DrainIntervals: policy.DrainIntervals, MaxReleaseDelay: policy.MaxReleaseDelay.String(), BatchRemainder: policy.BatchRemainder.String(),
	}
}

// printRows prints the call rows and the policy's other outputs.
func printRows(w io.Writer, v policyView) error {
	fmt.Fprintf(w, "\nwork that is not a stage's: a permanent failure or the last attempt's gives up\n")
	tw := newTable(w, "CALLS", "ATTEMPTS", "BACKOFF", "AT LEAST", "AT MOST", "RETRY-AFTER", "STORE FAILED", "FOR")
	for _, d := range v.Calls {
		fmt.Fprintf(tw, "%s\t%d\t%s\t%s\t%s\t%s\t%s\t%s\n", d.Name, d.MaxAttempts, d.Backoff, orDash(d.MinDelay), orDash(d.MaxDelay),
			console.YesNo(d.HonoursRequested), orDash(d.StoreRetry), d.For)
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	o := v.Outputs
	_, err := fmt.Fprintf(w, "\ndead letters: %s;\n%s\n"+
		"thresholds: the owner's item.failed notice is given up %d receives short of the redrive backstop; a store outage of %s\n"+
		"never reaches the backstop; a record whose outcome could not be made durable comes back after %s;\n"+
		"trips: a breaker opens after %d outage failures in a row (an exhausted quota's first) for %s;\n"+
		"a model is disabled after %d model-specific failures in a row, re-enabled %s after its last, and restarts from %d\n"+
		"drain: a gate's draining mark lasts %d scheduler intervals; a released waiter's send is delayed at most %s;\n"+
		"a batch read asks again for unprocessed keys after %s\n",
		o.Unusable, o.Escalation, o.NoticeGiveUpMargin, o.StoreOutageTolerance, o.ResendDelay,
		o.BreakerFailures, o.BreakerOpenFor, o.ModelFailures, o.ModelCooldown, o.ModelResetTo,
		o.DrainIntervals, o.MaxReleaseDelay, o.BatchRemainder)
	return err
}
