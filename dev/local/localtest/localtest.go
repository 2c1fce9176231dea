// Package localtest gives integration tests a local AWS: one moto_server per
// test binary, started on first use, and a uniquely named stack created from
// template.yaml per call, so tests can run in parallel against one server;
// and ReplayingDB, the DynamoDB client of a write the SDK retried after it
// was applied.
//
// A package that uses it calls Main from TestMain, which stops the server
// when the tests end:
//
//	func TestMain(m *testing.M) { localtest.Main(m) }
//
//	func TestSomething(t *testing.T) {
//		env := localtest.Stack(t, map[string]string{"Profile": "predictions"})
//		client := sqs.NewFromConfig(env.AWS)
//		… env.Stack.QueueURL(work.Fetch) …
//	}
//
// TRIAGE_MOTO_LOG=/path/to/file keeps the server's log for debugging.
//
// When moto_server is missing, tests skip with an install hint — unless the CI environment variable is set: in CI a missing local
// AWS is a failure, never a skip.
package localtest

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"os/signal"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/cloudformation"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"

	"github.com/triagehq/triage/dev/local/moto"
	"github.com/triagehq/triage/dev/local/stack"
	"github.com/triagehq/triage/dev/local/template"
	"github.com/triagehq/triage/internal/cfnstack"
	"github.com/triagehq/triage/internal/store"
	"github.com/triagehq/triage/internal/store/objects"
)

// Env is a stack in the shared local AWS.
type Env struct {
	// Stack is the created stack with its outputs.
	Stack *stack.Stack
	// AWS is an SDK config for the local AWS: conf.Load with the dummy
	// credentials, us-east-1 and BaseEndpoint = Endpoint.
	AWS aws.Config
	// Endpoint is the moto URL, e.g. "http://127.0.0.1:43127".
	Endpoint string
}

// Environ returns os.Environ() pointed at the local AWS (moto.Environ), for
// child processes such as the functions' bootstrap binaries.
func (e *Env) Environ() []string { return moto.Environ(e.Endpoint, os.Environ()) }

// Conformance runs suite, a store's contract, against its in-memory twin
// (a new one from memory per case) and against its DynamoDB store (built
// once by dynamo, on a stack of its own, and shared by the cases), each as a
// parallel subtest. The DynamoDB store runs twice: "dynamo" on the local
// DynamoDB the tests use (package dynamo, unless TRIAGE_LOCAL_DYNAMODB=moto)
// and "moto" on moto's own, the reference where moto is right, so the local
// one is held to the same contract (docs/performance.md, "The local
// DynamoDB"). Inside "moto", Stack creates the stack on moto's DynamoDB.
func Conformance[S any](t *testing.T, suite func(t *testing.T, newStore func(*testing.T) S), memory func() S, dynamo func(*testing.T) S) {
	t.Run("memory", func(t *testing.T) {
		t.Parallel()
		suite(t, func(*testing.T) S { return memory() })
	})
	t.Run("dynamo", func(t *testing.T) {
		t.Parallel()
		s := dynamo(t)
		suite(t, func(*testing.T) S { return s })
	})
	t.Run("moto", func(t *testing.T) {
		t.Parallel()
		onMoto.Store(t, true)
		s := dynamo(t)
		onMoto.Delete(t)
		suite(t, func(*testing.T) S { return s })
	})
}

// onMoto holds the tests (Conformance's "moto" subtests, while their store
// is built) whose Stack is created on moto's own DynamoDB.
var onMoto sync.Map // testing.TB → bool

// Event reads the sample event events/<rel> of the module; t fails when
// it cannot.
func Event(t testing.TB, rel string) []byte {
	t.Helper()
	root, err := ModuleRoot()
	if err != nil {
		t.Fatal(err)
	}
	raw, err := os.ReadFile(filepath.Join(root, "events", rel))
	if err != nil {
		t.Fatal(err)
	}
	return raw
}

// Output is the stack's output key (a table's name, say); t fails when the
// stack has none.
func (e *Env) Output(t testing.TB, key string) string {
	t.Helper()
	v, err := e.Stack.Output(key)
	if err != nil {
		t.Fatal(err)
	}
	return v
}

