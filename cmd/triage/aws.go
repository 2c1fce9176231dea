package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"math"
	"net"
	"net/url"
	"os"
	"os/signal"
	"os/user"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	awsretry "github.com/aws/aws-sdk-go-v2/aws/retry"
	awshttp "github.com/aws/aws-sdk-go-v2/aws/transport/http"
	"github.com/aws/aws-sdk-go-v2/config"
	"github.com/aws/aws-sdk-go-v2/credentials"
	"github.com/aws/aws-sdk-go-v2/service/cloudformation"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/sqs"

	"github.com/triagehq/triage/internal/cfnstack"
	"github.com/triagehq/triage/internal/conf"
	"github.com/triagehq/triage/internal/gates/budget"
	"github.com/triagehq/triage/internal/policy"
	"github.com/triagehq/triage/internal/replay"
	"github.com/triagehq/triage/internal/store"
	"github.com/triagehq/triage/internal/store/ledger"
	"github.com/triagehq/triage/internal/store/objects"
	"github.com/triagehq/triage/internal/work"
)

// Defaults of the AWS flags.
const (
	// cliRequestTimeout bounds one AWS request, retries included.
	cliRequestTimeout = 10 * time.Second
	// cliDialTimeout bounds a TCP connect: an unreachable endpoint fails fast.
	cliDialTimeout = 3 * time.Second
	// cliStackEnv names the stack when --stack is not given.
	cliStackEnv = "TRIAGE_STACK"
)

// Stack output keys (template.yaml Outputs).
const (
	outItemsTable    = "ItemsTableName"
	outErrorLogTable = "ErrorLogTableName"
	outParkedTable   = "ParkedTableName"
	outBudgetTable   = "BudgetTableName"
	outBodiesTable   = "BodiesTableName"
	outBodiesBucket  = "BodiesBucketName"
	outAuditTable    = "AuditTableName"
	outIndexShards   = "ItemIndexShards"
)

// stackOutputPrefix is each stage's prefix in the stack's outputs ("LLM" +
// "QueueUrl").
var stackOutputPrefix = map[work.Stage]string{work.Fetch: "Fetch", work.LLM: "LLM", work.Notify: "Notify"}

// stackFlags are the flags every AWS command takes: where the stack is and
// what its resources are called.
type stackFlags struct {
	endpoint, region, profile, stack string
	timeout                          time.Duration
	itemsTable, errorLogTable        string
	parkedTable, budgetTable         string
	bodiesTable, bodiesBucket        string
	auditTable                       string
	indexShards                      int
	queues, dlqs                     map[work.Stage]*string
	pollWait                         time.Duration
	jsonOut                          bool
}

// uses names the resources whose flags a command takes: each command's
// --help lists only the tables and queues it reads or writes.
type uses struct {
	// items: the Items table, its index and the bodies; errorLog, audit and
	// budget: those tables; queues: every stage's queue and DLQ (and the
	// DLQs' read wait); fetchQueue: the fetch queue alone.
	items, errorLog, audit, budget, queues, fetchQueue bool
}

