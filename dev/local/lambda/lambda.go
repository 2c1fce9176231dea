package lambda

import (
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"regexp"
	"slices"
	"sync"
	"time"
)

// Error types Lambda reports for failures of the platform rather than of
// the handler. A handler's own errors carry the type the runtime reports
// (aws-lambda-go: the Go type name, e.g. "errorString"; for a panic with a
// string, "string").
const (
	// ErrorTypeTimeout: no response before the deadline.
	ErrorTypeTimeout = "Sandbox.Timedout"
	// ErrorTypeExit: the runtime process exited.
	ErrorTypeExit = "Runtime.ExitError"
	// ErrorTypeInit: the runtime reported an init error without a type.
	ErrorTypeInit = "Runtime.InitError"
	// ErrorTypeInvalidEntrypoint: the bootstrap could not be started.
	ErrorTypeInvalidEntrypoint = "Runtime.InvalidEntrypoint"
	// ErrorTypeResponseTooLarge: the response exceeded MaxResponseSize.
	ErrorTypeResponseTooLarge = "Function.ResponseSizeTooLarge"
	// ErrorTypeUnhandled: the runtime reported an error without a type.
	ErrorTypeUnhandled = "Unhandled"
)

// Limits and defaults, as in Lambda.
const (
	// MaxPayloadSize is the largest synchronous invocation payload (6 MB).
	MaxPayloadSize = 6 << 20
	// MaxResponseSize is the largest response Lambda accepts, in bytes.
	MaxResponseSize = 6291556
	// DefaultTimeout is Function.Timeout when zero.
	DefaultTimeout = 3 * time.Second
	// MaxTimeout is Lambda's longest timeout.
	MaxTimeout = 15 * time.Minute
	// DefaultMemoryMB is Function.MemoryMB when zero.
	DefaultMemoryMB = 128
	// DefaultHandler is Function.Handler when empty (provided runtimes).
	DefaultHandler = "bootstrap"
	// DefaultMaxEnvironments is Options.MaxEnvironments when zero.
	DefaultMaxEnvironments = 4
	// DefaultInitTimeout is Options.InitTimeout when zero: Lambda's limit
	// on the init phase of an on-demand function.
	DefaultInitTimeout = 10 * time.Second
	// DefaultStopGrace is Options.StopGrace when zero.
	DefaultStopGrace = 2 * time.Second
	// DefaultMaxLogBytes is Options.MaxLogBytes when zero.
	DefaultMaxLogBytes = 64 << 10
	// DefaultRegion and DefaultAccountID make up the function ARN.
	DefaultRegion    = "us-east-1"
	DefaultAccountID = "123456789012"
)

// Sentinel errors Invoke and Register return (wrapped). They are about the
// call, never about the function: a function's failure is a Result with a
// FunctionError and a nil error.
var (
	// ErrUnknownFunction: no function of that name is registered.
	ErrUnknownFunction = errors.New("function not found")
	// ErrInvalidFunction: Register refused the Function.
	ErrInvalidFunction = errors.New("invalid function")
	// ErrClosed: the Service is closed or closing.
	ErrClosed = errors.New("lambda service closed")
	// ErrPayloadTooLarge: the payload exceeds MaxPayloadSize.
	ErrPayloadTooLarge = errors.New("request payload too large")
)

// Function is a function the Service can run.
type Function struct {
	// Name is the function name (letters, digits, hyphens, underscores; at
	// most 64), e.g. the template's logical id "FetchFunc".
	Name string
	// Bootstrap is the path of the executable to run. Required.
	Bootstrap string
	// Env is the function's environment (template Environment.Variables).
	Env map[string]string
	// Timeout is the invocation timeout; 0 means DefaultTimeout (3 s), at
	// most MaxTimeout.
	Timeout time.Duration
	// MemoryMB is reported as AWS_LAMBDA_FUNCTION_MEMORY_SIZE; 0 means
	// DefaultMemoryMB. It is not enforced.
	MemoryMB int
	// Handler is _HANDLER; "" means DefaultHandler.
	Handler string
	// MaxEnvironments bounds the function's concurrent environments (its
	// reserved concurrency); 0 means Options.MaxEnvironments.
	MaxEnvironments int
}