// Timeouts. Creating a stack in moto takes about a second; the bounds are
// generous for a loaded 2-core CI machine but keep a hung tool from eating
// the whole test timeout.
const (
	serverStartTimeout = 30 * time.Second
	stackCreateTimeout = 60 * time.Second
	// maxNameLen keeps "<stack>-<LogicalId>-<12>" within SQS's 80 characters.
	maxNameLen = 40
)

var (
	mainCalled atomic.Bool

	serverOnce sync.Once
	serverMu   sync.Mutex
	server     *moto.Server
	serverErr  error

	stackSeq atomic.Int64

	rootOnce sync.Once
	root     string
	rootErr  error
)

// Main runs the tests and stops the shared moto_server afterwards — also
// when m.Run panics and when the binary gets SIGINT or SIGTERM — then exits
// with the tests' code. Call it from TestMain. (On Linux the server also dies
// with the test binary if that crashes; see package moto.)
func Main(m *testing.M) {
	os.Exit(run(m))
}

func run(m *testing.M) int {
	mainCalled.Store(true)
	defer stopServer()

	sigs := make(chan os.Signal, 1)
	signal.Notify(sigs, syscall.SIGINT, syscall.SIGTERM)
	defer signal.Stop(sigs)
	go func() {
		sig := <-sigs
		stopServer()
		signal.Reset(sig)
		if p, err := os.FindProcess(os.Getpid()); err == nil {
			_ = p.Signal(sig)
		}
	}()
	return m.Run()
}

func stopServer() {
	serverMu.Lock()
	defer serverMu.Unlock()
	if server != nil {
		if err := server.Stop(); err != nil {
			fmt.Fprintf(os.Stderr, "localtest: stop moto_server: %v\n", err)
		}
	}
}

// Require skips the test when bin is not on PATH, with hint — or fails it
// when the CI environment variable is set, since CI must never silently skip
// the integration tests.
func Require(t testing.TB, bin, hint string) {
	t.Helper()
	if _, err := exec.LookPath(bin); err == nil {
		return
	}
	msg := fmt.Sprintf("%s is not on PATH: %s", bin, hint)
	if os.Getenv("CI") != "" {
		t.Fatalf("%s (CI is set: a missing local AWS fails the build)", msg)
	}
	t.Skip(msg)
}

// Endpoint returns the URL of the test binary's shared moto_server, starting
// it on first use (see Require for when it skips): its Front, whose DynamoDB
// is the local one unless TRIAGE_LOCAL_DYNAMODB=moto — or moto's own inside
// Conformance's "moto" subtest.
func Endpoint(t testing.TB) string {
	t.Helper()
	Require(t, "moto_server", moto.InstallHint)
	if !mainCalled.Load() {
		t.Fatal("localtest: call localtest.Main(m) from TestMain, so the shared moto_server is stopped")
	}
	serverOnce.Do(func() {
		ctx, cancel := context.WithTimeout(context.Background(), serverStartTimeout)
		defer cancel()
		s, err := moto.Start(ctx, moto.Options{StartTimeout: serverStartTimeout, LogPath: os.Getenv("TRIAGE_MOTO_LOG")})
		serverMu.Lock()
		server, serverErr = s, err
		serverMu.Unlock()
	})
	serverMu.Lock()
	defer serverMu.Unlock()
	if serverErr != nil {
		t.Fatalf("localtest: start moto_server: %v", serverErr)
	}
	if _, ok := onMoto.Load(t); ok {
		return server.MotoDynamoDBURL
	}
	return server.URL
}

// MotoDynamoDBEndpoint returns the endpoint of the shared moto_server at
// which moto's own DynamoDB answers (moto.Server.MotoDynamoDBURL), for tests
// that compare the local DynamoDB with it.
func MotoDynamoDBEndpoint(t testing.TB) string {
	t.Helper()
	Endpoint(t)
	serverMu.Lock()
	defer serverMu.Unlock()
	return server.MotoDynamoDBURL
}

