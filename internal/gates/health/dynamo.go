package health

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/triagehq/triage/internal/store/dynamo"
	"github.com/triagehq/triage/internal/work"
)

// DynamoAPI is the part of the DynamoDB client the store uses. Scan is only
// needed by List (the recovery function and the CLI).
type DynamoAPI = dynamo.API

// Dynamo is the DynamoDB model-health store (template.yaml ModelsTable,
// key "model"). Every write is one UpdateItem; see the package documentation
// for the conditions.
type Dynamo struct {
	DB DynamoAPI
	// Table is the ModelsTable name.
	Table string
}

// maxRaces bounds how often RecordFailure switches between its two
// conditional updates when concurrent writers keep moving the record; each
// switch means another writer's update applied.
const maxRaces = 16

// maxScanPages bounds List: a models table holds a few dozen records.
const maxScanPages = 100

// TimeFormat is how times people read are stored (disabled_at,
// recovered_at, updated_at); last_failure_at, which Recover compares, is Unix
// milliseconds.
const TimeFormat = dynamo.TimeFormat

// record is a model's health as stored.
type record struct {
	Model               string   `dynamodbav:"model"`
	ConsecutiveFailures int      `dynamodbav:"consecutive_failures"`
	Disabled            bool     `dynamodbav:"disabled"`
	DisabledBy          string   `dynamodbav:"disabled_by,omitempty"`
	DisabledAt          string   `dynamodbav:"disabled_at,omitempty"`
	DisableReason       string   `dynamodbav:"disable_reason,omitempty"`
	RecoveredAt         string   `dynamodbav:"recovered_at,omitempty"`
	RecoveredBy         string   `dynamodbav:"recovered_by,omitempty"`
	LastFailureAt       int64    `dynamodbav:"last_failure_at,omitempty"`
	LastErrorType       string   `dynamodbav:"last_error_type,omitempty"`
	LastError           string   `dynamodbav:"last_error,omitempty"`
	Disables            int      `dynamodbav:"disables,omitempty"`
	Recoveries          int      `dynamodbav:"recoveries,omitempty"`
	UpdatedAt           string   `dynamodbav:"updated_at,omitempty"`
	WriteTokens         []string `dynamodbav:"write_tokens,stringset,omitempty"`
	StreakItems         []string `dynamodbav:"streak_items,stringset,omitempty"`
	DisableToken        string   `dynamodbav:"disable_token,omitempty"`
}

func (r record) model() Model {
	return Model{
		Name: r.Model, ConsecutiveFailures: r.ConsecutiveFailures, Disabled: r.Disabled,
		DisabledBy: r.DisabledBy, DisabledAt: parseTime(r.DisabledAt), DisableReason: r.DisableReason,
		RecoveredAt: parseTime(r.RecoveredAt), RecoveredBy: r.RecoveredBy,
		LastFailureAt: fromMillis(r.LastFailureAt), LastErrorType: work.Class(r.LastErrorType), LastError: r.LastError,
		Disables: r.Disables, Recoveries: r.Recoveries, UpdatedAt: parseTime(r.UpdatedAt),
	}
}

var (
	parseTime  = dynamo.ParseTime
	fromMillis = dynamo.FromMillis
	newToken   = dynamo.NewToken
)

// table is the ModelsTable as a table of records keyed by model.
func (s *Dynamo) table() dynamo.Table[record] {
	return dynamo.Table[record]{DB: s.DB, Name: s.Table, Key: "model", What: "model health"}
}

// Get reads the model's record with a strongly consistent read.
func (s *Dynamo) Get(ctx context.Context, model string) (Model, error) {
	r, err := s.table().Find(ctx, model, true, ErrNotFound)
	if err != nil {
		return Model{}, err
	}
	return r.model(), nil
}

// List scans the table (bounded to maxScanPages pages) and returns every
// record sorted by name.
func (s *Dynamo) List(ctx context.Context) ([]Model, error) {
	return dynamo.List(ctx, s.table(), true, maxScanPages, record.model,
		func(a, b Model) int { return strings.Compare(a.Name, b.Name) })
}

