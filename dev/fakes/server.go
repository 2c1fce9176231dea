package fakes

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"math"
	"net"
	"net/http"
	"strconv"
	"sync"
	"testing"
	"time"

	"github.com/triagehq/triage/internal/clock"
)

// DefaultMaxHang is Shared.MaxHang when it is zero.
const DefaultMaxHang = 30 * time.Second

// DefaultKeepCalls is Shared.KeepCalls when it is zero.
const DefaultKeepCalls = 1000

// DefaultShutdownGrace is how long Server.Close waits for in-flight responses
// before closing their connections.
const DefaultShutdownGrace = 5 * time.Second

// Shared holds the options every fake takes. The zero value is ready to use.
type Shared struct {
	// MaxHang bounds FaultHang and OutageHang: a held request ends when the
	// client gives up, the server closes, or MaxHang elapses — then it answers
	// 504 Gateway Timeout. 0 means DefaultMaxHang; it is never unbounded.
	MaxHang time.Duration
	// Clock is the clock for timestamps (stats, deliveries, "created",
	// webhook timestamp checks); nil means the wall clock.
	Clock clock.Clock
	// KeepCalls bounds how many recent calls Stats lists, oldest dropped
	// first; 0 means DefaultKeepCalls. Counters are never dropped.
	KeepCalls int
}

func (s Shared) withDefaults() Shared {
	s.MaxHang = positiveOr(s.MaxHang, DefaultMaxHang)
	s.Clock = clock.Or(s.Clock)
	s.KeepCalls = positiveOr(s.KeepCalls, DefaultKeepCalls)
	return s
}

// Server is a handler — one of the fakes, usually — serving HTTP/1.1 on a
// loopback address.
type Server struct {
	// URL is the base URL, such as "http://127.0.0.1:40123", without a
	// trailing slash.
	URL string

	srv    *http.Server
	cancel context.CancelFunc
	served chan error

	// fresh holds connections that have not sent a request yet. Shutdown
	// would wait 5 s for them (net/http's grace for slow first requests);
	// a client's spare pooled connection is one, so they are closed at once.
	mu       sync.Mutex
	fresh    map[net.Conn]struct{}
	stopping bool

	closeOnce sync.Once
	closeErr  error
}

// StartTest starts h on a free loopback port for a test, and closes it
// when the test ends; t fails if it cannot start.
func StartTest(t testing.TB, h http.Handler) *Server {
	t.Helper()
	srv, err := Start("", h)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = srv.Close() })
	return srv
}

// Start serves h on addr, which must name a loopback host ("127.0.0.1:8080",
// "[::1]:0", "localhost:0"); "" means "127.0.0.1:0", a free port. Any other
// host, including an empty one (all interfaces), is an error: the fakes never
// listen beyond the machine. Call Close when done.
func Start(addr string, h http.Handler) (*Server, error) {
	addr = cmp.Or(addr, "127.0.0.1:0")
	host, _, err := net.SplitHostPort(addr)
	if err != nil {
		return nil, fmt.Errorf("fakes listen address %q: %w", addr, err)
	}
	if ip := net.ParseIP(host); host != "localhost" && (ip == nil || !ip.IsLoopback()) {
		return nil, fmt.Errorf("fakes listen address %q: host must be loopback (127.0.0.1, ::1, localhost)", addr)
	}
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return nil, fmt.Errorf("fakes listen on %s: %w", addr, err)
	}
	// Cancelling the base context ends every held or trickling request, so
	// shutting down never waits out a MaxHang.
	ctx, cancel := context.WithCancel(context.Background())
	s := &Server{
		URL: "http://" + ln.Addr().String(),
		srv: &http.Server{
			Handler:           h,
			ReadHeaderTimeout: 10 * time.Second,
			IdleTimeout:       2 * time.Minute,
			BaseContext:       func(net.Listener) context.Context { return ctx },
		},
		cancel: cancel,
		served: make(chan error, 1),
		fresh:  map[net.Conn]struct{}{},
	}
	s.srv.ConnState = s.track
	go func() { s.served <- s.srv.Serve(ln) }()
	return s, nil
}

// Close ends held requests, lets in-flight responses finish for up to
// DefaultShutdownGrace, then closes every connection. It is safe to call more
// than once; later calls return the first call's result.
func (s *Server) Close() error {
	ctx, cancel := context.WithTimeout(context.Background(), DefaultShutdownGrace)
	defer cancel()
	return s.Shutdown(ctx)
}