// FunctionError is a failed invocation, as Lambda reports it.
type FunctionError struct {
	// Type is the errorType, e.g. "Sandbox.Timedout" or the handler's error
	// type.
	Type string
	// Message is the errorMessage.
	Message string
}

// Error formats the error as "Type: Message".
func (e *FunctionError) Error() string { return e.Type + ": " + e.Message }

// Result is the outcome of one invocation.
type Result struct {
	// RequestID is the invocation's request id (a UUID).
	RequestID string
	// Payload is what Lambda's Invoke API returns: the function's response,
	// or for a function error the error document
	// ({"errorMessage", "errorType", …}).
	Payload []byte
	// FunctionError is set when the invocation failed.
	FunctionError *FunctionError
	// Duration runs from handing the event to the runtime to its answer
	// (or the timeout); init is not included.
	Duration time.Duration
	// ColdStart reports whether the invocation started a new environment.
	ColdStart bool
	// InitDuration is, for a cold start, the time from process start to the
	// runtime's first poll of /invocation/next (or to the init failure);
	// 0 for a warm start.
	InitDuration time.Duration
	// Logs holds the lines the process printed during the invocation (on a
	// cold start, its init too), at most Options.MaxLogBytes (the tail).
	// Lines printed just before the response are included on a best-effort
	// basis; Options.Logs and OnLog see every line.
	Logs string
	// PID is the process id of the environment that ran the invocation.
	PID int
}

// Options configure a Service. The zero value is usable.
type Options struct {
	// BaseEnv is the environment every process starts from, before the
	// function's Env and Lambda's reserved variables (which win): typically
	// moto.Environ(endpoint, os.Environ()) — AWS_ENDPOINT_URL and dummy
	// credentials. nil means an empty base, as in Lambda.
	BaseEnv []string
	// Region is AWS_REGION/AWS_DEFAULT_REGION and the ARN's region; ""
	// means DefaultRegion.
	Region string
	// AccountID is the function ARN's account; "" means DefaultAccountID.
	AccountID string
	// MaxEnvironments is the default Function.MaxEnvironments; 0 means
	// DefaultMaxEnvironments. Invoke waits (bounded by its context) for an
	// environment when all are busy.
	MaxEnvironments int
	// InitTimeout bounds a cold start's init; 0 means DefaultInitTimeout.
	InitTimeout time.Duration
	// StopGrace is how long Close waits after SIGTERM before SIGKILL; 0
	// means DefaultStopGrace.
	StopGrace time.Duration
	// Logs, if set, receives every line the processes print, as
	// "[<function>] <line>\n".
	Logs io.Writer
	// OnLog, if set, is called with every line the processes print (from
	// the goroutines reading their output; it must not block for long).
	OnLog func(fn, line string)
	// MaxLogBytes bounds Result.Logs; 0 means DefaultMaxLogBytes.
	MaxLogBytes int
}

// Stats counts what happened to one function's invocations.
type Stats struct {
	// Invocations is how many events were handed to the function.
	Invocations int
	// ColdStarts is how many environments were started.
	ColdStarts int
	// FunctionErrors counts invocations that returned a FunctionError
	// (timeouts, crashes and failed inits included).
	FunctionErrors int
	// Timeouts counts invocations that hit the deadline.
	Timeouts int
	// Crashes counts environments whose process exited or was killed
	// while in use (timeouts and failed inits included).
	Crashes int
	// InitDurations lists the init duration of each successful cold start,
	// oldest first (at most the last 1000).
	InitDurations []time.Duration
	// Environments is the number of live environments.
	Environments int
}

// maxInitSamples bounds Stats.InitDurations.
const maxInitSamples = 1000

// Service runs functions. It is safe for concurrent use.
type Service struct {
	opts Options

	logMu sync.Mutex // serialises writes to opts.Logs

	mu      sync.Mutex
	fns     map[string]*function
	closed  bool
	closing chan struct{}
}

// function is a registered Function and its environments.
type function struct {
	fn      Function
	arn     string
	maxEnvs int

	// guarded by Service.mu
	envs    map[*environment]struct{} // live (not discarded)
	idle    []*environment            // warm, polling /next; most recent last
	changed chan struct{}             // closed and replaced when idle or envs change
	seq     int
	stats   Stats
}

var nameRE = regexp.MustCompile(`^[A-Za-z0-9_-]{1,64}$`)

