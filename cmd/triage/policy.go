package main

import (
	"fmt"
	"io"
	"math"
	"strings"

	"github.com/triagehq/triage/cmd/triage/console"
	"github.com/triagehq/triage/internal/failure"
	"github.com/triagehq/triage/internal/gates/breaker"
	"github.com/triagehq/triage/internal/policy"
)

func init() {
	commands["policy"] = command{"print the decision table of a retry profile (policy show)", runPolicy}
}

const policySynopsis = `policy show [--profile P] [--json]

Prints every decision triage makes about a failure under profile P (default
standard; ` + "`triage policy show --profile daily-batch`" + `): per class, whether it is
retried, whether it spends an attempt, how many attempts and which backoff,
whether it counts against the model, what it tells the upstream's circuit
breaker, whether it slows a gate's ramp, sends a released record back behind
its gate, puts an llm provider out for the item or escalates to the
escalation model; then whose a provider-wide failure is (the upstream's, or
the item's own: the blame table) and how a failing breaker's probes are
paced; how waits are held (SQS visibility or parked), what a delivery whose
claim lost does (docs/design.md "The decision table"), the class a status
gets by the upstream's role when nothing more specific decides
(docs/design.md "Defaults by role"); then the rows of work that is not a
stage's (an owner's notice, a producer's send, the CLI's AWS calls), and
the policy's other outputs: the dead-letter reason of a message with no
usable item, escalation, give-up thresholds and drain limits.`

// policyView is what policy show prints.
type policyView struct {
	Profile           string                 `json:"profile"`
	Description       string                 `json:"description"`
	RequestedCap      string                 `json:"requested_cap"`
	ProviderQuotaWait string                 `json:"provider_quota_wait"`
	BudgetRecheck     string                 `json:"budget_recheck,omitempty"`
	Classes           []policy.Row           `json:"classes"`
	Probing           policy.Probing         `json:"probing"`
	Blame             []blameView            `json:"blame"`
	Holding           holdingView            `json:"holding"`
	GateWaits         gateWaitsView          `json:"gate_waits"`
	LostClaims        []policy.LostClaimRule `json:"conflicts"`
	RoleDefaults      []roleDefaultView      `json:"role_defaults"`
	Calls             []callView             `json:"calls"`
	Outputs           outputsView            `json:"outputs"`
}

// roleDefaultView is one row of failure.RoleDefaults: the statuses and
// the class per role.
type roleDefaultView struct {
	Statuses string                  `json:"statuses"`
	Classes  map[failure.Role]string `json:"classes"`
	Note     string                  `json:"note,omitempty"`
}

func roleDefaults() []roleDefaultView {
	var out []roleDefaultView
	for _, row := range failure.RoleDefaults {
		v := roleDefaultView{Statuses: row.Label(), Classes: map[failure.Role]string{}, Note: row.Note}
		for _, r := range failure.Roles() {
			v.Classes[r] = string(row.Class(r))
		}
		out = append(out, v)
	}
	return out
}

// blameView is one row of the blame table with the profile's numbers.
type blameView struct {
	Evidence string       `json:"evidence"`
	Blame    policy.Blame `json:"blame"`
	Item     string       `json:"item"`
	Breaker  string       `json:"breaker"`
}

// gateWaitsView is how long a wait behind a closed gate lasts where the
// gate's provider knows no time (policy.Profile.Reopens).
type gateWaitsView struct {
	Probing string `json:"probing"`
	NoModel string `json:"no_model"`
	Floor   string `json:"floor"`
}

type holdingView struct {
	MaxVisibility     string `json:"max_visibility"`
	ParkAfter         string `json:"park_after"`
	ParkAfterReceives int    `json:"park_after_receives"`
	Unrecorded        string `json:"unrecorded"`
}

func runPolicy(_ io.Reader, stdout io.Writer, args []string) error {
	fs := newFlagSet("policy", policySynopsis)
	profile := fs.String("profile", "standard", "the retry profile: "+strings.Join(policy.Profiles(), ", "))
	asJSON := fs.Bool("json", false, "print one JSON object")
	if len(args) == 0 || args[0] != "show" {
		if len(args) > 0 && (args[0] == "-h" || args[0] == "--help") {
			fs.Usage()
			return nil
		}
		fs.Usage()
		return usageError{"missing subcommand: show"}
	}
	if err := parseFlags(fs, args[1:]); err != nil {
		return err
	}
	if fs.NArg() > 0 {
		return usageError{"policy show takes no arguments, got " + strings.Join(fs.Args(), " ")}
	}
	p, err := policy.Lookup(*profile)
	if err != nil {
		return usageError{err.Error()}
	}
	var h policy.Holding
	pr := p.Probing.WithDefaults()
	var blame []blameView
	for _, r := range policy.Blames {
		blame = append(blame, blameView{Evidence: r.Describe(pr), Blame: r.Blame, Item: r.Item, Breaker: r.Breaker})
	}
	v := policyView{Profile: p.Name, Description: p.Description, RequestedCap: p.RequestedCap.String(),
		ProviderQuotaWait: p.ProviderQuotaWait.String(), Classes: p.Rows(), LostClaims: policy.LostClaims, RoleDefaults: roleDefaults(), Probing: pr, Blame: blame,
		Calls: callRows(), Outputs: outputs(),
		Holding: holdingView{MaxVisibility: h.Visibility().String(), ParkAfter: policy.DefaultParkAfter.String(),
			ParkAfterReceives: policy.DefaultParkAfterReceives, Unrecorded: h.UnrecordedBackoff()},
		GateWaits: gateWaitsView{Probing: policy.ProbeWait.String(), NoModel: policy.NoModelWait.String(), Floor: policy.GateWaitFloor.String()}}
	if p.BudgetRecheck > 0 {
		v.BudgetRecheck = p.BudgetRecheck.String()
	}
	if *asJSON {
		return printJSON(stdout, v)
	}
	return printPolicy(stdout, v)
}

