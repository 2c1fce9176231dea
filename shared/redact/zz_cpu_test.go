//go:build redcpu

package redact_test

import (
	"fmt"
	"runtime"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/triagehq/triage/shared/redact"
)

func threadCPU() time.Duration {
	var ru syscall.Rusage
	_ = syscall.Getrusage(1 /* RUSAGE_THREAD */, &ru)
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

func TestCPU(t *testing.T) {
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	type w struct {
		name string
		n    int
		f    func()
		size int
	}
	ws := []w{
		{"String/error", 3000, func() { _ = redact.String(benchError) }, len(benchError)},
		{"String/clean", 3000, func() { _ = redact.String(benchClean) }, len(benchClean)},
		{"JSON", 1000, func() { _ = redact.JSON(benchJSON) }, len(benchJSON)},
		{"Text", 10000, func() { _ = redact.Text(strings.Repeat("Summarize the following article. ", 128)) }, 33 * 128},
		{"String/digits", 300, func() {
			line := "2024-01-15 10:30:00 latency_ms 1234.5 p99 2048 bytes 1048576 ids 123 456 7890 4111 1111 1111 1112\n"
			_ = redact.String(strings.Repeat(line, 4096/len(line)+1)[:4096])
		}, 4096},
		{"String/tokens", 3000, func() { _ = redact.String(benchTokens) }, len(benchTokens)},
	}
	for _, x := range ws {
		x.f()
		best := time.Duration(1 << 62)
		for range 9 {
			runtime.GC()
			c0 := threadCPU()
			for range x.n {
				x.f()
			}
			if d := (threadCPU() - c0) / time.Duration(x.n); d < best {
				best = d
			}
		}
		fmt.Printf("CPU %-14s %8.2f µs  %6.1f ns/byte\n", x.name, float64(best)/1e3, float64(best)/float64(x.size))
	}
}