// New returns a Service with opts' defaults applied.
func New(opts Options) *Service {
	opts.Region = cmp.Or(opts.Region, DefaultRegion)
	opts.AccountID = cmp.Or(opts.AccountID, DefaultAccountID)
	opts.MaxEnvironments = positiveOr(opts.MaxEnvironments, DefaultMaxEnvironments)
	opts.InitTimeout = positiveOr(opts.InitTimeout, DefaultInitTimeout)
	opts.StopGrace = positiveOr(opts.StopGrace, DefaultStopGrace)
	opts.MaxLogBytes = positiveOr(opts.MaxLogBytes, DefaultMaxLogBytes)
	opts.BaseEnv = slices.Clone(opts.BaseEnv)
	return &Service{opts: opts, fns: map[string]*function{}, closing: make(chan struct{})}
}

// Register adds fn, applying its defaults. The bootstrap must be an
// executable file; a name already registered is an error.
func (s *Service) Register(fn Function) error {
	if !nameRE.MatchString(fn.Name) {
		return fmt.Errorf("%w: name %q (letters, digits, - and _, at most 64)", ErrInvalidFunction, fn.Name)
	}
	if fn.Bootstrap == "" {
		return fmt.Errorf("%w: %s: no bootstrap", ErrInvalidFunction, fn.Name)
	}
	st, err := os.Stat(fn.Bootstrap)
	if err != nil {
		return fmt.Errorf("%w: %s: bootstrap: %w", ErrInvalidFunction, fn.Name, err)
	}
	if !st.Mode().IsRegular() || st.Mode().Perm()&0o111 == 0 {
		return fmt.Errorf("%w: %s: bootstrap %s is not an executable file", ErrInvalidFunction, fn.Name, fn.Bootstrap)
	}
	if fn.Timeout == 0 {
		fn.Timeout = DefaultTimeout
	}
	if fn.Timeout < 0 || fn.Timeout > MaxTimeout {
		return fmt.Errorf("%w: %s: timeout %v outside (0, %v]", ErrInvalidFunction, fn.Name, fn.Timeout, MaxTimeout)
	}
	fn.MemoryMB = positiveOr(fn.MemoryMB, DefaultMemoryMB)
	fn.Handler = cmp.Or(fn.Handler, DefaultHandler)
	fn.MaxEnvironments = positiveOr(fn.MaxEnvironments, s.opts.MaxEnvironments)
	env := make(map[string]string, len(fn.Env))
	for k, v := range fn.Env {
		env[k] = v
	}
	fn.Env = env

	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closed {
		return ErrClosed
	}
	if _, dup := s.fns[fn.Name]; dup {
		return fmt.Errorf("%w: %s is already registered", ErrInvalidFunction, fn.Name)
	}
	s.fns[fn.Name] = &function{
		fn:      fn,
		arn:     fmt.Sprintf("arn:aws:lambda:%s:%s:function:%s", s.opts.Region, s.opts.AccountID, fn.Name),
		maxEnvs: fn.MaxEnvironments,
		envs:    map[*environment]struct{}{},
		changed: make(chan struct{}),
	}
	return nil
}

// Stats returns the function's counters; false if it is not registered.
func (s *Service) Stats(name string) (Stats, bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	f, ok := s.fns[name]
	if !ok {
		return Stats{}, false
	}
	st := f.stats
	st.InitDurations = slices.Clone(st.InitDurations)
	st.Environments = len(f.envs)
	return st, true
}

// PIDs returns the process ids of the function's live environments, in no
// particular order (for diagnostics and fault-injection tests).
func (s *Service) PIDs(name string) []int {
	s.mu.Lock()
	defer s.mu.Unlock()
	f, ok := s.fns[name]
	if !ok {
		return nil
	}
	var out []int
	for e := range f.envs {
		if pid := int(e.pid.Load()); pid > 0 {
			out = append(out, pid)
		}
	}
	return out
}