// addStackFlags adds the flags of the AWS connection (endpoint, region,
// profile, stack, timeout), --json, and those of the resources u names.
func addStackFlags(fs *flag.FlagSet, u uses) *stackFlags {
	f := &stackFlags{queues: map[work.Stage]*string{}, dlqs: map[work.Stage]*string{}}
	fs.StringVar(&f.endpoint, "endpoint", os.Getenv("AWS_ENDPOINT_URL"), "AWS endpoint URL, e.g. a local stack (default $AWS_ENDPOINT_URL; empty is AWS itself)")
	fs.StringVar(&f.region, "region", "", "AWS region (default $AWS_REGION, else us-east-1)")
	fs.StringVar(&f.profile, "profile", "", "shared-config profile (default $AWS_PROFILE)")
	fs.StringVar(&f.stack, "stack", os.Getenv(cliStackEnv), "CloudFormation stack whose Outputs name the queues and tables (default $"+cliStackEnv+")")
	fs.DurationVar(&f.timeout, "timeout", cliRequestTimeout, "bound on each AWS request")
	if u.items {
		fs.StringVar(&f.itemsTable, "items-table", "", "Items table (default: the stack's "+outItemsTable+")")
		fs.StringVar(&f.bodiesTable, "bodies-table", "", "Bodies table: small documents and enrichments (default: the stack's "+outBodiesTable+")")
		fs.StringVar(&f.bodiesBucket, "bodies-bucket", "", "bucket of large documents and enrichments (default: the stack's "+outBodiesBucket+")")
		fs.IntVar(&f.indexShards, "index-shards", 0, fmt.Sprintf("the Items table's by-listed-state partitions per group (default: the stack's %s, else %d)", outIndexShards, store.DefaultIndexShards))
	}
	if u.errorLog {
		fs.StringVar(&f.errorLogTable, "errorlog-table", "", "ErrorLog table (default: the stack's "+outErrorLogTable+")")
	}
	if u.audit {
		fs.StringVar(&f.auditTable, "audit-table", "", "audit-trail table (default: the stack's "+outAuditTable+")")
	}
	if u.budget {
		fs.StringVar(&f.budgetTable, "budget-table", "", "budget table (default: the stack's "+outBudgetTable+")")
	}
	for _, st := range work.Stages() {
		f.queues[st], f.dlqs[st] = new(string), new(string)
		if u.queues || (u.fetchQueue && st == work.Stages()[0]) {
			fs.StringVar(f.queues[st], string(st)+"-queue", "", "URL of the "+string(st)+" queue (default: the stack's "+stackOutputPrefix[st]+"QueueUrl)")
		}
		if u.queues {
			fs.StringVar(f.dlqs[st], string(st)+"-dlq", "", "URL of the "+string(st)+" dead-letter queue (default: the stack's "+stackOutputPrefix[st]+"DLQUrl)")
		}
	}
	f.pollWait = replay.DefaultPollWait
	if u.queues {
		fs.DurationVar(&f.pollWait, "wait", replay.DefaultPollWait, "DLQ reads: long-poll wait of each receive; one empty receive ends a queue's scan (0: short polls, enough for a local stack)")
	}
	fs.BoolVar(&f.jsonOut, "json", false, "print JSON instead of a table")
	return f
}

// needs names the resources a command uses.
type needs struct {
	items, errorLog, parked, budget bool
	queues                          bool
	// fetchQueue is the fetch queue alone (triage submit).
	fetchQueue bool
}

// stackConn is a connection to one stack: clients and resolved resource names.
type stackConn struct {
	endpoint string
	pollWait time.Duration
	ddb      *dynamodb.Client
	sqs      *sqs.Client
	aws      aws.Config

	itemsTable, errorLogTable, parkedTable, budgetTable string
	bodiesTable, bodiesBucket                           string
	auditTable                                          string
	// indexShards is the by-listed-state index's partitions per group
	// (store.ItemIndex.Shards).
	indexShards int
	queues      map[work.Stage]replay.Queues
	// params are the stack's parameters (empty without --stack).
	params map[string]string
}

// loadAWSConfig is the SDK config every AWS command uses: endpoint ("" is
// AWS), region and profile ("" their defaults), each request bounded by
// timeout with one retry and a fast dial. A local (loopback) endpoint gets
// dummy credentials unless some are configured.
func loadAWSConfig(ctx context.Context, endpoint, region, profile string, timeout time.Duration) (aws.Config, error) {
	if timeout <= 0 {
		return aws.Config{}, usageError{"--timeout must be positive"}
	}
	if endpoint != "" {
		u, err := url.Parse(endpoint)
		if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
			return aws.Config{}, usageError{fmt.Sprintf("--endpoint %q is not an http(s) URL", endpoint)}
		}
	}
	opts := []func(*config.LoadOptions) error{
		config.WithHTTPClient(awshttp.NewBuildableClient().WithTimeout(timeout).WithDialerOptions(func(d *net.Dialer) { d.Timeout = cliDialTimeout })),
		config.WithRetryer(func() aws.Retryer {
			cli := policy.CLICalls() // the policy's row of the command line's calls
			return awsretry.NewStandard(func(o *awsretry.StandardOptions) {
				o.MaxAttempts, o.MaxBackoff = cli.MaxAttempts, cli.Backoff.Max
			})
		}),
	}
	if region != "" {
		opts = append(opts, config.WithRegion(region))
	}
	if profile != "" {
		opts = append(opts, config.WithSharedConfigProfile(profile))
	}
	if endpoint != "" {
		opts = append(opts, config.WithBaseEndpoint(endpoint))
		// A local stack (moto) takes any credentials; do not make a
		// developer configure some, nor wait for the instance metadata
		// service to say there are none.
		if isLoopback(endpoint) && os.Getenv("AWS_ACCESS_KEY_ID") == "" && profile == "" && os.Getenv("AWS_PROFILE") == "" {
			opts = append(opts, config.WithCredentialsProvider(credentials.NewStaticCredentialsProvider("test", "test", "")))
		}
	}
	return conf.Load(ctx, nil, opts...)
}

