package health_test

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb"

	"github.com/triagehq/triage/dev/local/localtest"
	"github.com/triagehq/triage/internal/clock"
	"github.com/triagehq/triage/internal/failure"
	"github.com/triagehq/triage/internal/gates/health"
	"github.com/triagehq/triage/internal/work"
)

var (
	_ health.Store = (*health.Memory)(nil)
	_ health.Store = (*health.Dynamo)(nil)
)

var t0 = time.Date(2026, 11, 21, 10, 0, 0, 0, time.UTC)

// modelName is unique per test, so cases can share one DynamoDB table.
func modelName(t *testing.T) string {
	return strings.NewReplacer("/", "-", " ", "_").Replace(t.Name())
}

func invalid(reason string) failure.Classification {
	return failure.Of(work.ResponseInvalid, reason)
}

// conformance runs the Store contract, and Tracker's rules over it, against
// the store newStore returns; cases use distinct model names, so one store
// may serve them all.
func conformance(t *testing.T, newStore func(t *testing.T) health.Store) {
	ctx := context.Background()
	fail := func(t *testing.T, s health.Store, model string, at time.Time) health.FailureResult {
		t.Helper()
		res, err := s.RecordFailure(ctx, health.FailureRequest{Model: model, Class: work.ResponseInvalid, Reason: "not JSON", At: at})
		if err != nil {
			t.Fatalf("record failure: %v", err)
		}
		return res
	}
	get := func(t *testing.T, s health.Store, model string) health.Model {
		t.Helper()
		m, err := s.Get(ctx, model)
		if err != nil {
			t.Fatalf("get %s: %v", model, err)
		}
		return m
	}

	t.Run("unknown model", func(t *testing.T) {
		t.Parallel()
		s, m := newStore(t), modelName(t)
		if _, err := s.Get(ctx, m); !errors.Is(err, health.ErrNotFound) {
			t.Fatalf("get: %v, want ErrNotFound", err)
		}
		if changed, err := s.ResetFailures(ctx, m, t0); changed || err != nil {
			t.Fatalf("reset = %t, %v; want false, nil", changed, err)
		}
		if _, err := s.Recover(ctx, health.RecoverRequest{Model: m, Now: t0}); !errors.Is(err, health.ErrNotFound) {
			t.Fatalf("recover: %v, want ErrNotFound", err)
		}
		if _, err := s.Get(ctx, m); !errors.Is(err, health.ErrNotFound) {
			t.Fatalf("reset or recover created a record: %v", err)
		}
	})

	t.Run("a streak counts distinct items", func(t *testing.T) {
		t.Parallel()
		s, m := newStore(t), modelName(t)
		failOn := func(item string, at time.Time) health.FailureResult {
			t.Helper()
			res, err := s.RecordFailure(ctx, health.FailureRequest{Model: m, Item: item, Class: work.ResponseInvalid, Reason: "not JSON", At: at})
			if err != nil {
				t.Fatalf("record failure of %s: %v", item, err)
			}
			return res
		}
		// One poison item failing ten times is one failure of the model.
		for i := range 10 {
			res := failOn("poison", t0.Add(time.Duration(i)*time.Second))
			if res.Model.ConsecutiveFailures != 1 || res.Disabled || res.Repeat != (i > 0) {
				t.Fatalf("poison item, failure %d: %+v; want count 1, repeat after the first", i+1, res)
			}
		}
		// Four more items make five: the model is disabled, once.
		for i, it := range []string{"a", "b", "c", "d"} {
			res := failOn(it, t0.Add(time.Minute))
			if res.Repeat || res.Model.ConsecutiveFailures != i+2 || res.Disabled != (i == 3) {
				t.Fatalf("item %s: %+v; want count %d", it, res, i+2)
			}
		}
		// A success ends the streak: the poison item counts again in the next.
		if _, err := s.SetDisabled(ctx, m, false, "", t0.Add(2*time.Minute)); err != nil {
			t.Fatal(err)
		}
		if res := failOn("poison", t0.Add(3*time.Minute)); res.Repeat || res.Model.ConsecutiveFailures != 1 {
			t.Fatalf("poison item after an enable: %+v; want count 1", res)
		}
		if changed, err := s.ResetFailures(ctx, m, t0.Add(4*time.Minute)); !changed || err != nil {
			t.Fatalf("reset = %t, %v", changed, err)
		}
		if res := failOn("poison", t0.Add(5*time.Minute)); res.Repeat || res.Model.ConsecutiveFailures != 1 {
			t.Fatalf("poison item after a success: %+v; want count 1", res)
		}
	})

	t.Run("fifth failure disables in the same write", func(t *testing.T) {
		t.Parallel()
		s, m := newStore(t), modelName(t)
		for i := 1; i <= 4; i++ {
			res := fail(t, s, m, t0.Add(time.Duration(i)*time.Second))
			if res.Disabled || res.Model.Disabled || res.Model.ConsecutiveFailures != i {
				t.Fatalf("failure %d: %+v", i, res)
			}
		}
		res := fail(t, s, m, t0.Add(5*time.Second))
		if !res.Disabled || !res.Model.Disabled || res.Model.ConsecutiveFailures != 5 {
			t.Fatalf("failure 5: %+v, want the disabling write", res)
		}
		got := get(t, s, m)
		if !got.Disabled || got.DisabledBy != health.ByAuto || !got.DisabledAt.Equal(t0.Add(5*time.Second)) ||
			got.Disables != 1 || got.LastErrorType != work.ResponseInvalid || got.LastError != "not JSON" ||
			!got.LastFailureAt.Equal(t0.Add(5*time.Second)) || !strings.Contains(got.DisableReason, "5 consecutive") {
			t.Fatalf("after disable: %+v", got)
		}
		res = fail(t, s, m, t0.Add(6*time.Second))
		if res.Disabled || res.Model.ConsecutiveFailures != 6 || !res.Model.Disabled {
			t.Fatalf("failure 6 on a disabled model: %+v, want counted, no second disable", res)
		}
	})

	t.Run("threshold one disables on the first failure", func(t *testing.T) {
		t.Parallel()
		s, m := newStore(t), modelName(t)
		res, err := s.RecordFailure(ctx, health.FailureRequest{Model: m, Class: work.ClientError, At: t0, Threshold: 1})
		if err != nil || !res.Disabled || res.Model.ConsecutiveFailures != 1 {
			t.Fatalf("= %+v, %v", res, err)
		}
	})

	t.Run("eight concurrent writers", func(t *testing.T) {
		t.Parallel()
		s, m := newStore(t), modelName(t)
		const writers = 8
		var (
			wg       sync.WaitGroup
			mu       sync.Mutex
			disables int
			errs     []error
		)
		start := make(chan struct{})
		for i := range writers {
			wg.Add(1)
			go func() {
				defer wg.Done()
				<-start
				res, err := s.RecordFailure(ctx, health.FailureRequest{Model: m, Class: work.ResponseInvalid, At: t0.Add(time.Duration(i) * time.Millisecond)})
				mu.Lock()
				defer mu.Unlock()
				if err != nil {
					errs = append(errs, err)
				}
				if res.Disabled {
					disables++
				}
			}()
		}
		close(start)
		wg.Wait()
		if len(errs) > 0 {
			t.Fatalf("errors: %v", errs)
		}
		got := get(t, s, m)
		if got.ConsecutiveFailures != writers || disables != 1 || got.Disables != 1 || !got.Disabled {
			t.Fatalf("count %d (want %d), disable events %d and disables %d (want 1), disabled %t",
				got.ConsecutiveFailures, writers, disables, got.Disables, got.Disabled)
		}
	})

	t.Run("a replayed write counts once", func(t *testing.T) {
		t.Parallel()
		s, m := newStore(t), modelName(t)
		req := health.FailureRequest{Model: m, Class: work.ResponseInvalid, At: t0, Token: "tok-1"}
		for range 2 {
			if _, err := s.RecordFailure(ctx, req); err != nil {
				t.Fatal(err)
			}
		}
		if got := get(t, s, m); got.ConsecutiveFailures != 1 {
			t.Fatalf("count %d after one write sent twice, want 1", got.ConsecutiveFailures)
		}
	})

	t.Run("success resets an enabled model only", func(t *testing.T) {
		t.Parallel()
		s, m := newStore(t), modelName(t)
		for range 3 {
			fail(t, s, m, t0)
		}
		if changed, err := s.ResetFailures(ctx, m, t0.Add(time.Second)); !changed || err != nil {
			t.Fatalf("reset = %t, %v", changed, err)
		}
		if got := get(t, s, m); got.ConsecutiveFailures != 0 {
			t.Fatalf("count %d after reset", got.ConsecutiveFailures)
		}
		if changed, err := s.ResetFailures(ctx, m, t0.Add(2*time.Second)); changed || err != nil {
			t.Fatalf("second reset = %t, %v; want no write", changed, err)
		}
		for range 5 {
			fail(t, s, m, t0.Add(3*time.Second))
		}
		if changed, err := s.ResetFailures(ctx, m, t0.Add(4*time.Second)); changed || err != nil {
			t.Fatalf("reset of a disabled model = %t, %v; want untouched", changed, err)
		}
		if got := get(t, s, m); !got.Disabled || got.ConsecutiveFailures != 5 {
			t.Fatalf("disabled model after a success: %+v", got)
		}
	})

	t.Run("recovery with cooldown and partial reset", func(t *testing.T) {
		t.Parallel()
		s, m := newStore(t), modelName(t)
		for range 5 {
			fail(t, s, m, t0)
		}
		for _, early := range []time.Duration{0, 30 * time.Minute, time.Hour - time.Millisecond} {
			if _, err := s.Recover(ctx, health.RecoverRequest{Model: m, Now: t0.Add(early)}); !errors.Is(err, health.ErrConflict) {
				t.Fatalf("recover after %v: %v, want ErrConflict", early, err)
			}
		}
		got, err := s.Recover(ctx, health.RecoverRequest{Model: m, Now: t0.Add(time.Hour)})
		if err != nil {
			t.Fatal(err)
		}
		if got.Disabled || got.ConsecutiveFailures != 2 || !got.RecoveredAt.Equal(t0.Add(time.Hour)) ||
			got.RecoveredBy != health.ByRecovery || got.Recoveries != 1 {
			t.Fatalf("recovered: %+v", got)
		}
		if _, err := s.Recover(ctx, health.RecoverRequest{Model: m, Now: t0.Add(2 * time.Hour)}); !errors.Is(err, health.ErrConflict) {
			t.Fatalf("recover of an enabled model: %v, want ErrConflict", err)
		}
		for i := 1; i <= 3; i++ {
			res := fail(t, s, m, t0.Add(time.Hour+time.Duration(i)*time.Minute))
			if res.Disabled != (i == 3) || res.Model.ConsecutiveFailures != 2+i {
				t.Fatalf("failure %d after recovery: %+v", i, res)
			}
		}
	})

	t.Run("operator overrides", func(t *testing.T) {
		t.Parallel()
		s, m := newStore(t), modelName(t)
		got, err := s.SetDisabled(ctx, m, true, "provider deprecation", t0)
		if err != nil || !got.Disabled || got.DisabledBy != health.ByOperator || got.DisableReason != "provider deprecation" {
			t.Fatalf("disable = %+v, %v", got, err)
		}
		if _, err := s.Recover(ctx, health.RecoverRequest{Model: m, Now: t0.Add(48 * time.Hour)}); !errors.Is(err, health.ErrConflict) {
			t.Fatalf("recover of an operator-disabled model: %v, want ErrConflict", err)
		}
		fail(t, s, m, t0)
		got, err = s.SetDisabled(ctx, m, false, "", t0.Add(time.Minute))
		if err != nil || got.Disabled || got.ConsecutiveFailures != 0 || got.RecoveredBy != health.ByOperator {
			t.Fatalf("enable = %+v, %v", got, err)
		}
	})

	t.Run("list", func(t *testing.T) {
		t.Parallel()
		s, m := newStore(t), modelName(t)
		fail(t, s, m+"-b", t0)
		fail(t, s, m+"-a", t0)
		all, err := s.List(ctx)
		if err != nil {
			t.Fatal(err)
		}
		var mine []string
		for _, x := range all {
			if strings.HasPrefix(x.Name, m) {
				mine = append(mine, x.Name)
			}
		}
		if fmt.Sprint(mine) != fmt.Sprint([]string{m + "-a", m + "-b"}) {
			t.Fatalf("list = %v", mine)
		}
	})

	t.Run("tracker counts model-specific failures only", func(t *testing.T) {
		t.Parallel()
		s, m := newStore(t), modelName(t)
		clock := clock.NewStub(t0)
		tr := &health.Tracker{Store: s, Clock: clock}
		fail(t, s, m, t0) // a count of 1 to start from
		transient := []work.Class{work.RateLimited, work.NetworkTimeout}
		for i := range 10 {
			res, err := tr.RecordFailure(ctx, m, newItem(), failure.Of(transient[i%2], "transient"))
			if err != nil || res.Disabled {
				t.Fatalf("transient failure %d: %+v, %v", i, res, err)
			}
		}
		if got := get(t, s, m); got.ConsecutiveFailures != 1 || got.Disabled {
			t.Fatalf("after 10 rate-limit/timeout failures: %+v, want count 1 unchanged", got)
		}
		if err := tr.RecordSuccess(ctx, m); err != nil {
			t.Fatal(err)
		}
		disabled := 0
		for i := range 5 {
			res, err := tr.RecordFailure(ctx, m, newItem(), invalid("output is not JSON"))
			if err != nil {
				t.Fatal(err)
			}
			if res.Disabled {
				disabled++
				if i != 4 {
					t.Fatalf("disabled by failure %d, want the 5th", i+1)
				}
			}
		}
		got := get(t, s, m)
		if disabled != 1 || !got.Disabled || got.ConsecutiveFailures != 5 {
			t.Fatalf("after 5 invalid outputs: %+v (%d disable events)", got, disabled)
		}
		if st, err := tr.Status(ctx, m); err != nil || !st.Disabled {
			t.Fatalf("status = %+v, %v; want disabled", st, err)
		}
	})
}