func printPolicy(w io.Writer, v policyView) error {
	fmt.Fprintf(w, "profile %s: %s\n", v.Profile, v.Description)
	budget := "until 00:00 UTC"
	if v.BudgetRecheck != "" {
		budget = "rechecked every " + v.BudgetRecheck
	}
	fmt.Fprintf(w, "Retry-After honoured up to %s; a provider's quota waits %s; triage's own budget waits %s\n\n",
		v.RequestedCap, v.ProviderQuotaWait, budget)
	tw := newTable(w, "CLASS", "STAGE", "RETRY", "COUNTS", "ATTEMPTS", "BACKOFF", "MODEL", "BREAKER", "CONGESTS", "BACK BEHIND GATE", "SKIPS PROVIDER", "ESCALATES")
	for _, r := range v.Classes {
		stage, attempts, counts := "all", "-", console.YesNo(r.Counts)
		if r.Stage != "" {
			stage = string(r.Stage)
		}
		if !r.Retryable {
			counts = "-" // dead-lettered at once: the one attempt ends there
		}
		if r.MaxAttempts > 0 {
			attempts = fmt.Sprint(r.MaxAttempts)
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\n", r.Class, stage, console.YesNo(r.Retryable), counts, attempts,
			orDash(r.Backoff), console.YesNo(r.ModelSpecific), r.Breaker, console.YesNo(r.Congests), console.YesNo(r.BackBehindGate), console.YesNo(r.SkipsProvider), console.YesNo(r.Escalates))
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	fmt.Fprintf(w, "\nwhose failure: a provider-wide failure (a class whose BREAKER is trips) is judged by the first row that holds\n")
	tw = newTable(w, "EVIDENCE", "BLAME", "THE ITEM", "THE BREAKER")
	for _, b := range v.Blame {
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\n", b.Evidence, b.Blame, b.Item, b.Breaker)
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	fmt.Fprintf(w, "probes: a failing breaker's window grows ×%g per failed probe in a row after the first, at most ×%g (%s at the breakers' %s);\n"+
		"the scheduler probes with a waiter that is no suspect, else the one that served the fewest probes\n",
		v.Probing.IntervalMultiplier, v.Probing.MaxInterval, v.Probing.Interval(breaker.DefaultOpenFor, math.MaxInt32), breaker.DefaultOpenFor)
	fmt.Fprintf(w, "\nwaits: held through SQS visibility up to %s (at most %s); parked for the scheduler when longer, when\n"+
		"behind a gate, at the redrive backstop's receive count − 1, or (a wait spending no attempt) at receive %d;\n"+
		"a record whose outcome could not be written stays queued, on its receive count: %s\n\n",
		v.Holding.ParkAfter, v.Holding.MaxVisibility, v.Holding.ParkAfterReceives, v.Holding.Unrecorded)
	fmt.Fprintf(w, "behind a closed gate (its provider reports its state; the policy decides the wait): until the time the provider\n"+
		"knows; while another caller probes, the probe's lease end, at most %s; no usable model and no recovery expected, %s;\n"+
		"a gate said closed until a time past, %s\n\n", v.GateWaits.Probing, v.GateWaits.NoModel, v.GateWaits.Floor)
	tw = newTable(w, "LOST CLAIM: THE ITEM IS", "ACTION", "DUPLICATE")
	for _, c := range v.LostClaims {
		fmt.Fprintf(tw, "%s\t%s\t%s\n", c.LostClaim, c.Action, console.YesNo(c.Duplicate))
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	fmt.Fprintf(w, "\nwhen nothing more specific decides, the status by the upstream's role (a model endpoint's 2xx is its\n"+
		"answer, judged as the llm stage judges it):\n\n")
	header := []string{"STATUS"}
	for _, r := range failure.Roles() {
		header = append(header, strings.ToUpper(string(r)))
	}
	tw = newTable(w, header...)
	for _, row := range v.RoleDefaults {
		line := row.Statuses
		for _, r := range failure.Roles() {
			line += "\t" + row.Classes[r]
		}
		fmt.Fprintln(tw, line)
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	return printRows(w, v)
}
