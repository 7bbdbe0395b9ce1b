package main

import (
	"flag"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
)

func TestSweepBadFlagsGiveOneClearLine(t *testing.T) {
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"-seeds", "9-3"}, `citydrive sweep: -seeds: seed range "9-3" runs backwards`},
		{[]string{"-seeds", "1,,2"}, "-seeds: empty item"},
		{[]string{"-seeds", "0-99999"}, "-seeds: more than 50000 seeds (a sweep is at most 100000 runs, seeds × hours)"},
		{[]string{"-times", "25"}, `-times: bad hour "25"`},
		{[]string{"-hours", "25"}, `-times: bad hour "25"`},
		{[]string{"-duration", "0s"}, "-duration must be in (0, 24h]"},
		{[]string{"-duration", "25h"}, "-duration must be in (0, 24h]"},
		{[]string{"-parallel", "0"}, "-parallel must be in 1..256"},
		{[]string{"-workers", "-2"}, "workers must be"},
		{[]string{"-seed", "5"}, "flag provided but not defined: -seed"},
	} {
		code, stdout, stderr := runCmd(append([]string{"sweep"}, tc.args...)...)
		assert.Equal(t, 2, code, "%v", tc.args)
		assert.Contains(t, stderr, tc.want, "%v", tc.args)
		assert.Empty(t, stdout, "%v: nothing ran", tc.args)
		assert.NotContains(t, stderr, "usage:", "%v: no usage", tc.args)
		lines := 1
		if strings.Contains(stderr, "flag provided") {
			lines = 2 // and "see citydrive sweep -h"
		}
		assert.Equal(t, lines, strings.Count(stderr, "\n"), "%v: one line", tc.args)
	}
}

// -h documents every flag, the rules and the soak flags it passes on.
func TestSweepHelpDocumentsEveryFlag(t *testing.T) {
	code, stderr, _ := runCmd("sweep", "-h")
	assert.Equal(t, 0, code)
	for _, name := range []string{"seeds", "times", "duration", "parallel", "json", "out", "v", "traffic", "workers", "slots", "view-cost"} {
		assert.Regexp(t, `\n  -`+name+`[ \t\n]`, stderr, "-%s", name)
	}
	for _, want := range []string{"1 per 10 km", "0.5 km driven per simulated minute", "100 builds per simulated minute", "0.05 m below", "non-zero"} {
		assert.Contains(t, stderr, want)
	}
}

// The soak flags the sweep passes on are the ones set, as the soak takes
// them.
func TestSweepPassesTheSetSoakFlagsOn(t *testing.T) {
	fs := flag.NewFlagSet("t", flag.ContinueOnError)
	soakArgs, validate := addSoakFlags(fs)
	assert.Nil(t, fs.Lookup("seed"), "-seeds replaces -seed")
	assert.NoError(t, fs.Parse([]string{"-workers", "1", "-traffic=false"}))
	assert.NoError(t, validate())
	assert.Equal(t, []string{"-traffic=false", "-workers=1"}, soakArgs())
}
