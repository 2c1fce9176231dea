// Package moto starts and stops a moto_server (a local AWS) for the
// Docker-free local stack and the integration tests, with the front proxy
// that answers SQS and DynamoDB from the local ones (packages sqs and
// dynamo), and builds the environment and SDK configuration that point at
// it.
//
// A Server runs in its own process group on a loopback port and is stopped by
// that group's id only: Stop never signals a process this package did not
// start. On Linux the server also receives SIGKILL when the process that
// started it dies (a crashed or timed-out test binary leaves no orphan).
package moto

import (
	"bytes"
	"context"
	_ "embed"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/config"

	"github.com/triagehq/triage/dev/local/dynamo"
	"github.com/triagehq/triage/dev/local/procgroup"
	"github.com/triagehq/triage/dev/local/sqs"
	"github.com/triagehq/triage/internal/conf"
)

// Fixed identity of the local AWS: moto accepts any credentials and creates
// everything in AccountID.
const (
	// Region is the region every local resource lives in.
	Region = "us-east-1"
	// AccountID is moto's default account; ARNs and queue URLs carry it.
	AccountID = "123456789012"
	// AccessKeyID and SecretAccessKey are the dummy credentials moto accepts.
	AccessKeyID     = "test"
	SecretAccessKey = "test"
	// InstallHint tells a developer how to get moto_server.
	InstallHint = `install moto's server with: pip install "moto[server]"`
)

// ErrNotInstalled is returned (wrapped, with InstallHint) by Start when the
// moto_server binary is not on PATH.
var ErrNotInstalled = errors.New("moto_server not found")

// Options configure Start. The zero value starts "moto_server" on a free
// 127.0.0.1 port and discards its log.
type Options struct {
	// Bin is the moto_server executable, looked up on PATH; default "moto_server".
	Bin string
	// Host is the address to bind; default "127.0.0.1". Keep it loopback.
	Host string
	// Port to listen on; 0 picks a free port (and retries with another one
	// if the port is taken before moto binds it).
	Port int
	// LogPath, if set, receives moto's stdout and stderr (appended).
	// The last few KiB are kept in memory either way for error messages.
	LogPath string
	// StartTimeout bounds the wait until the server answers HTTP; default 20s.
	StartTimeout time.Duration
	// Unpatched runs moto exactly as installed, without the change to its
	// DynamoDB transactions that python/sitecustomize.py makes (for
	// measuring that change; see the file).
	Unpatched bool
	// SQS says which SQS answers: SQSLocal (the default) or SQSMoto. ""
	// reads $TRIAGE_LOCAL_SQS ("local" or "moto"), so a whole test run can
	// be pointed at moto's SQS for a comparison.
	SQS SQSMode
	// DynamoDB says which DynamoDB answers: DynamoDBLocal (the default) or
	// DynamoDBMoto. "" reads $TRIAGE_LOCAL_DYNAMODB ("local" or "moto").
	DynamoDB DynamoDBMode
}

// DynamoDBMode picks the DynamoDB behind a Server's URL.
type DynamoDBMode string

// The DynamoDB implementations a Server can answer with.
const (
	// DynamoDBLocal is package dynamo (minidyn behind our handler), served
	// by the Front in the test's (or the stack's) own process.
	DynamoDBLocal DynamoDBMode = "local"
	// DynamoDBMoto is moto's own DynamoDB, kept for comparisons and for the
	// conformance suites, which run against both.
	DynamoDBMoto DynamoDBMode = "moto"
)

// DynamoDBEnv is the environment variable that picks the DynamoDB when
// Options.DynamoDB is empty.
const DynamoDBEnv = "TRIAGE_LOCAL_DYNAMODB"

func (m DynamoDBMode) resolve() (DynamoDBMode, error) {
	return resolveMode(m, DynamoDBEnv, "DynamoDB", DynamoDBLocal, DynamoDBMoto)
}

// SQSMode picks the SQS behind a Server's URL.
type SQSMode string

