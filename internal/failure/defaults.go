package failure

import (
	"strconv"
	"strings"
	"sync"

	"github.com/triagehq/triage/internal/work"
)

// StatusRange is an inclusive range of HTTP statuses.
type StatusRange struct{ From, To int }

// RoleDefault is one row of the defaults by role: the class each role's
// upstream gets for the statuses of the row when nothing more specific
// decides — no code, phrase, transport error or model answer
// (docs/design.md "Defaults by role"). A 2xx row is UNKNOWN everywhere:
// from a model endpoint a 2xx is an answer, judged by the llm stage's
// client (llm.JudgeRecorded), never by its status.
type RoleDefault struct {
	// Statuses are the statuses of the row. The first row that holds a
	// status decides it, so a row of specific statuses comes before the
	// row whose range catches the rest of their hundred.
	Statuses []StatusRange
	// Model, Source, Webhook, AWS and Unknown are the class per role.
	Model, Source, Webhook, AWS, Unknown work.Class
	// Note says why, where the row needs it.
	Note string
}

// Class returns the row's class for role r.
func (d RoleDefault) Class(r Role) work.Class {
	switch r {
	case RoleModel:
		return d.Model
	case RoleSource:
		return d.Source
	case RoleWebhook:
		return d.Webhook
	case RoleAWS:
		return d.AWS
	}
	return d.Unknown
}

// Label writes the row's statuses as docs/design.md does: "404, 410",
// "520–530", and a hundred's catch-all as "other 4xx" after specific
// statuses of the same hundred, "3xx" alone.
func (d RoleDefault) Label() string {
	var parts []string
	for _, r := range d.Statuses {
		switch {
		case r.From == r.To:
			parts = append(parts, strconv.Itoa(r.From))
		case r.From%100 == 0 && r.To == r.From+99:
			h := strconv.Itoa(r.From/100) + "xx"
			if len(parts) > 0 {
				h = "other " + h
			}
			parts = append(parts, h)
		default:
			parts = append(parts, strconv.Itoa(r.From)+"–"+strconv.Itoa(r.To))
		}
	}
	return strings.Join(parts, ", ")
}

func one(statuses ...int) []StatusRange {
	out := make([]StatusRange, len(statuses))
	for i, s := range statuses {
		out[i] = StatusRange{s, s}
	}
	return out
}