// connect builds the AWS clients and resolves the resource names from the
// flags, then the stack's outputs. A resource the command needs and nobody
// named is a usage error.
func (f *stackFlags) connect(ctx context.Context, n needs) (*stackConn, error) {
	cfg, err := loadAWSConfig(ctx, f.endpoint, f.region, f.profile, f.timeout)
	if err != nil {
		return nil, err
	}
	if f.pollWait < 0 || f.pollWait > 20*time.Second {
		return nil, usageError{"--wait must be between 0s and 20s"}
	}
	c := &stackConn{endpoint: f.endpoint, pollWait: f.pollWait, ddb: dynamodb.NewFromConfig(cfg), sqs: sqs.NewFromConfig(cfg), aws: cfg,
		itemsTable: f.itemsTable, errorLogTable: f.errorLogTable, parkedTable: f.parkedTable, budgetTable: f.budgetTable,
		bodiesTable: f.bodiesTable, bodiesBucket: f.bodiesBucket, auditTable: f.auditTable, indexShards: f.indexShards,
		queues: map[work.Stage]replay.Queues{}}
	if f.indexShards != 0 {
		if err := store.CheckIndexShards(f.indexShards); err != nil {
			return nil, usageError{"--index-shards: " + err.Error()}
		}
	}
	for _, st := range work.Stages() {
		c.queues[st] = replay.Queues{Queue: *f.queues[st], DLQ: *f.dlqs[st]}
	}
	if f.stack != "" {
		info, err := cfnstack.Describe(ctx, cloudformation.NewFromConfig(cfg), f.stack)
		if err != nil {
			return nil, c.explain(err)
		}
		outs := info.Outputs
		c.params = info.Parameters
		fill := func(dst *string, key string) {
			if *dst == "" {
				*dst = outs[key]
			}
		}
		fill(&c.itemsTable, outItemsTable)
		fill(&c.errorLogTable, outErrorLogTable)
		fill(&c.parkedTable, outParkedTable)
		fill(&c.budgetTable, outBudgetTable)
		fill(&c.bodiesTable, outBodiesTable)
		fill(&c.bodiesBucket, outBodiesBucket)
		fill(&c.auditTable, outAuditTable)
		if n, err := strconv.Atoi(outs[outIndexShards]); c.indexShards == 0 && err == nil {
			c.indexShards = n
		}
		for _, st := range work.Stages() {
			q := c.queues[st]
			fill(&q.Queue, stackOutputPrefix[st]+"QueueUrl")
			fill(&q.DLQ, stackOutputPrefix[st]+"DLQUrl")
			c.queues[st] = q
		}
	}
	var missing []string
	check := func(want bool, v, flagName string) {
		if want && v == "" {
			missing = append(missing, "--"+flagName)
		}
	}
	check(n.items, c.itemsTable, "items-table")
	check(n.errorLog, c.errorLogTable, "errorlog-table")
	check(n.parked, c.parkedTable, "parked-table")
	check(n.budget, c.budgetTable, "budget-table")
	check(n.fetchQueue && !n.queues, c.queues[work.Fetch].Queue, "fetch-queue")
	for _, st := range work.Stages() {
		check(n.queues, c.queues[st].Queue, string(st)+"-queue")
		check(n.queues, c.queues[st].DLQ, string(st)+"-dlq")
	}
	if len(missing) > 0 {
		return nil, usageError{fmt.Sprintf("no %s: pass --stack NAME (or set $%s) or the flags themselves", strings.Join(missing, ", "), cliStackEnv)}
	}
	return c, nil
}

