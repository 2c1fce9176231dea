package lambda

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"maps"
	"net"
	"net/http"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"sync"
	"sync/atomic"
	"time"

	"github.com/triagehq/triage/dev/local/procgroup"
)

// environment is one execution environment: a bootstrap process and the
// Runtime API server it talks to.
type environment struct {
	svc *Service
	fn  *function
	seq int

	ln  net.Listener
	srv *http.Server

	pid      atomic.Int64 // 0 until started
	started  atomic.Int64 // UnixNano of the process start
	startErr error        // the process could not be started

	ready        chan struct{} // closed at the first /next
	readyOnce    sync.Once
	initDuration time.Duration // valid once ready is closed

	initFailed chan struct{} // closed when the runtime reports an init error
	initOnce   sync.Once

	exited  chan struct{} // closed once the process is reaped (or never started)
	exitErr error         // valid once exited is closed

	stopped  chan struct{} // closed by shutdown
	stopOnce sync.Once

	polling chan struct{}    // a /next request is waiting (capacity 1)
	pending chan *invocation // the next event for the runtime (capacity 1)

	stdout, stderr *stream

	mu      sync.Mutex
	current *invocation // handed to the runtime, not yet answered
	initErr *FunctionError
	capture *tailBuffer
}

// invocation is one event handed to an environment.
type invocation struct {
	id       string
	payload  []byte
	deadline time.Time
	arn      string
	traceID  string
	done     chan reply // capacity 1
}

// reply is the runtime's answer to an invocation.
type reply struct {
	payload []byte
	err     *FunctionError
}

func newEnvironment(s *Service, f *function, seq int) *environment {
	e := &environment{
		svc:        s,
		fn:         f,
		seq:        seq,
		ready:      make(chan struct{}),
		initFailed: make(chan struct{}),
		exited:     make(chan struct{}),
		stopped:    make(chan struct{}),
		polling:    make(chan struct{}, 1),
		pending:    make(chan *invocation, 1),
		capture:    &tailBuffer{max: s.opts.MaxLogBytes},
	}
	return e
}

// start opens the Runtime API listener and starts the process. A failure
// is kept in startErr (Invoke reports Runtime.InvalidEntrypoint) and closes
// exited.
func (e *environment) start() {
	if err := e.startServer(); err != nil {
		e.startErr = err
		close(e.exited)
		return
	}
	f := e.fn.fn
	emit := func(line string) { e.line(f.Name, line) }
	var err error
	if e.stdout, err = newStream(emit); err == nil {
		if e.stderr, err = newStream(emit); err != nil {
			e.stdout.closeWriter()
		}
	}
	if err != nil {
		e.startErr = fmt.Errorf("output pipe: %w", err)
		_ = e.srv.Close()
		close(e.exited)
		return
	}
	cmd := exec.Command(f.Bootstrap)
	cmd.Dir = filepath.Dir(f.Bootstrap)
	cmd.Env = e.environ()
	cmd.Stdout = e.stdout.w
	cmd.Stderr = e.stderr.w
	cmd.SysProcAttr = procgroup.Attr()

	e.started.Store(time.Now().UnixNano())
	if err := procgroup.Start(cmd, func(err error) {
		// The output is complete once both pipes are drained; a
		// grandchild holding them open is cut off after StopGrace.
		_ = e.stdout.drain(e.svc.opts.StopGrace)
		_ = e.stderr.drain(e.svc.opts.StopGrace)
		e.exitErr = err
		close(e.exited)
	}); err != nil {
		e.startErr = err
		_ = e.stdout.drain(0)
		_ = e.stderr.drain(0)
		_ = e.srv.Close()
		close(e.exited)
		return
	}
	pid := cmd.Process.Pid
	e.pid.Store(int64(pid))
	// Close may have stopped this environment while it was starting, and
	// seen no pid to signal: the process is then killed here.
	select {
	case <-e.stopped:
		_ = procgroup.Signal(pid, procgroup.Kill)
	default:
	}
	go e.svc.watch(e.fn, e)
}

// environ builds the process environment: the base, the function's
// variables, then the variables Lambda reserves.
func (e *environment) environ() []string {
	f := e.fn.fn
	o := e.svc.opts
	env := slices.Clone(o.BaseEnv)
	for _, k := range slices.Sorted(maps.Keys(f.Env)) {
		env = append(env, k+"="+f.Env[k])
	}
	return append(env,
		"AWS_LAMBDA_RUNTIME_API="+e.ln.Addr().String(),
		"AWS_LAMBDA_FUNCTION_NAME="+f.Name,
		"AWS_LAMBDA_FUNCTION_VERSION=$LATEST",
		"AWS_LAMBDA_FUNCTION_MEMORY_SIZE="+strconv.Itoa(f.MemoryMB),
		"AWS_LAMBDA_LOG_GROUP_NAME=/aws/lambda/"+f.Name,
		"AWS_LAMBDA_LOG_STREAM_NAME="+time.Now().UTC().Format("2006/01/02")+"/[$LATEST]"+randomHex(16),
		"AWS_LAMBDA_INITIALIZATION_TYPE=on-demand",
		"AWS_REGION="+o.Region,
		"AWS_DEFAULT_REGION="+o.Region,
		"_HANDLER="+f.Handler,
		"LAMBDA_TASK_ROOT="+filepath.Dir(f.Bootstrap),
		"LAMBDA_RUNTIME_DIR="+filepath.Dir(f.Bootstrap),
	)
}

