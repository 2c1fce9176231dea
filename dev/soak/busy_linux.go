package soak

import (
	"bufio"
	"os"
	"path/filepath"
	"strconv"
	"strings"
)

// busyPIDs returns those of pids that own a TCP connection whose local port
// is one of ports: the environments making the upstream calls in flight.
// It reads /proc/net/tcp{,6} for the sockets' inodes and /proc/<pid>/fd for
// their owners; nil when it cannot tell.
func busyPIDs(pids, ports []int) []int {
	if len(pids) == 0 || len(ports) == 0 {
		return nil
	}
	want := map[int]bool{}
	for _, p := range ports {
		want[p] = true
	}
	inodes := map[string]bool{}
	for _, name := range []string{"/proc/net/tcp", "/proc/net/tcp6"} {
		f, err := os.Open(name)
		if err != nil {
			continue
		}
		sc := bufio.NewScanner(f)
		for sc.Scan() {
			fields := strings.Fields(sc.Text())
			if len(fields) < 10 {
				continue
			}
			_, hexPort, ok := strings.Cut(fields[1], ":")
			if !ok {
				continue
			}
			port, err := strconv.ParseInt(hexPort, 16, 32)
			if err == nil && want[int(port)] {
				inodes["socket:["+fields[9]+"]"] = true
			}
		}
		f.Close()
	}
	if len(inodes) == 0 {
		return nil
	}
	var out []int
	for _, pid := range pids {
		dir := filepath.Join("/proc", strconv.Itoa(pid), "fd")
		ents, err := os.ReadDir(dir)
		if err != nil {
			continue
		}
		for _, e := range ents {
			if link, err := os.Readlink(filepath.Join(dir, e.Name())); err == nil && inodes[link] {
				out = append(out, pid)
				break
			}
		}
	}
	return out
}
