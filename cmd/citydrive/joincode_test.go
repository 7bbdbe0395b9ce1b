package main

import (
	"net"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

var testFP = strings.Repeat("3f5c", 16)

func TestJoinCodeRoundTrips(t *testing.T) {
	for _, s := range []string{
		"citydrive://203.0.113.5:4242/412/" + testFP,
		"citydrive://play.example.com:4242/0/" + testFP,
		"citydrive://[2001:db8::1]:1/18446744073709551615/" + testFP,
		"citydrive://host-1.example.:65535/7/" + testFP,
	} {
		c, err := parseJoinCode(s)
		require.NoError(t, err, s)
		assert.Equal(t, s, c.String())
	}
	c, err := parseJoinCode("  CityDrive://10.0.0.2:4242/412/" + testFP + "\n")
	require.NoError(t, err, "pasted with blanks, any case of scheme")
	assert.Equal(t, joinCode{host: "10.0.0.2", port: 4242, seed: 412, fingerprint: testFP}, c)
	assert.Equal(t, "10.0.0.2:4242", c.addr())
	c, err = parseJoinCode("citydrive://[::1]:9/1/" + testFP)
	require.NoError(t, err)
	assert.Equal(t, "[::1]:9", c.addr(), "IPv6 dials in brackets")
}

func TestJoinCodeErrorsSayWhatIsWrong(t *testing.T) {
	for _, tc := range []struct{ code, want string }{
		{"", "does not start with citydrive://"},
		{"http://h:1/1/" + testFP, "does not start with citydrive://"},
		{"citydrive://h:1/1", "want 3 parts"},
		{"citydrive://h:1/1/" + testFP + "/", "want 3 parts"},
		{"citydrive://h/1/" + testFP, `address "h": want HOST:PORT`},
		{"citydrive://:1/1/" + testFP, "host \"\": empty"},
		{"citydrive://0.0.0.0:1/1/" + testFP, "unspecified"},
		{"citydrive://a_b:1/1/" + testFP, "not a host name"},
		{"citydrive://-a:1/1/" + testFP, "not a host name"},
		{"citydrive://a..b:1/1/" + testFP, "not a host name"},
		{"citydrive://0:1/1/" + testFP, "not an IP address"},
		{"citydrive://[0]:1/1/" + testFP, "not an IP address"},
		{"citydrive://1.2.3:1/1/" + testFP, "not an IP address"},
		{"citydrive://" + strings.Repeat("a", 64) + ":1/1/" + testFP, "not a host name"},
		{"citydrive://[fe80::1%eth0]:1/1/" + testFP, "zoned"},
		{"citydrive://h:0/1/" + testFP, `port "0"`},
		{"citydrive://h:65536/1/" + testFP, `port "65536"`},
		{"citydrive://h:04242/1/" + testFP, `port "04242"`},
		{"citydrive://h:+1/1/" + testFP, `port "+1"`},
		{"citydrive://h:1/-1/" + testFP, `seed "-1"`},
		{"citydrive://h:1/01/" + testFP, `seed "01"`},
		{"citydrive://h:1/18446744073709551616/" + testFP, "below 2^64"},
		{"citydrive://h:1//" + testFP, `seed ""`},
		{"citydrive://h:1/1/" + testFP[:63], "64 lower-case hex digits"},
		{"citydrive://h:1/1/" + strings.ToUpper(testFP), "64 lower-case hex digits"},
		{"citydrive://h:1/1/" + strings.Repeat("g", 64), "64 lower-case hex digits"},
		{"citydrive://h:1/1/" + strings.Repeat("a", 62) + "--", "64 lower-case hex digits"},
		{"citydrive://h:1/1/" + strings.Repeat("a", 500), "too long"},
	} {
		_, err := parseJoinCode(tc.code)
		require.Error(t, err, tc.code)
		assert.ErrorIs(t, err, errJoinCode)
		assert.Contains(t, err.Error(), tc.want, tc.code)
		assert.Contains(t, err.Error(), "as the server prints it", "every error shows the form")
	}
}

func TestJoinCommandTakesTheCode(t *testing.T) {
	stop := dryRun(t)
	code := "citydrive://203.0.113.5:4242/7/" + testFP
	for _, args := range [][]string{
		{"join", code},
		{"join", code, "-width", "800", "-mute"},
		{"join", "-mute", code},
		{"join", "-seed", "7", code},
	} {
		n, _, stderr := runCmd(args...)
		assert.Equal(t, exitError, n, "%v", args)
		assert.Equal(t, "citydrive join: "+stop.Error()+"\n", stderr, "%v: the code parsed, the flags too", args)
	}
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"join"}, "want one join code"},
		{[]string{"join", code, code}, "unexpected arguments"},
		{[]string{"join", "-seed", "8", code}, "-seed 8 disagrees with the join code's seed 7"},
		{[]string{"join", "-addr", "h:1", code}, "flag provided but not defined: -addr"},
		{[]string{"join", "citydrive://h:1/7/abc"}, "fingerprint"},
	} {
		n, _, stderr := runCmd(tc.args...)
		assert.Equal(t, exitError, n, "%v", tc.args)
		assert.Contains(t, stderr, tc.want, "%v", tc.args)
	}
}