// Invoke runs payload through the function name once, as a synchronous
// (RequestResponse) Lambda invocation, and returns the Result. The function
// failing — its error, a crash, a timeout, a failed init — is a Result with
// FunctionError set and a nil error; the error is for calls that could not
// be made: ErrUnknownFunction, ErrPayloadTooLarge, ErrClosed, or ctx ending
// (the environment running the invocation is then killed).
func (s *Service) Invoke(ctx context.Context, name string, payload []byte) (Result, error) {
	if len(payload) > MaxPayloadSize {
		return Result{}, fmt.Errorf("invoke %s: %w (%d bytes > %d)", name, ErrPayloadTooLarge, len(payload), MaxPayloadSize)
	}
	s.mu.Lock()
	f, ok := s.fns[name]
	s.mu.Unlock()
	if !ok {
		return Result{}, fmt.Errorf("invoke %s: %w", name, ErrUnknownFunction)
	}
	res := Result{RequestID: newRequestID()}
	e, cold, err := s.acquire(ctx, f)
	if err != nil {
		return res, fmt.Errorf("invoke %s: %w", name, err)
	}
	res.ColdStart, res.PID = cold, int(e.pid.Load())
	if !cold { // a cold environment captures from its start, init included
		e.beginCapture(s.opts.MaxLogBytes)
	}
	if cold {
		if e.startErr != nil {
			s.discard(f, e, false)
			s.count(f, func(st *Stats) { st.Invocations++; st.FunctionErrors++ })
			return s.fail(res, e, ErrorTypeInvalidEntrypoint, "RequestId: "+res.RequestID+" Error: "+e.startErr.Error()), nil
		}
		fe, initDur, err := s.waitReady(ctx, e, res.RequestID)
		res.InitDuration = initDur
		if err != nil {
			s.discard(f, e, true)
			return res, fmt.Errorf("invoke %s: %w", name, err)
		}
		if fe != nil && s.isClosing() {
			s.discard(f, e, true)
			return res, fmt.Errorf("invoke %s: %w", name, ErrClosed)
		}
		if fe != nil {
			s.discard(f, e, true)
			s.count(f, func(st *Stats) { st.Invocations++; st.FunctionErrors++; st.Crashes++ })
			return s.fail(res, e, fe.Type, fe.Message), nil
		}
		s.count(f, func(st *Stats) {
			st.InitDurations = append(st.InitDurations, initDur)
			if over := len(st.InitDurations) - maxInitSamples; over > 0 {
				st.InitDurations = slices.Delete(st.InitDurations, 0, over)
			}
		})
	}
	s.count(f, func(st *Stats) { st.Invocations++ })
	return s.run(ctx, f, e, res, payload)
}

// run hands the event to the warm environment e and waits for the outcome.
func (s *Service) run(ctx context.Context, f *function, e *environment, res Result, payload []byte) (Result, error) {
	start := time.Now()
	inv := &invocation{
		id:       res.RequestID,
		payload:  payload,
		deadline: start.Add(f.fn.Timeout),
		arn:      f.arn,
		traceID:  newTraceID(start),
		done:     make(chan reply, 1),
	}
	// The runtime is blocked in /next; its arrival was signalled on polling
	// (consumed by settle, or pending since the cold start). Drop that
	// signal so settle waits for the poll that follows this invocation.
	select {
	case <-e.polling:
	default:
	}
	e.pending <- inv // never blocks: the environment is ours and idle, pending is empty
	timer := time.NewTimer(f.fn.Timeout)
	defer timer.Stop()

	var rep reply
	select {
	case rep = <-inv.done:
	case <-e.exited:
		select {
		case rep = <-inv.done: // answered, then exited: the answer counts
		default:
			res.Duration = time.Since(start)
			s.discard(f, e, true)
			if s.isClosing() {
				return res, fmt.Errorf("invoke %s: %w", f.fn.Name, ErrClosed)
			}
			s.count(f, func(st *Stats) { st.FunctionErrors++; st.Crashes++ })
			return s.fail(res, e, ErrorTypeExit, "RequestId: "+res.RequestID+" Error: "+exitReason(e.exitErr)), nil
		}
	case <-timer.C:
		res.Duration = f.fn.Timeout
		s.discard(f, e, true)
		s.count(f, func(st *Stats) { st.FunctionErrors++; st.Timeouts++; st.Crashes++ })
		return s.fail(res, e, ErrorTypeTimeout,
			fmt.Sprintf("RequestId: %s Error: Task timed out after %.2f seconds", res.RequestID, f.fn.Timeout.Seconds())), nil
	case <-ctx.Done():
		res.Duration = time.Since(start)
		s.discard(f, e, true)
		return res, fmt.Errorf("invoke %s: %w", f.fn.Name, context.Cause(ctx))
	}
	res.Duration = time.Since(start)
	res.Payload = rep.payload
	if rep.err != nil {
		res.FunctionError = rep.err
		s.count(f, func(st *Stats) { st.FunctionErrors++ })
	}
	s.settle(f, e, inv.deadline)
	res.Logs = e.endCapture()
	return res, nil
}