// startServer listens on a loopback port and serves the Runtime API.
func (e *environment) startServer() error {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return fmt.Errorf("runtime API listener: %w", err)
	}
	e.ln = ln
	e.srv = &http.Server{
		Handler:           e.routes(),
		ReadHeaderTimeout: 10 * time.Second,
		BaseContext:       func(net.Listener) context.Context { return context.Background() },
	}
	go func() { _ = e.srv.Serve(ln) }()
	return nil
}

// syncLogs waits (up to timeout) until everything the process has written
// so far has been read and emitted.
func (e *environment) syncLogs(timeout time.Duration) {
	if e.stdout == nil {
		return
	}
	e.stdout.sync(timeout)
	e.stderr.sync(timeout)
}

// sinceStart is the time since the process was started.
func (e *environment) sinceStart() time.Duration {
	return time.Duration(time.Now().UnixNano() - e.started.Load())
}

// markReady records the first /next: the end of init.
func (e *environment) markReady() {
	e.readyOnce.Do(func() {
		e.initDuration = e.sinceStart()
		close(e.ready)
	})
}

func (e *environment) setInitError(fe *FunctionError) bool {
	first := false
	e.initOnce.Do(func() {
		e.mu.Lock()
		e.initErr = fe
		e.mu.Unlock()
		close(e.initFailed)
		first = true
	})
	return first
}

func (e *environment) hasInitError() bool {
	select {
	case <-e.initFailed:
		return true
	default:
		return false
	}
}

func (e *environment) reportedInitError() *FunctionError {
	e.mu.Lock()
	defer e.mu.Unlock()
	fe := *e.initErr
	return &fe
}

// take claims the current invocation if its id is id, so each invocation
// is answered once.
func (e *environment) take(id string) *invocation {
	e.mu.Lock()
	defer e.mu.Unlock()
	if e.current == nil || e.current.id != id {
		return nil
	}
	inv := e.current
	e.current = nil
	return inv
}

func (e *environment) line(fn, line string) {
	e.mu.Lock()
	if e.capture != nil {
		e.capture.add(line)
	}
	e.mu.Unlock()
	e.svc.emit(fn, line)
}

func (e *environment) beginCapture(max int) {
	e.mu.Lock()
	e.capture = &tailBuffer{max: max}
	e.mu.Unlock()
}

func (e *environment) endCapture() string {
	e.mu.Lock()
	defer e.mu.Unlock()
	if e.capture == nil {
		return ""
	}
	s := e.capture.String()
	e.capture = nil
	return s
}

// shutdown stops the Runtime API server and, if kill, SIGKILLs the process
// group — only while the process is unreaped, since a reaped process's id
// may already belong to someone else.
func (e *environment) shutdown(kill bool) {
	e.stopOnce.Do(func() { close(e.stopped) })
	if pid := int(e.pid.Load()); kill && pid > 0 {
		select {
		case <-e.exited:
		default:
			_ = procgroup.Signal(pid, procgroup.Kill)
		}
	}
	if e.srv != nil {
		_ = e.srv.Close()
	}
}

// terminate stops the process gracefully: SIGTERM to its group, SIGKILL
// after grace, then waits (bounded) for it to be reaped.
func (e *environment) terminate(grace time.Duration) error {
	e.stopOnce.Do(func() { close(e.stopped) })
	defer func() {
		if e.srv != nil {
			_ = e.srv.Close()
		}
	}()
	pid := int(e.pid.Load())
	if pid <= 0 {
		return nil
	}
	select {
	case <-e.exited:
		return nil
	default:
	}
	if err := procgroup.Signal(pid, procgroup.Term); err != nil {
		return fmt.Errorf("stop %s pid %d: %w", e.fn.fn.Name, pid, err)
	}
	select {
	case <-e.exited:
		return nil
	case <-time.After(grace):
	}
	if err := procgroup.Signal(pid, procgroup.Kill); err != nil {
		return fmt.Errorf("kill %s pid %d: %w", e.fn.fn.Name, pid, err)
	}
	select {
	case <-e.exited:
		return nil
	case <-time.After(grace):
		return fmt.Errorf("%s pid %d did not exit after SIGKILL", e.fn.fn.Name, pid)
	}
}

// newRequestID returns a random (version 4) UUID, like Lambda's request ids.
func newRequestID() string {
	var b [16]byte
	_, _ = rand.Read(b[:])
	b[6] = b[6]&0x0f | 0x40
	b[8] = b[8]&0x3f | 0x80
	h := hex.EncodeToString(b[:])
	return h[0:8] + "-" + h[8:12] + "-" + h[12:16] + "-" + h[16:20] + "-" + h[20:32]
}

// newTraceID returns an X-Ray trace header, "Root=1-<epoch hex>-<24 hex>;
// Parent=<16 hex>;Sampled=0".
func newTraceID(now time.Time) string {
	return fmt.Sprintf("Root=1-%08x-%s;Parent=%s;Sampled=0", now.Unix(), randomHex(12), randomHex(8))
}

func randomHex(n int) string {
	b := make([]byte, n)
	_, _ = rand.Read(b)
	return hex.EncodeToString(b)
}