func TestPublicHostNamesAReachableAddress(t *testing.T) {
	nets := func(cidrs ...string) []net.Addr {
		var out []net.Addr
		for _, c := range cidrs {
			ip, n, err := net.ParseCIDR(c)
			require.NoError(t, err)
			n.IP = ip
			out = append(out, n)
		}
		return out
	}
	all := nets("127.0.0.1/8", "::1/128", "fe80::1/64", "2001:db8::5/64", "192.168.1.20/24", "10.0.0.2/8")
	for _, tc := range []struct {
		flag   string
		listen net.IP
		addrs  []net.Addr
		want   string
		ok     bool
	}{
		{"play.example.com", nil, all, "play.example.com", true},
		{"", net.IPv4zero, all, "192.168.1.20", true},
		{"", nil, all, "192.168.1.20", true},
		{"", net.ParseIP("10.0.0.2"), all, "10.0.0.2", true},
		{"", net.IPv6unspecified, nets("::1/128", "2001:db8::5/64"), "2001:db8::5", true},
		{"", nil, nets("127.0.0.1/8", "fe80::1/64"), "127.0.0.1", false},
		{"", net.ParseIP("127.0.0.1"), all, "127.0.0.1", false},
	} {
		host, ok := publicHost(tc.flag, tc.listen, tc.addrs)
		assert.Equal(t, tc.want, host)
		assert.Equal(t, tc.ok, ok, tc.want)
	}
	assert.Equal(t, "'citydrive://[::1]:1/1/ab'", shellQuote("citydrive://[::1]:1/1/ab"))
	assert.Equal(t, "citydrive://h.example:1/1/ab", shellQuote("citydrive://h.example:1/1/ab"))
}

// FuzzParseJoinCode: no input panics, anything accepted is within the
// bounds and prints back as a code that parses to the same thing.
func FuzzParseJoinCode(f *testing.F) {
	for _, s := range []string{
		"citydrive://203.0.113.5:4242/412/" + testFP,
		"citydrive://[2001:db8::1]:1/18446744073709551615/" + testFP,
		"citydrive://play.example.com:4242/0/" + testFP,
		"citydrive://h:1/1/", "citydrive://[::1%25]:1/1/x", "",
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		c, err := parseJoinCode(s)
		if err != nil {
			if !strings.Contains(err.Error(), "join code: ") {
				t.Fatalf("%q: error without the prefix: %v", s, err)
			}
			return
		}
		if len(s) > maxJoinCode || c.port < 1 || c.port > 65535 || len(c.fingerprint) != 64 || c.host == "" {
			t.Fatalf("%q: accepted out of bounds: %+v", s, c)
		}
		again, err := parseJoinCode(c.String())
		if err != nil {
			t.Fatalf("%q → %q: %v", s, c.String(), err)
		}
		if again != c {
			t.Fatalf("%q: %+v, printed and parsed %+v", s, c, again)
		}
	})
}