// The SQS implementations a Server can answer with.
const (
	// SQSLocal is the emulator of package sqs, served by the Front in the
	// test's (or the stack's) own process: O(1) per call at any depth.
	SQSLocal SQSMode = "local"
	// SQSMoto is moto's own SQS, kept for comparisons.
	SQSMoto SQSMode = "moto"
)

// SQSEnv is the environment variable that picks the SQS when
// Options.SQS is empty.
const SQSEnv = "TRIAGE_LOCAL_SQS"

func (m SQSMode) resolve() (SQSMode, error) {
	return resolveMode(m, SQSEnv, "SQS", SQSLocal, SQSMoto)
}

// resolveMode is the service's mode m, else $env's; "" is local, and
// anything but local and moto is an error.
func resolveMode[M ~string](m M, env, service string, local, moto M) (M, error) {
	if m == "" {
		m = M(os.Getenv(env))
	}
	switch m {
	case "", local:
		return local, nil
	case moto:
		return moto, nil
	}
	return "", fmt.Errorf("moto: %s %q: want %q or %q", service, m, local, moto)
}

// Server is a running moto_server started by Start.
type Server struct {
	// URL is the endpoint clients use: the Front proxy, which serializes
	// DynamoDB requests and answers SQS from the emulator, e.g.
	// "http://127.0.0.1:43127" (no trailing slash).
	URL string
	// BackendURL is moto itself, without the Front.
	BackendURL string
	// Front is the proxy behind URL.
	Front *Front
	// SQS is the emulator that answers SQS requests at URL; nil when moto's
	// own SQS does (Options.SQS).
	SQS *sqs.Server
	// DynamoDB is the local DynamoDB that answers DynamoDB requests at URL;
	// nil when moto's own does (Options.DynamoDB).
	DynamoDB *dynamo.Server
	// MotoDynamoDBURL is a second endpoint, the same as URL except that
	// moto's own DynamoDB answers its DynamoDB requests (serialized): what
	// the conformance suites compare the local DynamoDB with. It is URL
	// when moto's DynamoDB answers there already.
	MotoDynamoDBURL string
	motoFront       *Front
	// PID is the server's process id, which is also its process group id.
	PID int

	log      *tailBuffer
	logFile  *os.File
	patchDir string
	done     chan struct{} // closed once the process has exited and been reaped
	waitErr  error         // valid after done is closed
	stopOnce sync.Once
	stopErr  error
}

const (
	defaultBin          = "moto_server"
	defaultHost         = "127.0.0.1"
	defaultStartTimeout = 20 * time.Second
	// stopGrace is how long Stop waits after SIGTERM before SIGKILL, and
	// after SIGKILL before giving up.
	stopGrace = 5 * time.Second
	// portAttempts bounds the retries when a picked free port is taken
	// before moto binds it.
	portAttempts = 3
	probeEvery   = 50 * time.Millisecond
)