// Shutdown is Close with the caller's grace period: when ctx ends first, the
// remaining connections are closed and ctx's error is returned.
func (s *Server) Shutdown(ctx context.Context) error {
	s.closeOnce.Do(func() {
		s.cancel()
		s.mu.Lock()
		s.stopping = true
		for c := range s.fresh {
			_ = c.Close()
		}
		s.mu.Unlock()
		err := s.srv.Shutdown(ctx)
		if err != nil {
			err = errors.Join(err, s.srv.Close())
		}
		if serveErr := <-s.served; !errors.Is(serveErr, http.ErrServerClosed) {
			err = errors.Join(err, serveErr)
		}
		s.closeErr = err
	})
	return s.closeErr
}

// track follows connection states for Shutdown.
func (s *Server) track(c net.Conn, state http.ConnState) {
	s.mu.Lock()
	defer s.mu.Unlock()
	switch {
	case state == http.StateNew && s.stopping:
		_ = c.Close()
	case state == http.StateNew:
		s.fresh[c] = struct{}{}
	default:
		delete(s.fresh, c)
	}
}

// statusWriter remembers the status a handler answered; 0 means none (an
// aborted or hijacked response).
type statusWriter struct {
	http.ResponseWriter
	status int
}

func (w *statusWriter) WriteHeader(code int) {
	if w.status == 0 {
		w.status = code
	}
	w.ResponseWriter.WriteHeader(code)
}

func (w *statusWriter) Write(b []byte) (int, error) {
	if w.status == 0 {
		w.status = http.StatusOK
	}
	return w.ResponseWriter.Write(b)
}

// Unwrap lets http.ResponseController reach Flush and Hijack.
func (w *statusWriter) Unwrap() http.ResponseWriter { return w.ResponseWriter }

// abort ends the handler without a response: the client sees the connection
// close. A handler that merely returned would send an empty 200, which a
// client still waiting (during a graceful shutdown) would take for success.
// Panicking with http.ErrAbortHandler is net/http's documented way to do this
// and is not logged.
func abort() { panic(http.ErrAbortHandler) }

// hang holds the request until it ends (abort) or max elapses (504).
func hang(w http.ResponseWriter, r *http.Request, max time.Duration) {
	t := time.NewTimer(max)
	defer t.Stop()
	select {
	case <-r.Context().Done():
		abort()
	case <-t.C:
		w.Header().Set("Content-Type", "text/plain; charset=utf-8")
		w.WriteHeader(http.StatusGatewayTimeout)
		_, _ = w.Write([]byte("upstream request timeout"))
	}
}

// pause waits d, or reports false when the request ends first.
func pause(r *http.Request, d time.Duration) bool {
	return clock.Sleep(r.Context(), d) == nil
}

// resetConnection writes a 200 header promising declared bytes, then part of
// them, and resets the TCP connection (SO_LINGER 0 sends RST instead of FIN),
// so the client sees "connection reset by peer" or an unexpected EOF.
func resetConnection(w http.ResponseWriter, contentType string, declared int, partial []byte) {
	conn, buf, err := http.NewResponseController(w).Hijack()
	if err != nil {
		abort()
	}
	defer conn.Close()
	_, _ = fmt.Fprintf(buf, "HTTP/1.1 200 OK\r\nContent-Type: %s\r\nContent-Length: %d\r\n\r\n", contentType, declared)
	_, _ = buf.Write(partial)
	_ = buf.Flush()
	if tc, ok := conn.(*net.TCPConn); ok {
		_ = tc.SetLinger(0)
	}
}

// seconds formats d as whole seconds for Retry-After, rounding up.
func seconds(d time.Duration) string {
	return strconv.Itoa(int(math.Ceil(d.Seconds())))
}

// writeText writes a plain-text body with status.
func writeText(w http.ResponseWriter, status int, body string) {
	w.Header().Set("Content-Type", "text/plain; charset=utf-8")
	w.Header().Set("Content-Length", strconv.Itoa(len(body)))
	w.WriteHeader(status)
	_, _ = w.Write([]byte(body))
}

// positiveOr is v, or def when v is not positive: an option's default.
func positiveOr[T ~int | ~int64 | ~float64](v, def T) T {
	if v <= 0 {
		return def
	}
	return v
}