func TestConformance(t *testing.T) {
	t.Parallel()
	localtest.Conformance(t, conformance, func() health.Store { return health.NewMemory() },
		func(t *testing.T) health.Store { return dynamoStore(t) })
}

// dynamoStore creates a stack in the shared moto and returns a store on its
// ModelsTable.
func dynamoStore(t *testing.T) *health.Dynamo {
	t.Helper()
	env := localtest.Stack(t, nil)
	return &health.Dynamo{DB: dynamodb.NewFromConfig(env.AWS), Table: env.Output(t, "ModelsTableName")}
}

// TestDynamoReplayedWrites checks that a write the SDK retried after it had
// applied is recognised by its token: counted once, and the disabling write
// still reports the disable.
func TestDynamoReplayedWrites(t *testing.T) {
	t.Parallel()
	plain := dynamoStore(t)
	replayed := &health.Dynamo{DB: localtest.ReplayingDB{Client: plain.DB.(*dynamodb.Client)}, Table: plain.Table}
	ctx := context.Background()
	disables := 0
	for i := 1; i <= 5; i++ {
		res, err := replayed.RecordFailure(ctx, health.FailureRequest{Model: "replayed", Class: work.ClientError, At: t0})
		if err != nil {
			t.Fatalf("failure %d: %v", i, err)
		}
		if res.Model.ConsecutiveFailures != i {
			t.Fatalf("failure %d: count %d", i, res.Model.ConsecutiveFailures)
		}
		if res.Disabled {
			disables++
		}
	}
	if disables != 1 {
		t.Fatalf("disable events = %d, want 1", disables)
	}
	for range 5 {
		if _, err := replayed.RecordFailure(ctx, health.FailureRequest{Model: "replayed", Class: work.ClientError, At: t0}); err != nil {
			t.Fatal(err)
		}
	}
	m, err := replayed.Recover(ctx, health.RecoverRequest{Model: "replayed", Now: t0.Add(time.Hour)})
	if err != nil || m.ConsecutiveFailures != 2 || m.Disabled {
		t.Fatalf("replayed recover = %+v, %v", m, err)
	}
}
