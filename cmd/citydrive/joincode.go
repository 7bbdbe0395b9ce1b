package main

import (
	"errors"
	"fmt"
	"net"
	"strconv"
	"strings"

	"citydrive/netsync/transport"
)

// A join code is everything a player needs to join a server, in one
// string: citydrive://HOST:PORT/SEED/FINGERPRINT. The parts are path
// segments, not a query (?fp=…&seed=…), so that the code can be pasted
// into a shell unquoted: '?' is a glob in zsh and '&' ends a command.
const (
	joinScheme = "citydrive://"
	// maxJoinCode bounds what is parsed: a 253-byte host name, a port,
	// a 20-digit seed and a 64-digit fingerprint fit with room.
	maxJoinCode = 400
	maxHostName = 253 // DNS
	maxLabel    = 63  // DNS
)

// joinCode is a parsed join code.
type joinCode struct {
	host        string // a DNS name or an IP (IPv6 without brackets)
	port        int
	seed        uint64
	fingerprint string // normalised: 64 lower-case hex digits
}

// String is the code (parseJoinCode's inverse).
func (c joinCode) String() string {
	return fmt.Sprintf("%s%s/%d/%s", joinScheme, c.addr(), c.seed, c.fingerprint)
}

// addr is the host:port to dial.
func (c joinCode) addr() string { return net.JoinHostPort(c.host, strconv.Itoa(c.port)) }

// errJoinCode prefixes every join-code error.
var errJoinCode = errors.New("join code")

func badCode(format string, a ...any) error {
	return fmt.Errorf("%w: "+format+" (want "+joinScheme+"HOST:PORT/SEED/FINGERPRINT, as the server prints it)",
		append([]any{errJoinCode}, a...)...)
}

// parseJoinCode parses a join code strictly: every part present, valid
// and in range, nothing else.
func parseJoinCode(s string) (joinCode, error) {
	var c joinCode
	s = strings.TrimSpace(s)
	if len(s) > maxJoinCode {
		return c, badCode("%d bytes is too long (at most %d)", len(s), maxJoinCode)
	}
	if len(s) < len(joinScheme) || !strings.EqualFold(s[:len(joinScheme)], joinScheme) {
		return c, badCode("it does not start with %s", joinScheme)
	}
	parts := strings.Split(s[len(joinScheme):], "/")
	if len(parts) != 3 {
		return c, badCode("want 3 parts after %s, got %d", joinScheme, len(parts))
	}
	host, port, err := net.SplitHostPort(parts[0])
	if err != nil {
		return c, badCode("address %q: want HOST:PORT", parts[0])
	}
	if err := checkHost(host); err != nil {
		return c, badCode("host %q: %v", host, err)
	}
	c.host = host
	if c.port, err = strconv.Atoi(port); err != nil || c.port < 1 || c.port > 65535 || port[0] == '0' || port[0] == '+' {
		return c, badCode("port %q: want 1..65535", port)
	}
	if p := parts[1]; p == "" || p[0] < '0' || p[0] > '9' || (len(p) > 1 && p[0] == '0') {
		return c, badCode("seed %q: want a whole number", p)
	}
	if c.seed, err = strconv.ParseUint(parts[1], 10, 64); err != nil {
		return c, badCode("seed %q: want a whole number below 2^64", parts[1])
	}
	fp := parts[2]
	if len(fp) != 64 || strings.ToLower(fp) != fp {
		return c, badCode("fingerprint %q: want 64 lower-case hex digits", fp)
	}
	if c.fingerprint, err = transport.NormalizeFingerprint(fp); err != nil {
		return c, badCode("fingerprint %q: want 64 lower-case hex digits", fp)
	}
	return c, nil
}

// checkHost accepts an IP address or a DNS name.
func checkHost(h string) error {
	if h == "" {
		return errors.New("empty")
	}
	if ip := net.ParseIP(h); ip != nil {
		if ip.IsUnspecified() {
			return errors.New("an unspecified address cannot be dialled")
		}
		return nil
	}
	if strings.Contains(h, "%") {
		return errors.New("zoned IPv6 addresses are not supported")
	}
	if len(h) > maxHostName {
		return fmt.Errorf("longer than %d bytes", maxHostName)
	}
	labels := strings.Split(strings.TrimSuffix(h, "."), ".")
	if strings.Trim(labels[len(labels)-1], "0123456789") == "" {
		// "0" or "1.2.3": resolvers read these as IPs (0.0.0.0, 1.2.0.3).
		return errors.New("not an IP address, and a host name's last label is not all digits")
	}
	for _, l := range labels {
		if l == "" || len(l) > maxLabel || l[0] == '-' || l[len(l)-1] == '-' {
			return errors.New("not a host name")
		}
		for i := 0; i < len(l); i++ {
			if b := l[i]; !(b >= 'a' && b <= 'z' || b >= 'A' && b <= 'Z' || b >= '0' && b <= '9' || b == '-') {
				return fmt.Errorf("not a host name (character %q)", b)
			}
		}
	}
	return nil
}

// publicHost is the host a join code names for a server listening on
// listen: -public-host when given, else the listen IP when it is a
// specific one, else the first non-loopback address of this machine
// (loopback, with ok false, when there is none).
func publicHost(flagHost string, listen net.IP, addrs []net.Addr) (host string, ok bool) {
	if flagHost != "" {
		return flagHost, true
	}
	if listen != nil && !listen.IsUnspecified() {
		return listen.String(), !listen.IsLoopback()
	}
	var v6 string
	for _, a := range addrs {
		ipn, isNet := a.(*net.IPNet)
		if !isNet || !ipn.IP.IsGlobalUnicast() && !ipn.IP.IsPrivate() {
			continue // loopback, link-local, multicast
		}
		if ipn.IP.To4() != nil {
			return ipn.IP.String(), true // IPv4 first: it reaches most players
		}
		if v6 == "" {
			v6 = ipn.IP.String()
		}
	}
	if v6 != "" {
		return v6, true
	}
	return "127.0.0.1", false
}
