package egress_test

import (
	"net/netip"
	"testing"

	"github.com/triagehq/triage/shared/egress"
)

func TestBlockedAddr(t *testing.T) {
	t.Parallel()
	tests := []struct {
		addr    string
		blocked bool
		why     string
	}{
		{"127.0.0.1", true, "loopback"},
		{"127.255.0.9", true, "loopback"},
		{"::1", true, "loopback"},
		{"10.1.2.3", true, "private"},
		{"172.16.0.1", true, "private"},
		{"172.31.255.255", true, "private"},
		{"192.168.1.1", true, "private"},
		{"fd00:ec2::254", true, "private"},
		{"169.254.169.254", true, "link-local"},
		{"fe80::1", true, "link-local"},
		{"0.0.0.0", true, "unspecified"},
		{"::", true, "unspecified"},
		{"224.0.0.1", true, "link-local"},
		{"239.1.2.3", true, "multicast"},
		{"ff02::1", true, "link-local"},
		{"ff0e::1", true, "multicast"},
		{"255.255.255.255", true, "broadcast"},
		{"0.1.2.3", true, "this-network"},
		{"100.100.100.200", true, "shared (carrier-grade NAT)"},
		{"198.18.0.1", true, "benchmarking"},
		{"::ffff:127.0.0.1", true, "loopback"},
		{"::ffff:10.0.0.1", true, "private"},
		{"64:ff9b::a9fe:a9fe", true, "link-local"}, // NAT64 of 169.254.169.254
		{"8.8.8.8", false, ""},
		{"172.32.0.1", false, ""},
		{"100.128.0.1", false, ""},
		{"2606:4700:4700::1111", false, ""},
		{"64:ff9b::808:808", false, ""}, // NAT64 of 8.8.8.8
	}
	for _, tt := range tests {
		t.Run(tt.addr, func(t *testing.T) {
			t.Parallel()
			why, blocked := egress.BlockedAddr(netip.MustParseAddr(tt.addr))
			if blocked != tt.blocked || why != tt.why {
				t.Errorf("egress.BlockedAddr(%s) = %q, %v; want %q, %v", tt.addr, why, blocked, tt.why, tt.blocked)
			}
		})
	}
	if _, blocked := egress.BlockedAddr(netip.Addr{}); !blocked {
		t.Errorf("the zero Addr is not blocked")
	}
}