// RecordFailure counts one failure. It first tries the counting update; when
// its condition fails because the record is at threshold-1 (and enabled), it
// tries the disabling update, and back, at most maxRaces times. A condition
// failure whose record already holds this write's token is a retried request
// that had applied, and is returned as such.
func (s *Dynamo) RecordFailure(ctx context.Context, req FailureRequest) (FailureResult, error) {
	if req.Model == "" {
		return FailureResult{}, errors.New("record failure: model is required")
	}
	tok := cmp.Or(req.Token, newToken())
	limit := threshold(req.Threshold) - 1
	disable := false
	for range maxRaces {
		o, err := s.table().Apply(ctx, req.Model, s.failureUpdate(req, tok, limit, disable))
		if err != nil {
			return FailureResult{}, fmt.Errorf("record failure of model %s: %w", req.Model, err)
		}
		if o.Applied {
			return FailureResult{Model: o.Record.model(), Disabled: disable}, nil
		}
		cur, exists := o.Record, o.Exists
		if exists && slices.Contains(cur.WriteTokens, tok) {
			return FailureResult{Model: cur.model(), Disabled: cur.DisableToken == tok}, nil
		}
		if exists && req.Item != "" && slices.Contains(cur.StreakItems, req.Item) {
			return FailureResult{Model: cur.model(), Repeat: true}, nil
		}
		// An absent record is the zero record: a count of 0, enabled.
		disable = cur.ConsecutiveFailures >= limit && !cur.Disabled
	}
	return FailureResult{}, fmt.Errorf("record failure of model %s: %d races lost: %w", req.Model, maxRaces, ErrConflict)
}

// failureUpdate builds the counting (disable false) or the disabling update.
func (s *Dynamo) failureUpdate(req FailureRequest, tok string, limit int, disable bool) *dynamodb.UpdateItemInput {
	b := dynamo.New()
	now := b.Str(req.At.UTC().Format(TimeFormat))
	tokset := b.Value(&types.AttributeValueMemberSS{Value: []string{tok}})
	countBelow := b.Below("consecutive_failures", limit)
	fresh := "(attribute_not_exists(" + b.Name("write_tokens") + ") OR NOT contains(" + b.Name("write_tokens") + ", " + b.Str(tok) + "))"
	addItem := ""
	if req.Item != "" {
		// A streak counts distinct items: the item's own repeated
		// failures are its, not the model's.
		fresh += " AND (attribute_not_exists(" + b.Name("streak_items") + ") OR NOT contains(" + b.Name("streak_items") + ", " + b.Str(req.Item) + "))"
		addItem = ", " + b.Name("streak_items") + " " + b.Value(&types.AttributeValueMemberSS{Value: []string{req.Item}})
	}
	set := []string{
		b.Name("last_failure_at") + " = " + b.Num(req.At.UnixMilli()),
		b.Name("last_error_type") + " = " + b.Str(string(req.Class)),
		b.Name("last_error") + " = " + b.Str(cmp.Or(req.Reason, "-")),
		b.Name("updated_at") + " = " + now,
	}
	one := b.Num(1)
	var update, cond string
	if !disable {
		set = append(set, b.Name("disabled")+" = if_not_exists("+b.Name("disabled")+", "+b.Bool(false)+")")
		update = "SET " + strings.Join(set, ", ") +
			" ADD " + b.Name("consecutive_failures") + " " + one + ", " + b.Name("write_tokens") + " " + tokset + addItem
		cond = "(" + countBelow + " OR " + b.Name("disabled") + " = " + b.Bool(true) + ") AND " + fresh
	} else {
		set = append(set,
			b.Name("disabled")+" = "+b.Bool(true),
			b.Name("disabled_by")+" = "+b.Str(ByAuto),
			b.Name("disabled_at")+" = "+now,
			b.Name("disable_reason")+" = "+b.Str(disableReason(limit+1, req.Class)),
			b.Name("disable_token")+" = "+b.Str(tok),
			b.Name("write_tokens")+" = "+tokset,
		)
		update = "SET " + strings.Join(set, ", ") +
			" ADD " + b.Name("consecutive_failures") + " " + one + ", " + b.Name("disables") + " " + one + addItem
		cond = "NOT " + countBelow + " AND (attribute_not_exists(" + b.Name("disabled") + ") OR " +
			b.Name("disabled") + " = " + b.Bool(false) + ") AND " + fresh
	}
	return s.table().Update(req.Model, update, cond, b)
}

// ResetFailures sets an enabled model's count to zero:
//
//	SET consecutive_failures = 0 REMOVE write_tokens, streak_items
//	IF consecutive_failures > 0 AND disabled = false
//
// A failed condition is not an error: there was nothing to reset.
func (s *Dynamo) ResetFailures(ctx context.Context, model string, now time.Time) (bool, error) {
	b := dynamo.New()
	zero := b.Num(0)
	update := "SET " + b.Name("consecutive_failures") + " = " + zero + ", " + b.Name("updated_at") + " = " + b.Str(now.UTC().Format(TimeFormat)) +
		" REMOVE " + b.Name("write_tokens") + ", " + b.Name("streak_items")
	cond := b.Name("consecutive_failures") + " > " + zero + " AND " + b.Name("disabled") + " = " + b.Bool(false)
	ok, err := s.table().Try(ctx, model, update, cond, b)
	if err != nil {
		return false, fmt.Errorf("reset failures of model %s: %w", model, err)
	}
	return ok, nil
}