// Start launches moto_server and returns once it answers HTTP, or an error
// (with the tail of moto's output) if it exits or does not answer within
// StartTimeout. ctx bounds the start only: cancelling it later does not stop
// the server; call Stop.
func Start(ctx context.Context, opts Options) (*Server, error) {
	if opts.Bin == "" {
		opts.Bin = defaultBin
	}
	if opts.Host == "" {
		opts.Host = defaultHost
	}
	if opts.StartTimeout <= 0 {
		opts.StartTimeout = defaultStartTimeout
	}
	mode, err := opts.SQS.resolve()
	if err != nil {
		return nil, err
	}
	ddbMode, err := opts.DynamoDB.resolve()
	if err != nil {
		return nil, err
	}
	bin, err := exec.LookPath(opts.Bin)
	if err != nil {
		return nil, fmt.Errorf("%w (%s): %s", ErrNotInstalled, opts.Bin, InstallHint)
	}
	ctx, cancel := context.WithTimeout(ctx, opts.StartTimeout)
	defer cancel()

	for attempt := 1; ; attempt++ {
		port := opts.Port
		if port == 0 {
			if port, err = freePort(opts.Host); err != nil {
				return nil, err
			}
		}
		s, err := launch(ctx, bin, opts, port)
		if err == nil {
			var sqsHandler, ddbHandler http.Handler
			if mode == SQSLocal {
				s.SQS = sqs.New(sqs.Options{Region: Region, AccountID: AccountID})
				sqsHandler = s.SQS
			}
			if ddbMode == DynamoDBLocal {
				s.DynamoDB = dynamo.New(dynamo.Options{Region: Region, AccountID: AccountID})
				ddbHandler = s.DynamoDB
			}
			if s.Front, err = startFront(s.URL, sqsHandler, ddbHandler); err != nil {
				_ = s.Stop()
				return nil, err
			}
			s.MotoDynamoDBURL = s.Front.URL
			if ddbHandler != nil {
				if s.motoFront, err = startFront(s.URL, sqsHandler, nil); err != nil {
					_ = s.Stop()
					return nil, err
				}
				s.MotoDynamoDBURL = s.motoFront.URL
			}
			s.BackendURL, s.URL = s.URL, s.Front.URL
			return s, nil
		}
		// A picked port can be taken between our probe and moto's bind; the
		// server then exits at once and another port is worth a try.
		if opts.Port != 0 || attempt == portAttempts || !errors.Is(err, errExited) || ctx.Err() != nil {
			return nil, err
		}
	}
}

var errExited = errors.New("moto_server exited during start")

func launch(ctx context.Context, bin string, opts Options, port int) (*Server, error) {
	s := &Server{
		URL:  "http://" + net.JoinHostPort(opts.Host, strconv.Itoa(port)),
		log:  &tailBuffer{max: 8 << 10},
		done: make(chan struct{}),
	}
	var out io.Writer = s.log
	if opts.LogPath != "" {
		f, err := os.OpenFile(opts.LogPath, os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o644)
		if err != nil {
			return nil, fmt.Errorf("open moto log: %w", err)
		}
		s.logFile = f
		out = io.MultiWriter(f, s.log)
	}
	cmd := exec.Command(bin, "-H", opts.Host, "-p", strconv.Itoa(port))
	if !opts.Unpatched {
		dir, err := writePatch()
		if err != nil {
			s.closeLog()
			return nil, err
		}
		s.patchDir = dir
		cmd.Env = withPythonPath(os.Environ(), dir)
	}
	cmd.Stdout = out
	cmd.Stderr = out
	cmd.SysProcAttr = procgroup.Attr()

	// procgroup.Start also reaps the process, so Stop never leaves a zombie.
	if err := procgroup.Start(cmd, func(err error) { s.waitErr = err; close(s.done) }); err != nil {
		s.closeLog()
		return nil, fmt.Errorf("start %s: %w", bin, err)
	}
	s.PID = cmd.Process.Pid

	if err := s.waitReady(ctx); err != nil {
		_ = s.Stop()
		return nil, fmt.Errorf("%w\n--- moto_server output (tail) ---\n%s", err, s.log.String())
	}
	return s, nil
}

// waitReady polls the server until any HTTP answer comes back, the process
// exits, or ctx ends.
func (s *Server) waitReady(ctx context.Context) error {
	client := &http.Client{Timeout: time.Second}
	tick := time.NewTicker(probeEvery)
	defer tick.Stop()
	for {
		req, err := http.NewRequestWithContext(ctx, http.MethodGet, s.URL+"/moto-api/data.json", nil)
		if err != nil {
			return fmt.Errorf("probe moto_server: %w", err)
		}
		if resp, err := client.Do(req); err == nil {
			_, _ = io.Copy(io.Discard, resp.Body)
			_ = resp.Body.Close()
			return nil
		}
		select {
		case <-s.done:
			return fmt.Errorf("%w (pid %d, %s): %v", errExited, s.PID, s.URL, s.waitErr)
		case <-ctx.Done():
			return fmt.Errorf("moto_server (pid %d) did not answer on %s: %w", s.PID, s.URL, ctx.Err())
		case <-tick.C:
		}
	}
}