// fail completes res as a platform-reported function error, with the
// environment's captured logs. The environment has been discarded, so its
// output is complete once the process is reaped (bounded by StopGrace).
func (s *Service) fail(res Result, e *environment, typ, msg string) Result {
	select {
	case <-e.exited:
	case <-time.After(s.opts.StopGrace):
	}
	res.FunctionError = &FunctionError{Type: typ, Message: msg}
	res.Payload = errorDocument(typ, msg)
	res.Logs = e.endCapture()
	return res
}

func errorDocument(typ, msg string) []byte {
	b, _ := json.Marshal(struct {
		ErrorMessage string `json:"errorMessage"`
		ErrorType    string `json:"errorType"`
	}{msg, typ})
	return b
}

// exitReason words a process exit as Lambda does ("Runtime exited with
// error: exit status 3", "… signal: killed").
func exitReason(err error) string {
	if err == nil {
		return "Runtime exited without providing a reason"
	}
	return "Runtime exited with error: " + err.Error()
}

func (s *Service) count(f *function, update func(*Stats)) {
	s.mu.Lock()
	update(&f.stats)
	s.mu.Unlock()
}

func (s *Service) isClosing() bool {
	select {
	case <-s.closing:
		return true
	default:
		return false
	}
}

// acquire returns an idle environment of f (most recently used first), or
// starts one when f has fewer than maxEnvs, or waits for one to free up.
func (s *Service) acquire(ctx context.Context, f *function) (*environment, bool, error) {
	s.mu.Lock()
	for {
		if s.closed {
			s.mu.Unlock()
			return nil, false, ErrClosed
		}
		if n := len(f.idle); n > 0 {
			e := f.idle[n-1]
			f.idle = f.idle[:n-1]
			select {
			case <-e.exited: // died while idle; watch has not discarded it yet
				delete(f.envs, e)
				f.stats.Crashes++
				s.notify(f)
				s.mu.Unlock()
				e.shutdown(false)
				s.mu.Lock()
				continue
			default:
			}
			s.mu.Unlock()
			return e, false, nil
		}
		if len(f.envs) < f.maxEnvs {
			f.seq++
			e := newEnvironment(s, f, f.seq)
			f.envs[e] = struct{}{}
			f.stats.ColdStarts++
			s.notify(f)
			s.mu.Unlock()
			e.start()
			return e, true, nil
		}
		changed := f.changed
		s.mu.Unlock()
		select {
		case <-changed:
		case <-ctx.Done():
			return nil, false, context.Cause(ctx)
		}
		s.mu.Lock()
	}
}

// notify wakes acquire's waiters; s.mu must be held.
func (s *Service) notify(f *function) {
	close(f.changed)
	f.changed = make(chan struct{})
}

// settle returns e to the idle list once the runtime polls /next again, or
// discards it if the process exits first (aws-lambda-go exits after
// reporting a panic). A runtime that takes longer than settleWait to poll
// again is settled in the background; one that has not polled again by the
// invocation's deadline is killed, so it cannot hold a slot for ever.
func (s *Service) settle(f *function, e *environment, deadline time.Time) {
	t := time.NewTimer(settleWait)
	defer t.Stop()
	select {
	case <-e.polling:
		// What the handler logged before answering is in the pipes;
		// let the readers catch up so Result.Logs holds it.
		e.syncLogs(settleWait)
		s.makeIdle(f, e)
	case <-e.exited:
		s.discard(f, e, true)
		s.count(f, func(st *Stats) { st.Crashes++ })
	case <-t.C:
		go func() {
			late := time.NewTimer(max(time.Until(deadline), 0))
			defer late.Stop()
			select {
			case <-e.polling:
				s.makeIdle(f, e)
			case <-e.exited:
				s.discard(f, e, true)
				s.count(f, func(st *Stats) { st.Crashes++ })
			case <-late.C:
				s.discard(f, e, true)
				s.count(f, func(st *Stats) { st.Crashes++ })
			case <-s.closing:
			}
		}()
	}
}