func isLoopback(endpoint string) bool {
	u, err := url.Parse(endpoint)
	if err != nil {
		return false
	}
	h := u.Hostname()
	if h == "localhost" {
		return true
	}
	ip := net.ParseIP(h)
	return ip != nil && ip.IsLoopback()
}

// explain turns an unreachable endpoint into a message that says so.
func (c *stackConn) explain(err error) error { return explainUnreachable(c.endpoint, err) }

// explainUnreachable words an error that never reached endpoint ("" is AWS
// itself) as "cannot reach …"; other errors are returned as they are.
func explainUnreachable(endpoint string, err error) error {
	if err == nil {
		return nil
	}
	var (
		op *net.OpError
		dn *net.DNSError
	)
	where := endpoint
	if where == "" {
		where = "AWS"
	}
	switch {
	case errors.As(err, &op):
		return fmt.Errorf("cannot reach %s: %v", where, op)
	case errors.As(err, &dn):
		return fmt.Errorf("cannot reach %s: %v", where, dn)
	case errors.Is(err, context.DeadlineExceeded):
		return fmt.Errorf("cannot reach %s: no answer in time (--timeout): %w", where, err)
	}
	return err
}

// items is the item store: bodies read back from the Bodies table and
// bucket, replays and notes logged in the error log when it is known.
func (c *stackConn) items() *store.Items {
	it := &store.Items{DB: c.ddb, Table: c.itemsTable, ParkedTable: c.parkedTable, ErrorLogTable: c.errorLogTable,
		IndexShards: c.indexShards, Bodies: store.BodyConfig{Table: c.bodiesTable}}
	if c.bodiesBucket != "" {
		it.Bodies.Objects = &objects.Bucket{S3: objects.NewClient(c.aws), Name: c.bodiesBucket}
	}
	return it
}

func (c *stackConn) index() *store.ItemIndex {
	return &store.ItemIndex{DB: c.ddb, Table: c.itemsTable, Shards: c.indexShards}
}

func (c *stackConn) errorLog() *store.ErrorLogReader {
	return &store.ErrorLogReader{DB: c.ddb, Table: c.errorLogTable}
}

func (c *stackConn) auditTrail() *ledger.Trail { return &ledger.Trail{DB: c.ddb, Table: c.auditTable} }

// budgetDays reads the budget table; cap and cost are irrelevant to reads.
func (c *stackConn) budgetDays() *budget.Daily {
	return &budget.Daily{DB: c.ddb, Table: c.budgetTable, Cap: 1, Cost: 1}
}

// replayer is a Replayer over c's queues and items that records by; it
// reports no progress (a command that draws a bar sets Progress).
func (c *stackConn) replayer(by string) *replay.Replayer {
	wait := c.pollWait
	if wait == 0 {
		wait = -1 // short polls
	}
	return &replay.Replayer{SQS: c.sqs, Items: c.items(), Index: c.index(), Queues: c.queues, DefaultBy: by, PollWait: wait}
}

// whoAmI names the operator for replay records: $TRIAGE_OPERATOR, else
// $USER or $USERNAME, else the OS account running triage (a container or
// a cron job often sets no $USER), else "cli".
func whoAmI() string {
	for _, k := range []string{"TRIAGE_OPERATOR", "USER", "USERNAME"} {
		if v := strings.TrimSpace(os.Getenv(k)); v != "" {
			return v
		}
	}
	if u, err := user.Current(); err == nil && strings.TrimSpace(u.Username) != "" {
		return strings.TrimSpace(u.Username)
	}
	return "cli"
}

// commandContext is cancelled by Ctrl-C, so a long scan stops (and releases
// what it holds) instead of being killed mid-batch.
func commandContext() (context.Context, context.CancelFunc) {
	return signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
}

// progressBar draws a \r-updated bar on stderr when stderr is a terminal.
type progressBar struct {
	mu    sync.Mutex
	w     io.Writer
	label string
	last  time.Time
	drawn bool
}