// Stop terminates the server's process group (SIGTERM, then SIGKILL after
// 5s) and reaps it. It is safe to call more than once and on a nil Server;
// later calls return the first call's result. A server that already exited
// by itself is not signalled, since its process id may have been reused.
func (s *Server) Stop() error {
	if s == nil {
		return nil
	}
	s.stopOnce.Do(func() {
		s.stopErr = errors.Join(s.Front.Close(), s.motoFront.Close(), s.stop())
		s.closeLog()
	})
	return s.stopErr
}

func (s *Server) stop() error {
	select {
	case <-s.done:
		return nil
	default:
	}
	if err := procgroup.Signal(s.PID, procgroup.Term); err != nil {
		return fmt.Errorf("stop moto_server pid %d: %w", s.PID, err)
	}
	select {
	case <-s.done:
	case <-time.After(stopGrace):
		if err := procgroup.Signal(s.PID, procgroup.Kill); err != nil {
			return fmt.Errorf("kill moto_server pid %d: %w", s.PID, err)
		}
		select {
		case <-s.done:
		case <-time.After(stopGrace):
			return fmt.Errorf("moto_server pid %d did not exit after SIGKILL", s.PID)
		}
	}
	// Anything left in the group (a reloader's child, say) goes too. The
	// group id cannot belong to anyone else while members remain; when none
	// remain this is a no-op.
	_ = procgroup.Signal(s.PID, procgroup.Kill)
	return nil
}

// Done is closed when the server process has exited and been reaped.
func (s *Server) Done() <-chan struct{} { return s.done }

// Log returns the last few KiB of the server's output.
func (s *Server) Log() string { return s.log.String() }

// Reset wipes every resource in the server (POST /moto-api/reset). Tests
// sharing one server should prefer unique names over resets.
func (s *Server) Reset(ctx context.Context) error { return Reset(ctx, s.URL) }

// Reset wipes every resource in the moto server at url.
func Reset(ctx context.Context, url string) error {
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, strings.TrimRight(url, "/")+"/moto-api/reset", nil)
	if err != nil {
		return fmt.Errorf("moto reset: %w", err)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return fmt.Errorf("moto reset: %w", err)
	}
	defer resp.Body.Close()
	body, _ := io.ReadAll(io.LimitReader(resp.Body, 1<<10))
	if resp.StatusCode != http.StatusOK {
		return fmt.Errorf("moto reset: HTTP %d: %s", resp.StatusCode, bytes.TrimSpace(body))
	}
	return nil
}

// Env returns the environment variables that point an AWS SDK or the aws
// CLI at the moto server at url: AWS_ENDPOINT_URL, dummy credentials and the
// region (both AWS_REGION and AWS_DEFAULT_REGION, for the SDK and CLI v1).
func Env(url string) []string {
	return []string{
		"AWS_ENDPOINT_URL=" + url,
		"AWS_ACCESS_KEY_ID=" + AccessKeyID,
		"AWS_SECRET_ACCESS_KEY=" + SecretAccessKey,
		"AWS_REGION=" + Region,
		"AWS_DEFAULT_REGION=" + Region,
	}
}

// Environ returns base (typically os.Environ()) with Env(url) applied, for a
// child process such as the aws CLI or a bootstrap binary. Variables that
// would send requests elsewhere or pick other credentials (AWS_PROFILE,
// AWS_SESSION_TOKEN, AWS_ENDPOINT_URL_<SERVICE>, …) are dropped.
func Environ(url string, base []string) []string {
	out := make([]string, 0, len(base)+5)
	for _, kv := range base {
		k, _, _ := strings.Cut(kv, "=")
		if dropFromEnv(k) {
			continue
		}
		out = append(out, kv)
	}
	return append(out, Env(url)...)
}

func dropFromEnv(key string) bool {
	switch key {
	case "AWS_ENDPOINT_URL", "AWS_ACCESS_KEY_ID", "AWS_SECRET_ACCESS_KEY", "AWS_SESSION_TOKEN",
		"AWS_SECURITY_TOKEN", "AWS_REGION", "AWS_DEFAULT_REGION", "AWS_PROFILE", "AWS_DEFAULT_PROFILE",
		"AWS_ROLE_ARN", "AWS_WEB_IDENTITY_TOKEN_FILE", "AWS_CONTAINER_CREDENTIALS_RELATIVE_URI",
		"AWS_CONTAINER_CREDENTIALS_FULL_URI":
		return true
	}
	return strings.HasPrefix(key, "AWS_ENDPOINT_URL_")
}

