package store

import "github.com/triagehq/triage/internal/work"

// The write rules, stated once in Go. The DynamoDB store expresses each as a
// ConditionExpression (dynamo.go); the in-memory store evaluates these
// functions; the conformance tests hold the two to the same behaviour.

// claimStates are the states a claim may start from besides an expired or
// own lease on Working: every state Transitions lets move to Working.
func claimStates() []work.State {
	var out []work.State
	for _, s := range allowedFrom(work.Working) {
		if s != work.Working {
			out = append(out, s)
		}
	}
	return out
}

// canClaim reports whether req may take cur's lease.
func canClaim(cur Item, req ClaimRequest) bool {
	if cur.Stage != req.Stage {
		return false
	}
	if !cur.NotBefore.IsZero() && cur.NotBefore.After(req.Now.Add(CooldownTolerance)) {
		return false
	}
	for _, s := range claimStates() {
		if cur.State == s {
			return true
		}
	}
	return cur.State == work.Working && (cur.LeaseUntil.Before(req.Now) || cur.LeaseOwner == req.Owner)
}

// holdsLease reports whether owner holds cur's lease for stage: the
// precondition of every write after a claim.
func holdsLease(cur Item, stage work.Stage, owner string) bool {
	return cur.State == work.Working && cur.Stage == stage && cur.LeaseOwner == owner
}

// canFail reports whether req may record a failure on cur.
func canFail(cur Item, req FailRequest) bool {
	return holdsLease(cur, req.Stage, req.Owner) && cur.Attempts[req.Stage] == req.PrevAttempts &&
		work.CanTransition(work.Working, req.Next)
}

// canMarkDeadLettered reports whether ref's hand-off can be confirmed on
// cur: the item is failed at the stage, with the failure ref was built
// from — the same attempts at the stage and the same replay count, the
// inputs of the dead letter's ID. An item replayed and failed again since
// holds another failure, whose own dead letter is the one to confirm.
func canMarkDeadLettered(cur Item, stage work.Stage, ref DeadLetterRef) bool {
	return cur.State == work.Failed && cur.Stage == stage && work.CanTransition(work.Failed, work.Deadletter) &&
		cur.Attempts[stage] == ref.Attempt && cur.ReplayCount == ref.Replay
}

// nextAfterSuccess is where an item goes when stage succeeds.
func nextAfterSuccess(stage work.Stage) (work.State, work.Stage) {
	if next, ok := stage.Next(); ok {
		return work.Queued, next
	}
	return work.Done, stage
}