// settleWait bounds how long Invoke waits for the runtime to poll again.
const settleWait = time.Second

func (s *Service) makeIdle(f *function, e *environment) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if _, live := f.envs[e]; !live || s.closed {
		return
	}
	f.idle = append(f.idle, e)
	s.notify(f)
}

// discard removes e from f and kills its process group (if kill) and its
// Runtime API server. It is idempotent.
func (s *Service) discard(f *function, e *environment, kill bool) {
	s.mu.Lock()
	_, live := f.envs[e]
	if live {
		delete(f.envs, e)
		if i := slices.Index(f.idle, e); i >= 0 {
			f.idle = slices.Delete(f.idle, i, i+1)
		}
		s.notify(f)
	}
	s.mu.Unlock()
	if live {
		e.shutdown(kill)
	}
}

// watch discards e when its process exits while idle (killed from
// outside, say), so acquire never hands out a dead environment.
func (s *Service) watch(f *function, e *environment) {
	select {
	case <-e.exited:
	case <-e.stopped:
		return
	}
	s.mu.Lock()
	idle := slices.Contains(f.idle, e)
	if idle {
		f.stats.Crashes++
	}
	s.mu.Unlock()
	if idle {
		s.discard(f, e, false)
	}
}

// waitReady waits for a cold environment's first /next. It returns a
// FunctionError when init fails, or ctx's error.
func (s *Service) waitReady(ctx context.Context, e *environment, requestID string) (*FunctionError, time.Duration, error) {
	t := time.NewTimer(s.opts.InitTimeout)
	defer t.Stop()
	select {
	case <-e.ready:
		return nil, e.initDuration, nil
	case <-e.initFailed:
		return e.reportedInitError(), e.sinceStart(), nil
	case <-e.exited:
		if e.hasInitError() {
			return e.reportedInitError(), e.sinceStart(), nil
		}
		return &FunctionError{Type: ErrorTypeExit, Message: "RequestId: " + requestID + " Error: " + exitReason(e.exitErr)},
			e.sinceStart(), nil
	case <-t.C:
		return &FunctionError{Type: ErrorTypeTimeout,
				Message: fmt.Sprintf("RequestId: %s Error: Task timed out after %.2f seconds", requestID, s.opts.InitTimeout.Seconds())},
			s.opts.InitTimeout, nil
	case <-ctx.Done():
		return nil, e.sinceStart(), context.Cause(ctx)
	}
}

// Close stops every environment — SIGTERM to its process group, SIGKILL
// after StopGrace — and their Runtime API servers, and waits for the
// processes to be reaped (bounded). Invocations in flight return ErrClosed.
// It is safe to call more than once.
func (s *Service) Close() error {
	s.mu.Lock()
	if s.closed {
		s.mu.Unlock()
		return nil
	}
	s.closed = true
	close(s.closing)
	var envs []*environment
	for _, f := range s.fns {
		for e := range f.envs {
			envs = append(envs, e)
		}
		f.envs = map[*environment]struct{}{}
		f.idle = nil
		s.notify(f)
	}
	s.mu.Unlock()

	errs := make([]error, len(envs))
	var wg sync.WaitGroup
	for i, e := range envs {
		wg.Go(func() { errs[i] = e.terminate(s.opts.StopGrace) })
	}
	wg.Wait()
	return errors.Join(errs...)
}

// Emit writes line to Options.Logs and OnLog under source, as a function's
// output is: the harness logs the pollers next to the functions this way.
func (s *Service) Emit(source, line string) { s.emit(source, line) }

func (s *Service) emit(fn, line string) {
	if s.opts.Logs != nil {
		s.logMu.Lock()
		_, _ = io.WriteString(s.opts.Logs, "["+fn+"] "+line+"\n")
		s.logMu.Unlock()
	}
	if s.opts.OnLog != nil {
		s.opts.OnLog(fn, line)
	}
}

// positiveOr is v, or def when v is not positive: an option's default.
func positiveOr[T ~int | ~int64 | ~float64](v, def T) T {
	if v <= 0 {
		return def
	}
	return v
}