// Stack creates a uniquely named stack from the module's template.yaml with
// params overriding template parameters, and returns it with an SDK config
// for the local AWS. Stacks are not deleted: names never repeat within a
// test binary, and the server goes away with it.
func Stack(t testing.TB, params map[string]string) *Env {
	t.Helper()
	endpoint := Endpoint(t)
	tpl := TemplatePath(t)

	ctx, cancel := context.WithTimeout(t.Context(), stackCreateTimeout)
	defer cancel()
	st, err := stack.Create(ctx, stack.Options{
		Endpoint:     endpoint,
		Name:         UniqueName(t),
		TemplatePath: tpl,
		Parameters:   params,
		Timeout:      stackCreateTimeout,
	})
	if err != nil {
		t.Fatalf("localtest: %v", err)
	}
	cfg, err := moto.Config(ctx, endpoint)
	if err != nil {
		t.Fatalf("localtest: %v", err)
	}
	return &Env{Stack: st, AWS: cfg, Endpoint: endpoint}
}

// Bodies is the stack's body store: its Bodies table, and its bucket through
// an S3 client for the local AWS.
func (e *Env) Bodies() store.BodyConfig {
	return store.BodyConfig{Table: e.Stack.BodiesTable(),
		Objects: &objects.Bucket{S3: objects.NewClient(e.AWS), Name: e.Stack.BodiesBucket()}}
}

// Items is the stack's item store as the stage functions build it: items,
// parked waits, bodies, and the error log for replays and notes.
func (e *Env) Items() *store.Items {
	return &store.Items{DB: dynamodb.NewFromConfig(e.AWS), Table: e.Stack.ItemsTable(), ParkedTable: e.Stack.ParkedTable(),
		ErrorLogTable: e.Stack.ErrorLogTable(), Bodies: e.Bodies()}
}

// UniqueName returns a stack name derived from the test's name that no
// other call in this test binary returns (see StackName); use it for stacks
// created with package stack directly.
func UniqueName(t testing.TB) string { return StackName(t.Name(), stackSeq.Add(1)) }

var nonName = regexp.MustCompile(`[^A-Za-z0-9]+`)

// StackName turns a test name and a sequence number into a valid, short,
// unique stack name: "TestQueues/redrive" and 3 give "TestQueues-redrive-3".
func StackName(testName string, seq int64) string {
	suffix := "-" + strconv.FormatInt(seq, 10)
	name := strings.Trim(nonName.ReplaceAllString(testName, "-"), "-")
	switch {
	case name == "":
		name = "t"
	case !isLetter(name[0]):
		name = "t-" + name
	}
	if limit := maxNameLen - len(suffix); len(name) > limit {
		name = strings.TrimRight(name[:limit], "-")
	}
	return name + suffix
}

func isLetter(c byte) bool { return c >= 'A' && c <= 'Z' || c >= 'a' && c <= 'z' }

// Function returns the template's function logicalID and its environment
// as the stack e resolves it (queue URLs, table names, parameters): what a
// test needs to run the function's bootstrap as the stack would.
func (e *Env) Function(t testing.TB, logicalID string) (template.Function, map[string]string) {
	t.Helper()
	return resolvedFunction(t, logicalID, func(tpl *template.Template) (*template.Resolver, error) {
		ctx, cancel := context.WithTimeout(t.Context(), time.Minute)
		defer cancel()
		info, err := cfnstack.DescribeResources(ctx, cloudformation.NewFromConfig(e.AWS), e.Stack.Name)
		if err != nil {
			return nil, err
		}
		return template.StackResolver(tpl, info)
	})
}

// OfflineFunction returns the template's function logicalID and its
// environment resolved with no stack: the template's parameters (params
// over their defaults) and PlaceholderPhysical's names for the queues,
// tables and buckets of a stack "s" — the variables a deployment gives the
// function, for a test that starts its bootstrap without AWS.
func OfflineFunction(t testing.TB, logicalID string, params map[string]string) (template.Function, map[string]string) {
	t.Helper()
	return resolvedFunction(t, logicalID, func(tpl *template.Template) (*template.Resolver, error) {
		return template.NewResolver(tpl, template.ResolverConfig{
			Parameters: params,
			Pseudo:     template.Pseudo{StackName: "s"},
			Physical:   PlaceholderPhysical(tpl),
		})
	})
}