// RoleDefaults are the defaults by role, the last step of the precedence
// before the weak words of the text (docs/design.md "Precedence", "Defaults
// by role"); `triage policy show` prints them. CLIENT_ERROR, the one class
// that counts against a model's health, is a model endpoint's alone: the
// same status from AWS is a request triage built wrong (INTERNAL_BUG), from
// a source or a webhook an input or payload it rejects (SCHEMA_INVALID).
var RoleDefaults = []RoleDefault{
	{Statuses: one(401, 403, 407, 511), Model: work.AuthDenied, Source: work.AuthDenied, Webhook: work.AuthDenied, AWS: work.AuthDenied, Unknown: work.AuthDenied},
	{Statuses: one(402), Model: work.BudgetExceeded, Source: work.BudgetExceeded, Webhook: work.BudgetExceeded, AWS: work.BudgetExceeded, Unknown: work.BudgetExceeded},
	{Statuses: one(404, 410), Model: work.ClientError, Source: work.NotFound, Webhook: work.NotFound, AWS: work.NotFound, Unknown: work.NotFound,
		Note: "from a model endpoint, a model or deployment that is not there"},
	{Statuses: one(408, 499, 522, 524, 598, 599), Model: work.NetworkTimeout, Source: work.NetworkTimeout, Webhook: work.NetworkTimeout, AWS: work.NetworkTimeout, Unknown: work.NetworkTimeout},
	{Statuses: one(409), Model: work.Conflict, Source: work.Conflict, Webhook: work.Conflict, AWS: work.Conflict, Unknown: work.Conflict},
	{Statuses: one(413), Model: work.TokenLimit, Source: work.SchemaInvalid, Webhook: work.SchemaInvalid, AWS: work.InternalBug, Unknown: work.SchemaInvalid,
		Note: "from a model endpoint, an input too large for the model"},
	{Statuses: one(429), Model: work.RateLimited, Source: work.RateLimited, Webhook: work.RateLimited, AWS: work.RateLimited, Unknown: work.RateLimited},
	{Statuses: one(451), Model: work.ContentPolicy, Source: work.ContentPolicy, Webhook: work.ContentPolicy, AWS: work.ContentPolicy, Unknown: work.ContentPolicy},
	{Statuses: one(424, 425), Model: work.UpstreamUnavailable, Source: work.UpstreamUnavailable, Webhook: work.UpstreamUnavailable, AWS: work.UpstreamUnavailable, Unknown: work.UpstreamUnavailable,
		Note: "a failed dependency (Bedrock's model error), too early"},
	{Statuses: one(501, 505), Model: work.ClientError, Source: work.SchemaInvalid, Webhook: work.SchemaInvalid, AWS: work.InternalBug, Unknown: work.SchemaInvalid,
		Note: "a method or protocol the upstream does not implement: the request is wrong, not the server down"},
	{Statuses: []StatusRange{{300, 399}}, Model: work.InternalBug, Source: work.NotFound, Webhook: work.NotFound, AWS: work.InternalBug, Unknown: work.NotFound,
		Note: "a redirect not followed: from an API a wrong base URL, from a source or webhook a URL that moved"},
	{Statuses: append(one(500, 502, 503, 504, 507, 509), StatusRange{520, 530}, StatusRange{500, 599}),
		Model: work.UpstreamUnavailable, Source: work.UpstreamUnavailable, Webhook: work.UpstreamUnavailable, AWS: work.UpstreamUnavailable, Unknown: work.UpstreamUnavailable},
	{Statuses: append(append(one(400), StatusRange{405, 406}, StatusRange{411, 412}, StatusRange{414, 418}, StatusRange{421, 423}, StatusRange{426, 426}),
		append(one(428, 431), StatusRange{400, 499})...),
		Model: work.ClientError, Source: work.SchemaInvalid, Webhook: work.SchemaInvalid, AWS: work.InternalBug, Unknown: work.SchemaInvalid},
	{Statuses: []StatusRange{{200, 299}}, Model: work.Unknown, Source: work.Unknown, Webhook: work.Unknown, AWS: work.Unknown, Unknown: work.Unknown,
		Note: "from a model endpoint the answer is judged as the llm stage judges it; a status alone decides nothing"},
}

// roleIndex is a role's column in defaultTable.
func roleIndex(r Role) int {
	switch r {
	case RoleModel:
		return 0
	case RoleSource:
		return 1
	case RoleWebhook:
		return 2
	case RoleAWS:
		return 3
	}
	return 4
}

// defaultTable is RoleDefaults by status and role, built on first use: a
// classification looks its status up on every failure that reaches it.
var defaultTable = sync.OnceValue(func() *[600][5]work.Class {
	var t [600][5]work.Class
	for s := 100; s < 600; s++ {
		for _, row := range RoleDefaults {
			if !row.holds(s) {
				continue
			}
			for i, r := range Roles() {
				t[s][i] = row.Class(r)
			}
			break
		}
	}
	return &t
})

func (d RoleDefault) holds(status int) bool {
	for _, r := range d.Statuses {
		if status >= r.From && status <= r.To {
			return true
		}
	}
	return false
}

// DefaultClass returns the class RoleDefaults give status from an upstream
// of role r; ok is false for a status no row holds (1xx, out of range).
func DefaultClass(r Role, status int) (work.Class, bool) {
	if status < 100 || status >= 600 {
		return "", false
	}
	c := defaultTable()[status][roleIndex(r)]
	return c, c != ""
}