// Recover re-enables an auto-disabled model whose cooldown has passed:
//
//	SET disabled = false, consecutive_failures = :reset, recovered_at, recovered_by = "recovery"
//	ADD recoveries 1 REMOVE write_tokens, streak_items, disable_token
//	IF disabled = true AND disabled_by = "auto" AND last_failure_at <= :now - cooldown
func (s *Dynamo) Recover(ctx context.Context, req RecoverRequest) (Model, error) {
	b := dynamo.New()
	now := req.Now.UTC().Format(TimeFormat)
	update := "SET " + b.Name("disabled") + " = " + b.Bool(false) +
		", " + b.Name("consecutive_failures") + " = " + b.Num(int64(resetTo(req.ResetTo))) +
		", " + b.Name("recovered_at") + " = " + b.Str(now) +
		", " + b.Name("recovered_by") + " = " + b.Str(ByRecovery) +
		", " + b.Name("updated_at") + " = " + b.Str(now) +
		" ADD " + b.Name("recoveries") + " " + b.Num(1) +
		" REMOVE " + b.Name("write_tokens") + ", " + b.Name("streak_items") + ", " + b.Name("disable_token")
	cond := b.Name("disabled") + " = " + b.Bool(true) + " AND " + b.Name("disabled_by") + " = " + b.Str(ByAuto) +
		" AND " + b.Name("last_failure_at") + " <= " + b.Num(req.Now.Add(-cooldown(req.Cooldown)).UnixMilli())
	o, err := s.table().Apply(ctx, req.Model, s.table().Update(req.Model, update, cond, b))
	cur := o.Record
	switch {
	case err != nil:
		return Model{}, fmt.Errorf("recover model %s: %w", req.Model, err)
	case o.Applied:
		return cur.model(), nil
	case !o.Exists:
		return Model{}, fmt.Errorf("recover model %s: %w", req.Model, ErrNotFound)
	case !cur.Disabled && cur.RecoveredBy == ByRecovery && cur.RecoveredAt == now:
		// A retried request whose first attempt applied.
		return cur.model(), nil
	}
	return Model{}, fmt.Errorf("recover model %s: not an auto-disabled model past its cooldown: %w", req.Model, ErrConflict)
}

// SetDisabled is the operator override, unconditional (it is idempotent):
// disable sets disabled_by "operator", which Recover never undoes; enable
// resets the count to zero.
func (s *Dynamo) SetDisabled(ctx context.Context, model string, disabled bool, reason string, now time.Time) (Model, error) {
	if model == "" {
		return Model{}, errors.New("set disabled: model is required")
	}
	b := dynamo.New()
	ts := b.Str(now.UTC().Format(TimeFormat))
	var update string
	if disabled {
		update = "SET " + b.Name("disabled") + " = " + b.Bool(true) +
			", " + b.Name("disabled_by") + " = " + b.Str(ByOperator) +
			", " + b.Name("disabled_at") + " = " + ts +
			", " + b.Name("disable_reason") + " = " + b.Str(cmp.Or(reason, "-")) +
			", " + b.Name("consecutive_failures") + " = if_not_exists(" + b.Name("consecutive_failures") + ", " + b.Num(0) + ")" +
			", " + b.Name("updated_at") + " = " + ts
	} else {
		update = "SET " + b.Name("disabled") + " = " + b.Bool(false) +
			", " + b.Name("consecutive_failures") + " = " + b.Num(0) +
			", " + b.Name("recovered_at") + " = " + ts +
			", " + b.Name("recovered_by") + " = " + b.Str(ByOperator) +
			", " + b.Name("updated_at") + " = " + ts +
			" REMOVE " + b.Name("write_tokens") + ", " + b.Name("streak_items") + ", " + b.Name("disable_token")
	}
	in := s.table().Update(model, update, "", b)
	in.ReturnValuesOnConditionCheckFailure = types.ReturnValuesOnConditionCheckFailureNone
	o, err := s.table().Apply(ctx, model, in)
	if err != nil {
		return Model{}, fmt.Errorf("set model %s disabled=%t: %w", model, disabled, err)
	}
	return o.Record.model(), nil
}
