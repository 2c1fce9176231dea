package soak

import (
	"math/rand/v2"
	"os"
	"slices"
	"sync"
	"time"

	"github.com/triagehq/triage/dev/local/lambda"
	"github.com/triagehq/triage/internal/work"
)

// killer SIGKILLs bootstrap processes in the middle of a record: at seeded
// times it picks a stage, and the next upstream call of that stage gets its
// process killed before the fake answers — after the record's claim,
// before its outcome. The Lambda service restarts environments; the
// killed batch comes back after its visibility timeout.
type killer struct {
	svc   *lambda.Service
	max   int
	every time.Duration

	mu     sync.Mutex
	rng    *rand.Rand
	on     bool
	t0     time.Time
	next   time.Time
	target work.Stage
	kills  []Kill
}

func newKiller(svc *lambda.Service, max int, every time.Duration, seed uint64) *killer {
	return &killer{svc: svc, max: max, every: every, rng: rand.New(rand.NewPCG(seed, 0x4b111))}
}

// start arms the first kill.
func (k *killer) start(t0 time.Time) {
	k.mu.Lock()
	defer k.mu.Unlock()
	k.on, k.t0 = true, t0
	k.arm(t0)
}

// stop ends the kills.
func (k *killer) stop() {
	k.mu.Lock()
	defer k.mu.Unlock()
	k.on = false
}

// arm schedules the next kill, uniform in [½, 1½] × every after now, at a
// random stage; k.mu must be held.
func (k *killer) arm(now time.Time) {
	k.next = now.Add(k.every/2 + time.Duration(k.rng.Int64N(int64(k.every))))
	k.target = work.Stages()[k.rng.IntN(len(work.Stages()))]
}

// onCall is the Tracker's OnBegin hook.
func (k *killer) onCall(id string, stage work.Stage, port int) {
	k.mu.Lock()
	defer k.mu.Unlock()
	now := time.Now()
	if !k.on || len(k.kills) >= k.max || stage != k.target || now.Before(k.next) {
		return
	}
	fn := stageFunc[stage]
	pids := k.svc.PIDs(fn)
	if len(pids) == 0 {
		return
	}
	slices.Sort(pids)
	owner := busyPIDs(pids, []int{port})
	candidates := pids
	if len(owner) > 0 {
		candidates = owner
	}
	pid := candidates[k.rng.IntN(len(candidates))]
	// The pid comes from the local Lambda service, which started the
	// process and has not reaped it: it is one of ours.
	p, err := os.FindProcess(pid)
	if err != nil || p.Kill() != nil {
		return
	}
	k.kills = append(k.kills, Kill{At: now.Sub(k.t0), Function: fn, PID: pid, Item: id, Calling: len(owner) > 0})
	k.arm(now)
}

// Kills returns the kills so far.
func (k *killer) Kills() []Kill {
	k.mu.Lock()
	defer k.mu.Unlock()
	return slices.Clone(k.kills)
}
