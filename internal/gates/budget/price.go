package budget

import (
	"fmt"
	"math"
	"math/bits"
	"sort"
	"strings"
)

// Price is what one model's calls cost, in micro-dollars.
type Price struct {
	// Input and Output are the prices of a million input and output tokens
	// (the providers' price lists are per million tokens).
	Input, Output Micros
	// PerCall is the up-front estimate of one call, charged before it;
	// zero means the table's default (COST_PER_CALL_USD).
	PerCall Micros
}

// Tokens reports whether p has token prices.
func (p Price) Tokens() bool { return p.Input > 0 || p.Output > 0 }

// Prices is the price table of the llm stage's models, keyed by chain entry
// ("provider:model"), with the flat per-call estimate for models it does
// not list or whose answer reports no usage.
type Prices struct {
	// Default is the flat estimate of one call (COST_PER_CALL_USD); it must
	// be positive.
	Default Micros
	// Models maps "provider:model" to its price.
	Models map[string]Price
}

// Estimate is the up-front charge of a call to model: its PerCall, else
// Default.
func (ps Prices) Estimate(model string) Micros {
	if p, ok := ps.Models[model]; ok && p.PerCall > 0 {
		return p.PerCall
	}
	return ps.Default
}

// Cost is what a call to model cost: its input and output tokens at the
// model's prices when the answer reported usage and the table has token
// prices for it, rounded up to the next micro-dollar; the call's Estimate
// otherwise, and for usage no call has (a negative count, or one whose
// price does not fit int64: the answer's JSON can say anything).
func (ps Prices) Cost(model string, inputTokens, outputTokens int, reported bool) Micros {
	p, ok := ps.Models[model]
	if !ok || !reported || !p.Tokens() || inputTokens < 0 || outputTokens < 0 {
		return ps.Estimate(model)
	}
	// Real answers are at most a few million tokens and prices at most
	// MaxPriceUSD per million tokens, far inside int64.
	inHi, in := bits.Mul64(uint64(inputTokens), uint64(p.Input))
	outHi, out := bits.Mul64(uint64(outputTokens), uint64(p.Output))
	total, carry := bits.Add64(in, out, 0)
	if inHi != 0 || outHi != 0 || carry != 0 || total > math.MaxInt64 {
		return ps.Estimate(model)
	}
	return Micros(total/1_000_000 + min(total%1_000_000, 1))
}

// MaxPriceUSD bounds a price in the table (USD per million tokens or per
// call): a larger one is a typo.
const MaxPriceUSD = 10_000

// ParsePrices reads a price table: comma- or newline-separated items
//
//	provider:model=INPUT/OUTPUT[/PER_CALL]
//
// with INPUT and OUTPUT in US dollars per million tokens and PER_CALL the
// up-front estimate of one call in dollars, for example
//
//	openai:gpt-4o-mini=0.15/0.60, bedrock:anthropic.claude-3-5-haiku-20241022-v1:0=0.80/4.00/0.002
//
// Keys are taken as written (callers canonicalise them, see Rekey); blank
// items and "#" comments are skipped. def is the flat estimate of models
// the table does not list.
func ParsePrices(s string, def Micros) (Prices, error) {
	if def <= 0 {
		return Prices{}, fmt.Errorf("budget: default cost per call %s must be positive", def)
	}
	ps := Prices{Default: def, Models: map[string]Price{}}
	for _, line := range strings.Split(s, "\n") {
		if i := strings.IndexByte(line, '#'); i >= 0 {
			line = line[:i]
		}
		for _, item := range strings.Split(line, ",") {
			item = strings.TrimSpace(item)
			if item == "" {
				continue
			}
			key, spec, ok := strings.Cut(item, "=")
			key = strings.TrimSpace(key)
			if !ok || key == "" {
				return Prices{}, fmt.Errorf("budget: price %q: want provider:model=input/output[/per_call]", item)
			}
			parts := strings.Split(spec, "/")
			if len(parts) < 2 || len(parts) > 3 {
				return Prices{}, fmt.Errorf("budget: price of %s: want input/output[/per_call] in USD, got %q", key, spec)
			}
			var vals [3]Micros
			for i, part := range parts {
				m, err := ParseUSD(part)
				if err != nil {
					return Prices{}, fmt.Errorf("budget: price of %s: %w", key, err)
				}
				if m > MaxPriceUSD*1_000_000 {
					return Prices{}, fmt.Errorf("budget: price of %s: %s is more than %d USD", key, m, MaxPriceUSD)
				}
				vals[i] = m
			}
			if _, dup := ps.Models[key]; dup {
				return Prices{}, fmt.Errorf("budget: %s is priced twice", key)
			}
			ps.Models[key] = Price{Input: vals[0], Output: vals[1], PerCall: vals[2]}
		}
	}
	return ps, nil
}

// Rekey returns ps with every key passed through canon (the chain's
// "provider:model" spelling); two keys with one canonical form are an
// error.
func (ps Prices) Rekey(canon func(string) (string, error)) (Prices, error) {
	out := Prices{Default: ps.Default, Models: make(map[string]Price, len(ps.Models))}
	keys := make([]string, 0, len(ps.Models))
	for k := range ps.Models {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		c, err := canon(k)
		if err != nil {
			return Prices{}, fmt.Errorf("budget: price of %s: %w", k, err)
		}
		if _, dup := out.Models[c]; dup {
			return Prices{}, fmt.Errorf("budget: %s is priced twice", c)
		}
		out.Models[c] = ps.Models[k]
	}
	return out, nil
}
