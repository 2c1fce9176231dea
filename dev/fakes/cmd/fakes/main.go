// Command fakes serves the fault-injecting LLM, article and webhook fakes on
// loopback ports for the local stack and soak tests.
//
//	fakes [-llm-addr 127.0.0.1:0] [-articles-addr 127.0.0.1:0] [-webhook-addr 127.0.0.1:0]
//	      [-seed N -mix rate_limit=0.1,always:invalid_json=0.02] ...
//
// It prints the three base URLs as one JSON line on stdout,
// {"llm":"http://127.0.0.1:…","articles":"…","webhook":"…"}, and serves until
// SIGINT or SIGTERM, then shuts down cleanly. The -mix applies to each fake
// the faults it supports, so its rates are validated per fake. Secrets come
// from the environment (FAKES_LLM_API_KEY, FAKES_WEBHOOK_SECRET) unless the
// flags are given, so they need not appear in a process listing.
package main

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"net/http"
	"os"
	"os/signal"
	"strings"
	"syscall"
	"time"

	"github.com/triagehq/triage/dev/fakes"
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	err := run(ctx, os.Args[1:], os.Stdout)
	switch {
	case err == nil:
	case errors.Is(err, flag.ErrHelp): // the flag package printed the usage
	default:
		fmt.Fprintln(os.Stderr, "fakes:", err)
		os.Exit(1)
	}
}

// config is the parsed command line.
type config struct {
	llmAddr, articlesAddr, webhookAddr string
	mix                                fakes.Mix
	llm                                fakes.LLMOptions
	articles                           fakes.ArticleOptions
	webhook                            fakes.WebhookOptions
}

func parseFlags(args []string) (config, error) {
	var c config
	fs := flag.NewFlagSet("fakes", flag.ContinueOnError)
	fs.StringVar(&c.llmAddr, "llm-addr", "127.0.0.1:0", "loopback `address` of the fake LLM")
	fs.StringVar(&c.articlesAddr, "articles-addr", "127.0.0.1:0", "loopback `address` of the fake article server")
	fs.StringVar(&c.webhookAddr, "webhook-addr", "127.0.0.1:0", "loopback `address` of the fake webhook receiver")
	fs.Uint64Var(&c.mix.Seed, "seed", 0, "seed of the fault mix")
	mix := fs.String("mix", "", "fault `rates`, e.g. rate_limit=0.1,always:invalid_json=0.02 (empty: no mix)")
	fs.IntVar(&c.mix.TransientCalls, "transient-calls", 0, "calls per key that can draw a transient fault (0: 2)")
	fs.StringVar(&c.llm.APIKey, "llm-api-key", os.Getenv("FAKES_LLM_API_KEY"), "API `key` the fake LLM requires (default $FAKES_LLM_API_KEY; empty: any)")
	models := fs.String("models", "", "comma-separated `models` the fake LLM serves (empty: any)")
	modelFaults := fs.String("model-faults", "", "per-model `faults`, e.g. bad-model=invalid_json")
	fs.DurationVar(&c.llm.RetryAfter, "llm-retry-after", 0, "Retry-After of the LLM's rate_limit (0: 2s)")
	fs.StringVar(&c.webhook.Secret, "webhook-secret", os.Getenv("FAKES_WEBHOOK_SECRET"), "HMAC `secret` the webhook verifies (default $FAKES_WEBHOOK_SECRET; empty: no check)")
	fs.IntVar(&c.articles.Size, "article-size", 0, "approximate article size in `bytes` (0: 2048)")
	var maxHang time.Duration
	fs.DurationVar(&maxHang, "max-hang", 0, "longest a hang holds a request (0: 30s)")
	if err := fs.Parse(args); err != nil {
		return c, err
	}
	if fs.NArg() > 0 {
		return c, fmt.Errorf("unexpected arguments %q", fs.Args())
	}
	rates, err := fakes.ParseRates(*mix)
	if err != nil {
		return c, err
	}
	c.mix.Rates = rates // validated per fake, on the part each supports
	if c.mix.TransientCalls < 0 {
		return c, fmt.Errorf("-transient-calls %d: must not be negative", c.mix.TransientCalls)
	}
	for m := range strings.SplitSeq(*models, ",") {
		if m = strings.TrimSpace(m); m != "" {
			c.llm.Models = append(c.llm.Models, m)
		}
	}
	c.llm.ModelFaults = map[string]fakes.Fault{}
	for item := range strings.SplitSeq(*modelFaults, ",") {
		if item = strings.TrimSpace(item); item == "" {
			continue
		}
		model, name, ok := strings.Cut(item, "=")
		if !ok {
			return c, fmt.Errorf("-model-faults item %q: want model=fault", item)
		}
		f, err := fakes.ParseFault(name)
		if err != nil {
			return c, fmt.Errorf("-model-faults: %w", err)
		}
		c.llm.ModelFaults[strings.TrimSpace(model)] = f
	}
	c.llm.MaxHang, c.articles.MaxHang, c.webhook.MaxHang = maxHang, maxHang, maxHang
	return c, nil
}

// fake is one of the three fakes as run needs it.
type fake interface {
	http.Handler
	Supports(fakes.Fault) bool
	SetMix(fakes.Mix) error
}

// run serves the fakes until ctx ends.
func run(ctx context.Context, args []string, stdout io.Writer) error {
	c, err := parseFlags(args)
	if err != nil {
		return err
	}
	llm, err := fakes.NewLLM(c.llm)
	if err != nil {
		return err
	}
	named := []struct {
		name string
		addr string
		fake fake
	}{
		{"llm", c.llmAddr, llm},
		{"articles", c.articlesAddr, fakes.NewArticles(c.articles)},
		{"webhook", c.webhookAddr, fakes.NewWebhook(c.webhook)},
	}
	// Each fake takes the part of the mix it supports; every fault is
	// supported by at least one fake.
	for _, n := range named {
		m := fakes.Mix{Seed: c.mix.Seed, TransientCalls: c.mix.TransientCalls, Rates: map[fakes.Fault]float64{}}
		for f, rate := range c.mix.Rates {
			if n.fake.Supports(f) {
				m.Rates[f] = rate
			}
		}
		if err := n.fake.SetMix(m); err != nil {
			return fmt.Errorf("%s: %w", n.name, err)
		}
	}

	urls := map[string]string{}
	var servers []*fakes.Server
	defer func() {
		for _, s := range servers {
			_ = s.Close()
		}
	}()
	for _, n := range named {
		s, err := fakes.Start(n.addr, n.fake)
		if err != nil {
			return fmt.Errorf("%s: %w", n.name, err)
		}
		servers = append(servers, s)
		urls[n.name] = s.URL
	}
	line, err := json.Marshal(urls)
	if err != nil {
		return err
	}
	if _, err := fmt.Fprintf(stdout, "%s\n", line); err != nil {
		return err
	}

	<-ctx.Done()
	var errs []error
	for _, s := range servers {
		errs = append(errs, s.Close())
	}
	servers = nil
	return errors.Join(errs...)
}
