package upstream_test

import (
	"errors"
	"fmt"
	"io"
	"net/netip"
	"net/url"
	"strings"
	"testing"

	"github.com/triagehq/triage/internal/upstream"
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
		{"::ffff:a9fe:a9fe", true, "link-local"},
		{"64:ff9b:1::a9fe:a9fe", true, "local-use NAT64"}, // RFC 8215: a network's own translator
		{"64:ff9b:1:a00:1::", true, "local-use NAT64"},
		{"2002:a9fe:a9fe::", true, "link-local"},                     // 6to4 of 169.254.169.254
		{"2002:a00:1::1", true, "private"},                           // 6to4 of 10.0.0.1
		{"2002:7f00:1::", true, "loopback"},                          // 6to4 of 127.0.0.1
		{"2002:808:808::1", false, ""},                               // 6to4 of 8.8.8.8
		{"2001:0:4136:e378:8000:63bf:5601:5601", true, "link-local"}, // Teredo, client 169.254.169.254 (inverted)
		{"2001:0:a00:1:8000:63bf:3fff:fdd2", true, "private"},        // Teredo, server 10.0.0.1
		{"2001:0:4136:e378:8000:63bf:3fff:fdd2", false, ""},          // Teredo, server 65.54.227.120, client 192.0.2.45
	}
	for _, tt := range tests {
		t.Run(tt.addr, func(t *testing.T) {
			t.Parallel()
			why, blocked := upstream.BlockedAddr(netip.MustParseAddr(tt.addr))
			if blocked != tt.blocked || why != tt.why {
				t.Errorf("egress.BlockedAddr(%s) = %q, %v; want %q, %v", tt.addr, why, blocked, tt.why, tt.blocked)
			}
		})
	}
	if _, blocked := upstream.BlockedAddr(netip.Addr{}); !blocked {
		t.Errorf("the zero Addr is not blocked")
	}
}

func TestParseURL(t *testing.T) {
	t.Parallel()
	for raw, ok := range map[string]bool{
		"https://example.com/a?b=1": true, "http://example.com": true, "  https://x.io/p  ": true,
		"": false, "ftp://example.com/f": false, "/relative/path": false, "https://": false, "http://%zz": false,
	} {
		u, err := upstream.ParseURL(raw)
		if (err == nil) != ok {
			t.Errorf("ParseURL(%q) = %v, %v; want ok=%v", raw, u, err, ok)
		}
		if err != nil && raw != "" && strings.Contains(err.Error(), strings.TrimSpace(raw)) {
			t.Errorf("ParseURL(%q) error quotes the URL: %v", raw, err)
		}
	}
}

func TestRedactURLKeepsOnlySchemeAndHost(t *testing.T) {
	t.Parallel()
	u, _ := url.Parse("https://hooks.slack.com/services/T000/B000/XXXXsecretXXXX?token=abc")
	err := fmt.Errorf("post: %w", upstream.RedactURL(&url.Error{Op: "Post", URL: u.String(), Err: io.ErrUnexpectedEOF}, u))
	if strings.Contains(err.Error(), "secret") || strings.Contains(err.Error(), "token") || !errors.Is(err, io.ErrUnexpectedEOF) {
		t.Fatalf("redacted error %q (chain kept: %v)", err, errors.Is(err, io.ErrUnexpectedEOF))
	}
}
