// Package upstream keeps the HTTP clients of stages whose destination an item
// producer chooses (article URLs, webhook URLs) off the private network: a
// URL pointing at 169.254.169.254, 10.0.0.0/8 or localhost is refused at
// connect time (server-side request forgery protection).//
// Its sub-packages are the upstreams themselves: llm (the model client), notice
// (the owner's webhook) and secret (SSM and Secrets Manager references).
package upstream

import (
	"errors"
	"net/netip"
	"net/url"
	"strings"
	"syscall"

	"github.com/triagehq/triage/internal/failure"
	"github.com/triagehq/triage/internal/work"
)

// Control is a net.Dialer Control hook that refuses BlockedAddr addresses:
// address is the resolved "ip:port" about to be connected to, so the check
// holds after DNS resolution, on every connection and redirect, and DNS
// rebinding cannot get around it. A refused address is SCHEMA_INVALID: the
// item names a destination triage will not reach.
func Control(network, address string, _ syscall.RawConn) error {
	ap, err := netip.ParseAddrPort(address)
	if err != nil {
		return failure.New(work.SchemaInvalid, "refusing to connect to unparseable address %q", address)
	}
	if why, blocked := BlockedAddr(ap.Addr()); blocked {
		return failure.New(work.SchemaInvalid, "refusing to connect to %s address %s", why, ap.Addr())
	}
	return nil
}

// extraBlocked are special-purpose ranges that netip's predicates do not
// cover but that no public article host or webhook lives on.
var extraBlocked = []struct {
	prefix netip.Prefix
	why    string
}{
	{netip.MustParsePrefix("0.0.0.0/8"), "this-network"},
	{netip.MustParsePrefix("100.64.0.0/10"), "shared (carrier-grade NAT)"},
	{netip.MustParsePrefix("192.0.0.0/24"), "IETF protocol assignment"},
	{netip.MustParsePrefix("198.18.0.0/15"), "benchmarking"},
	{netip.MustParsePrefix("240.0.0.0/4"), "reserved"},
}

// IPv6 prefixes whose addresses embed an IPv4 one: the well-known NAT64
// prefix (the IPv4 address in the last 32 bits), 6to4 (in bits 16–47) and
// Teredo (the server's in bits 32–63, the client's inverted in the last
// 32). The local-use NAT64 prefix is a network's own translator, which
// reaches that network's private addresses: no public host is there.
var (
	nat64         = netip.MustParsePrefix("64:ff9b::/96")
	nat64LocalUse = netip.MustParsePrefix("64:ff9b:1::/48")
	sixToFour     = netip.MustParsePrefix("2002::/16")
	teredo        = netip.MustParsePrefix("2001::/32")
)

// BlockedAddr reports whether a is refused, and why: loopback,
// private (RFC 1918, fc00::/7), link-local (169.254/16 — the instance
// metadata service — and fe80::/10), unspecified, multicast, the
// special-purpose ranges in extraBlocked and the local-use NAT64 prefix.
// IPv4-mapped, NAT64, 6to4 and Teredo IPv6 addresses are judged by the IPv4
// addresses they carry.
func BlockedAddr(a netip.Addr) (why string, blocked bool) {
	a = a.Unmap()
	b := a.As16()
	switch {
	case a.Is6() && nat64.Contains(a):
		a = netip.AddrFrom4([4]byte{b[12], b[13], b[14], b[15]})
	case a.Is6() && nat64LocalUse.Contains(a):
		return "local-use NAT64", true
	case a.Is6() && sixToFour.Contains(a):
		a = netip.AddrFrom4([4]byte{b[2], b[3], b[4], b[5]})
	case a.Is6() && teredo.Contains(a):
		if why, blocked := BlockedAddr(netip.AddrFrom4([4]byte{b[4], b[5], b[6], b[7]})); blocked {
			return why, true
		}
		a = netip.AddrFrom4([4]byte{^b[12], ^b[13], ^b[14], ^b[15]})
	}
	switch {
	case !a.IsValid():
		return "invalid", true
	case a.IsLoopback():
		return "loopback", true
	case a.IsPrivate():
		return "private", true
	case a.IsLinkLocalUnicast(), a.IsLinkLocalMulticast():
		return "link-local", true
	case a.IsUnspecified():
		return "unspecified", true
	case a.IsMulticast(), a.IsInterfaceLocalMulticast():
		return "multicast", true
	}
	if a.Is4() {
		if a == netip.AddrFrom4([4]byte{255, 255, 255, 255}) {
			return "broadcast", true
		}
		for _, e := range extraBlocked {
			if e.prefix.Contains(a) {
				return e.why, true
			}
		}
	}
	return "", false
}

// ParseURL accepts only absolute http and https URLs with a host. Its errors
// never quote the URL: a producer's URL may carry a token in its path or
// query.
func ParseURL(raw string) (*url.URL, error) {
	if strings.TrimSpace(raw) == "" {
		return nil, errors.New("missing")
	}
	u, err := url.Parse(strings.TrimSpace(raw))
	if err != nil {
		return nil, errors.New("not a valid URL")
	}
	if u.Scheme != "http" && u.Scheme != "https" {
		return nil, errors.New("not an absolute http(s) URL")
	}
	if u.Hostname() == "" {
		return nil, errors.New("has no host")
	}
	return u, nil
}

// RedactURL replaces the request URL of a *url.Error in err's chain with
// scheme://host, keeping the chain: the path of a webhook URL is often its
// secret, and an article URL's query may hold an access token. Call it on
// the HTTP client's error before wrapping it: a wrapping error keeps the
// text it was made with.
func RedactURL(err error, u *url.URL) error {
	var ue *url.Error
	if errors.As(err, &ue) {
		ue.URL = u.Scheme + "://" + u.Host
	}
	return err
}