// progressOutput is where bars go; nil (tests, pipes) disables them.
var progressOutput = stderrIfTerminal()

func stderrIfTerminal() io.Writer {
	fi, err := os.Stderr.Stat()
	if err != nil || fi.Mode()&os.ModeCharDevice == 0 {
		return nil
	}
	return os.Stderr
}

func newProgressBar(label string) *progressBar { return &progressBar{w: progressOutput, label: label} }

// update redraws the bar at most ten times a second.
func (p *progressBar) update(done, total int, extra string) {
	if p == nil || p.w == nil {
		return
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	if now := time.Now(); now.Sub(p.last) < 100*time.Millisecond && (total == 0 || done < total) {
		return
	} else {
		p.last = now
	}
	const width = 30
	bar := strings.Repeat("·", width)
	count := fmt.Sprintf("%d", done)
	if total > 0 {
		filled := min(width, done*width/total)
		bar = strings.Repeat("█", filled) + strings.Repeat("·", width-filled)
		count = fmt.Sprintf("%d/%d", done, total)
	}
	fmt.Fprintf(p.w, "\r%s %s %s %s\x1b[K", bar, count, p.label, extra)
	p.drawn = true
}

// done clears the bar.
func (p *progressBar) done() {
	if p == nil || p.w == nil {
		return
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.drawn {
		fmt.Fprint(p.w, "\r\x1b[K")
	}
}

func (p *progressBar) replay(pr replay.Progress) {
	p.update(pr.Done, pr.Total, fmt.Sprintf("selected %d replayed %d skipped %d errors %d", pr.Selected, pr.Replayed, pr.Skipped, pr.Errors))
}

// parseInterspersed parses flags anywhere among the arguments ("replay ID --note x"
// as well as "replay --note x ID") and returns the positional ones.
func parseInterspersed(fs *flag.FlagSet, args []string) ([]string, error) {
	var pos []string
	for range len(args) + 1 { // each round takes at least one argument
		if err := parseFlags(fs, args); err != nil {
			return nil, err
		}
		rest := fs.Args()
		if len(rest) == 0 {
			return pos, nil
		}
		if rest[0] == "--" {
			return append(pos, rest[1:]...), nil
		}
		pos, args = append(pos, rest[0]), rest[1:]
	}
	return pos, nil
}

// parseOneID parses args into fs and returns its one positional argument,
// the ID the command names; none or more is a usage error.
func parseOneID(fs *flag.FlagSet, args []string) (string, error) {
	pos, err := parseInterspersed(fs, args)
	if err != nil {
		return "", err
	}
	if len(pos) != 1 {
		return "", usageError{fs.Name() + " takes exactly one ID"}
	}
	return pos[0], nil
}

// parseWhen reads a time as RFC 3339 or as an age before now: "7d", "36h",
// "90m", "2w".
func parseWhen(s string, now time.Time) (time.Time, error) {
	s = strings.TrimSpace(s)
	if s == "" {
		return time.Time{}, nil
	}
	if t, err := time.Parse(time.RFC3339, s); err == nil {
		return t, nil
	}
	if t, err := time.Parse(time.DateOnly, s); err == nil {
		return t, nil
	}
	mult := time.Duration(0)
	switch {
	case strings.HasSuffix(s, "d"):
		mult = 24 * time.Hour
	case strings.HasSuffix(s, "w"):
		mult = 7 * 24 * time.Hour
	}
	if mult > 0 {
		var n int
		if _, err := fmt.Sscanf(s[:len(s)-1], "%d", &n); err != nil || n < 0 || fmt.Sprint(n) != s[:len(s)-1] ||
			int64(n) > math.MaxInt64/int64(mult) {
			return time.Time{}, fmt.Errorf("%q is not an age like 7d or a time like 2026-11-21T00:00:00Z", s)
		}
		return now.Add(-time.Duration(n) * mult), nil
	}
	d, err := time.ParseDuration(s)
	if err != nil || d < 0 {
		return time.Time{}, fmt.Errorf("%q is not an age like 7d or a time like 2026-11-21T00:00:00Z", s)
	}
	return now.Add(-d), nil
}