// Config returns an SDK config for the moto server at url: conf.Load
// (so AWS_CA_BUNDLE keeps working) with the dummy credentials, Region and
// BaseEndpoint set to url. opts are applied last.
func Config(ctx context.Context, url string, opts ...func(*config.LoadOptions) error) (aws.Config, error) {
	creds := aws.CredentialsProviderFunc(func(context.Context) (aws.Credentials, error) {
		return aws.Credentials{AccessKeyID: AccessKeyID, SecretAccessKey: SecretAccessKey, Source: "moto"}, nil
	})
	base := []func(*config.LoadOptions) error{
		config.WithRegion(Region),
		config.WithCredentialsProvider(creds),
		config.WithBaseEndpoint(url),
	}
	cfg, err := conf.Load(ctx, nil, append(base, opts...)...)
	if err != nil {
		return aws.Config{}, fmt.Errorf("moto config: %w", err)
	}
	return cfg, nil
}

// freePort asks the kernel for a free TCP port on host. The port is released
// before moto binds it, hence the retry in Start.
func freePort(host string) (int, error) {
	l, err := net.Listen("tcp", net.JoinHostPort(host, "0"))
	if err != nil {
		return 0, fmt.Errorf("find a free port on %s: %w", host, err)
	}
	defer l.Close()
	return l.Addr().(*net.TCPAddr).Port, nil
}

func (s *Server) closeLog() {
	if s.logFile != nil {
		_ = s.logFile.Close()
		s.logFile = nil
	}
	if s.patchDir != "" {
		_ = os.RemoveAll(s.patchDir)
		s.patchDir = ""
	}
}

// PatchedLine is what moto's log says first when the patch is in force.
const PatchedLine = "triage: moto's TransactWriteItems copies only the items it names"

// ExpressionsPatchedLine is what moto's log says when the patches to its
// update expressions are in force (moto 5.2.1 only).
const ExpressionsPatchedLine = "triage: moto's update expressions are parsed once and walked in linear time"

// patch is python/sitecustomize.py: the moto_server Start starts imports
// it before moto (PYTHONPATH), and it makes moto's DynamoDB transactions
// copy only the items they name instead of whole tables.
//
//go:embed python/sitecustomize.py
var patch []byte

// writePatch writes the patch into a new temporary directory for
// PYTHONPATH; closeLog removes it.
func writePatch() (string, error) {
	dir, err := os.MkdirTemp("", "triage-moto-")
	if err != nil {
		return "", fmt.Errorf("moto patch: %w", err)
	}
	if err := os.WriteFile(filepath.Join(dir, "sitecustomize.py"), patch, 0o644); err != nil {
		_ = os.RemoveAll(dir)
		return "", fmt.Errorf("moto patch: %w", err)
	}
	return dir, nil
}

// withPythonPath returns env with dir first on PYTHONPATH.
func withPythonPath(env []string, dir string) []string {
	out := make([]string, 0, len(env)+1)
	path := dir
	for _, kv := range env {
		if v, ok := strings.CutPrefix(kv, "PYTHONPATH="); ok {
			if v != "" {
				path += string(os.PathListSeparator) + v
			}
			continue
		}
		out = append(out, kv)
	}
	return append(out, "PYTHONPATH="+path)
}

// tailBuffer keeps the last max bytes written to it.
type tailBuffer struct {
	mu  sync.Mutex
	max int
	buf []byte
}

func (b *tailBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.buf = append(b.buf, p...)
	if over := len(b.buf) - b.max; over > 0 {
		b.buf = append(b.buf[:0], b.buf[over:]...)
	}
	return len(p), nil
}

func (b *tailBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return string(b.buf)
}
