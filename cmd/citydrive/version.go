package main

import (
	"fmt"
	"io"
	"runtime/debug"

	"citydrive/netsync/wire"
	"citydrive/voxel/gen"
)

// readBuildInfo is debug.ReadBuildInfo; the golden test fixes it, since
// a test binary carries no VCS stamp.
var readBuildInfo = debug.ReadBuildInfo

// runVersion is `citydrive version` (and -version): what a player and a
// server compare when a join fails on a version.
func runVersion(args []string, stdout, stderr io.Writer) error {
	fs := newFlags("version", stdout, "version",
		"Prints this build's version and commit, the network protocol version a\nclient and its server must share, and the terrain generator version a\nserver's stored edits belong to.")
	if err := fs.parse(args); err != nil {
		return err
	}
	if err := ready(); err != nil {
		return err
	}
	fmt.Fprint(stdout, versionText())
	return nil
}

func versionText() string {
	version, commit, when, modified := "devel", "unknown", "", false
	if bi, ok := readBuildInfo(); ok {
		if v := bi.Main.Version; v != "" && v != "(devel)" {
			version = v
		}
		for _, s := range bi.Settings {
			switch s.Key {
			case "vcs.revision":
				commit = s.Value
			case "vcs.time":
				when = s.Value
			case "vcs.modified":
				modified = s.Value == "true"
			}
		}
	}
	if when != "" {
		commit += " (" + when + ")"
	}
	if modified {
		commit += " with local changes"
	}
	return fmt.Sprintf("citydrive %s\ncommit:    %s\nprotocol:  %d\ngenerator: %d\n", version, commit, wire.ProtocolVersion, gen.Version)
}
