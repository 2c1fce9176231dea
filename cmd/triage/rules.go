package main

import (
	"fmt"
	"io"
	"strings"

	"github.com/triagehq/triage/dev/simulate"
	"github.com/triagehq/triage/internal/policy"
	"github.com/triagehq/triage/internal/work"
)

func init() {
	commands["rules"] = command{"check an operator's classification rules file, or test it on the error log (rules check|test)", runRules}
}

func runRules(stdin io.Reader, stdout io.Writer, args []string) error {
	return dispatchVerb("rules", map[string]verbCmd{
		"check": {"check a rules file as a function's start would: every bad rule with its line and reason", runRulesCheck},
		"test": {"show which recorded failures each rule would reclassify, and how the decisions change",
			func(stdout io.Writer, args []string) error { return runRulesTest(stdin, stdout, args) }},
	}, stdout, args)
}

func runRulesCheck(stdout io.Writer, args []string) error {
	fs := newFlagSet("rules check", "rules check FILE [--json]\n\n"+
		"Reads an operator's classification rules file (docs/design.md \"Operator rules\"; schema:\n"+
		"docs/rules.schema.json) through the loader every function runs at its start, and prints\n"+
		"its rules, or every bad rule with its line and the reason (exit 1).")
	asJSON := fs.Bool("json", false, "print the rules as JSON")
	pos, err := parseInterspersed(fs, args)
	if err != nil {
		return err
	}
	if len(pos) != 1 {
		return usageError{"give one rules FILE"}
	}
	set, err := loadRulesFile(pos[0])
	if err != nil {
		return err
	}
	if *asJSON {
		type rule struct {
			Line  int        `json:"line"`
			Name  string     `json:"name"`
			Class work.Class `json:"class"`
			Delay string     `json:"delay,omitempty"`
		}
		out := []rule{}
		for _, r := range set.Rules {
			x := rule{Line: r.Line, Name: r.Name, Class: r.Class}
			if r.Delay > 0 {
				x.Delay = r.Delay.String()
			}
			out = append(out, x)
		}
		return printJSON(stdout, out)
	}
	tw := newTable(stdout, "LINE", "RULE", "CLASS", "DELAY")
	for _, r := range set.Rules {
		delay := "-"
		if r.Delay > 0 {
			delay = r.Delay.String()
		}
		addRow(tw, r.Line, r.Name, r.Class, delay)
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	fmt.Fprintf(stdout, "%s: %s, all valid\n", cell(pos[0]), plural(set.Len(), "rule", "rules"))
	return nil
}

func runRulesTest(stdin io.Reader, stdout io.Writer, args []string) error {
	fs := newFlagSet("rules test", "rules test RULES [--retry-profile NAME] [--json] [EXPORT...]\n"+
		"       triage rules test RULES (--stack NAME | --errorlog-table NAME) [--since T] [--until T] [--retry-profile NAME] [--json]\n\n"+
		"Weighs an operator's rules file (RULES, read as a function's start reads it: a bad rule\n"+
		"is refused with its line and reason) against the recorded error log — the ErrorLog\n"+
		"table (with --stack or --errorlog-table), or exports as `triage backtest` reads them\n"+
		"(EXPORT files, else stdin) — and shows, per rule in file order, the failures it would\n"+
		"decide (the first rule that matches decides): how many, from which recorded class to\n"+
		"its class, the decision before and after (the retry profile's, jitter-free), and a few\n"+
		"redacted samples. Failures no rule matches are counted, not listed. A rule that\n"+
		"matches nothing says so.\n"+
		"Profiles: "+strings.Join(policy.Profiles(), ", ")+".")
	profileName := fs.String("retry-profile", "standard", "the retry profile the decisions are made by (the deployed one)")
	since := fs.String("since", "720h", "table: the oldest failure, an age (7d, 36h) or RFC 3339 (default: the 30-day retention)")
	until := fs.String("until", "", "table: read failures before this time, an age (7d, 36h) or RFC 3339")
	sf := addStackFlags(fs, uses{errorLog: true})
	pos, err := parseInterspersed(fs, args)
	if err != nil {
		return err
	}
	if len(pos) == 0 {
		return usageError{"give the rules FILE to test"}
	}
	profile, err := policy.Lookup(*profileName)
	if err != nil {
		return usageError{err.Error()}
	}
	set, err := loadRulesFile(pos[0])
	if err != nil {
		return err
	}
	log, err := readFailureLog(stdin, sf, *since, *until, pos[1:])
	if err != nil {
		return err
	}
	rep := simulate.TestRules(set, log, profile)
	if sf.jsonOut {
		return printJSON(stdout, rep)
	}
	return printRulesTest(stdout, rep)
}

// printRulesTest writes a rules test: a line of totals, then each rule with
// its changes and samples.
func printRulesTest(w io.Writer, rep simulate.RulesTest) error {
	fmt.Fprintf(w, "%s against %s (profile %s): %s matched by a rule, %s by none (not listed)\n",
		cell(rep.Source), plural(rep.Failures, "recorded failure", "recorded failures"), rep.Profile,
		plural(rep.Matched, "failure", "failures"), plural(rep.Unmatched, "failure", "failures"))
	for _, r := range rep.Rules {
		fmt.Fprintf(w, "\nrule %s (line %d) → %s: ", cell(r.Rule), r.Line, r.Class)
		if r.Matched == 0 {
			fmt.Fprintln(w, "matches no recorded failure")
			continue
		}
		fmt.Fprintf(w, "%s, %d reclassified, %s\n", plural(r.Matched, "failure", "failures"), r.Reclassified,
			plural(r.DecisionChanged, "decision changes", "decisions change"))
		tw := newTable(w, "  COUNT", "FROM", "TO", "DECISION BEFORE", "DECISION AFTER")
		for _, c := range r.Changes {
			after := c.After
			if c.After == c.Before {
				after = "(unchanged)"
			}
			addRow(tw, fmt.Sprintf("  %d", c.Count), c.From, c.To, c.Before, after)
		}
		if err := tw.Flush(); err != nil {
			return err
		}
		for _, s := range r.Samples {
			fmt.Fprintf(w, "  sample: %s\n", cell(s))
		}
	}
	return nil
}
