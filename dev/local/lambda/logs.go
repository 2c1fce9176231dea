package lambda

import (
	"bytes"
	"errors"
	"io"
	"os"
	"strconv"
	"strings"
	"sync"
	"time"
)

// maxLineLength splits longer lines, so one runaway line cannot grow a
// buffer without bound.
const maxLineLength = 256 << 10

// Sync markers: the service writes one into the process's own output pipe
// and waits for its reader to reach it. A pipe is first in, first out, so
// everything the process wrote before (all it logged before posting its
// response) has then been read and emitted. Writes of up to PIPE_BUF bytes
// are atomic, so a marker never interleaves with the process's writes.
const (
	markerStart = "\x00\x01triage-log-sync-"
	markerEnd   = "\x01\x00"
)

// stream reads one output pipe (stdout or stderr) of a process line by line.
type stream struct {
	r, w *os.File // w goes to the process; the service keeps it for markers
	emit func(line string)
	done chan struct{} // closed when the reader stops

	mu      sync.Mutex
	buf     []byte
	waiters map[string]chan struct{} // marker token → closed when read
	seq     int
	closed  bool // w is closed
}

func newStream(emit func(string)) (*stream, error) {
	r, w, err := os.Pipe()
	if err != nil {
		return nil, err
	}
	s := &stream{r: r, w: w, emit: emit, done: make(chan struct{}), waiters: map[string]chan struct{}{}}
	go s.read()
	return s, nil
}

func (s *stream) read() {
	defer close(s.done)
	defer s.r.Close()
	chunk := make([]byte, 32<<10)
	for {
		n, err := s.r.Read(chunk)
		if n > 0 {
			s.consume(chunk[:n])
		}
		if err != nil {
			s.mu.Lock()
			if len(s.buf) > 0 {
				s.emit(string(s.buf))
				s.buf = nil
			}
			for tok, ch := range s.waiters {
				close(ch)
				delete(s.waiters, tok)
			}
			s.mu.Unlock()
			return
		}
	}
}

// consume takes markers out of the data, emits complete lines, then wakes
// the markers' waiters.
func (s *stream) consume(p []byte) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.buf = append(s.buf, p...)
	var reached []string
	for {
		i := bytes.Index(s.buf, []byte(markerStart))
		if i < 0 {
			break
		}
		j := bytes.Index(s.buf[i+len(markerStart):], []byte(markerEnd))
		if j < 0 {
			break // the rest of the marker is still in the pipe
		}
		end := i + len(markerStart) + j + len(markerEnd)
		reached = append(reached, string(s.buf[i+len(markerStart):end-len(markerEnd)]))
		s.buf = append(s.buf[:i], s.buf[end:]...)
	}
	for {
		i := bytes.IndexByte(s.buf, '\n')
		if i < 0 {
			if len(s.buf) >= maxLineLength && !bytes.Contains(s.buf, []byte(markerStart)) {
				s.emit(string(s.buf))
				s.buf = s.buf[:0]
			}
			break
		}
		s.emit(strings.TrimSuffix(string(s.buf[:i]), "\r"))
		s.buf = s.buf[i+1:]
	}
	if len(s.buf) == 0 {
		s.buf = nil
	}
	for _, tok := range reached {
		if ch, ok := s.waiters[tok]; ok {
			close(ch)
			delete(s.waiters, tok)
		}
	}
}

// sync returns once everything written to the pipe so far has been
// emitted, the reader has stopped, or timeout elapsed (false then).
func (s *stream) sync(timeout time.Duration) bool {
	s.mu.Lock()
	if s.closed {
		s.mu.Unlock()
		return s.wait(nil, timeout)
	}
	s.seq++
	tok := strconv.Itoa(s.seq)
	ch := make(chan struct{})
	s.waiters[tok] = ch
	_, err := io.WriteString(s.w, markerStart+tok+markerEnd)
	s.mu.Unlock()
	if err != nil {
		return false
	}
	return s.wait(ch, timeout)
}

func (s *stream) wait(ch chan struct{}, timeout time.Duration) bool {
	t := time.NewTimer(timeout)
	defer t.Stop()
	select {
	case <-ch:
		return true
	case <-s.done:
		return true
	case <-t.C:
		return false
	}
}

// closeWriter closes the service's copy of the write end, once the process
// is gone, so the reader sees EOF when the pipe is drained.
func (s *stream) closeWriter() {
	s.mu.Lock()
	defer s.mu.Unlock()
	if !s.closed {
		s.closed = true
		_ = s.w.Close()
	}
}

// drain waits for the reader to reach EOF; after timeout (a grandchild
// holding the pipe open) it closes the read end to stop it.
func (s *stream) drain(timeout time.Duration) error {
	s.closeWriter()
	t := time.NewTimer(timeout)
	defer t.Stop()
	select {
	case <-s.done:
		return nil
	case <-t.C:
		_ = s.r.Close()
		<-s.done
		return errors.New("output pipe still open after the process exited")
	}
}

// tailBuffer keeps the last max bytes of lines added to it, dropping whole
// lines from the front.
type tailBuffer struct {
	max   int
	lines []string
	size  int
}

func (b *tailBuffer) add(line string) {
	if len(line)+1 > b.max {
		line = line[len(line)+1-b.max:]
	}
	b.lines = append(b.lines, line)
	b.size += len(line) + 1
	for b.size > b.max {
		b.size -= len(b.lines[0]) + 1
		b.lines = b.lines[1:]
	}
}

// String returns the kept lines, each ending in a newline.
func (b *tailBuffer) String() string {
	if len(b.lines) == 0 {
		return ""
	}
	return strings.Join(b.lines, "\n") + "\n"
}