// resolvedFunction reads template.yaml, builds its resolver with resolver
// and returns the function logicalID with its environment, failing the
// test on any error.
func resolvedFunction(t testing.TB, logicalID string, resolver func(*template.Template) (*template.Resolver, error)) (template.Function, map[string]string) {
	t.Helper()
	tpl, err := template.ParseFile(TemplatePath(t))
	if err != nil {
		t.Fatal(err)
	}
	r, err := resolver(tpl)
	if err != nil {
		t.Fatal(err)
	}
	fn, ok := tpl.Function(logicalID)
	if !ok {
		t.Fatalf("template.yaml has no %s", logicalID)
	}
	vars, err := r.ResolveEnv(fn)
	if err != nil {
		t.Fatal(err)
	}
	return fn, vars
}

// PlaceholderPhysical names every queue, table and bucket of tpl as
// CloudFormation names them in a stack "s" of account 123456789012 in
// us-east-1 (s-FetchQueue-ABCDEFGHIJKL, its URL for a queue).
func PlaceholderPhysical(tpl *template.Template) map[string]string {
	out := map[string]string{}
	for id, r := range tpl.Resources {
		switch r.Type {
		case template.TypeQueue:
			out[id] = "https://sqs.us-east-1.amazonaws.com/123456789012/s-" + id + "-ABCDEFGHIJKL"
		case template.TypeTable:
			out[id] = "s-" + id + "-ABCDEFGHIJKL"
		case template.TypeBucket:
			out[id] = "s-" + strings.ToLower(id) + "-abcdefghijkl"
		}
	}
	return out
}

// TemplatePath returns the module's template.yaml, failing the test if the
// module root cannot be found.
func TemplatePath(t testing.TB) string {
	t.Helper()
	r, err := ModuleRoot()
	if err != nil {
		t.Fatalf("localtest: %v", err)
	}
	return filepath.Join(r, "template.yaml")
}

// ModuleRoot returns the directory holding go.mod, walking up from the
// working directory (a test's package directory).
func ModuleRoot() (string, error) {
	rootOnce.Do(func() {
		dir, err := os.Getwd()
		if err != nil {
			rootErr = fmt.Errorf("find module root: %w", err)
			return
		}
		for {
			if _, err := os.Stat(filepath.Join(dir, "go.mod")); err == nil {
				root = dir
				return
			} else if !errors.Is(err, os.ErrNotExist) {
				rootErr = fmt.Errorf("find module root: %w", err)
				return
			}
			parent := filepath.Dir(dir)
			if parent == dir {
				rootErr = errors.New("find module root: no go.mod above the working directory")
				return
			}
			dir = parent
		}
	})
	return root, rootErr
}

// KeptDir returns a new directory for a run's logs (its name starting with
// prefix) that is removed when the test passes and kept, and named in the
// test's output, when it fails, so a failed run can be read afterwards.
func KeptDir(t *testing.T, prefix string) string {
	t.Helper()
	dir, err := os.MkdirTemp("", prefix)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if t.Failed() {
			t.Logf("the run's logs are in %s", dir)
			return
		}
		_ = os.RemoveAll(dir)
	})
	return dir
}

// Buffer is a bytes.Buffer that a process or a server writes while the
// test reads it. Wrote, when set, is signalled (without blocking) after
// every write.
type Buffer struct {
	mu    sync.Mutex
	b     bytes.Buffer
	Wrote chan struct{}
}

// Write appends p to the buffer.
func (s *Buffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	n, err := s.b.Write(p)
	s.mu.Unlock()
	if s.Wrote != nil {
		select {
		case s.Wrote <- struct{}{}:
		default:
		}
	}
	return n, err
}

// String returns what was written so far.
func (s *Buffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}
