// Package buildinfo says which build of thinkcap is running: the module
// version and the VCS stamp the go command records (runtime/debug). Both
// `thinkcap --version` and a load test's metadata.json print it, so a run
// directory names the exact commit that produced it.
package buildinfo

import (
	"runtime/debug"
	"strings"
)

// Version is the running binary's version, e.g.
// "v1.2.0" for an installed release, or
// "(devel) rev 9a1a6c8 2026-12-01T22:00:00Z, dirty" for a build from a
// checkout. See Format.
func Version() string {
	bi, ok := debug.ReadBuildInfo()
	if !ok {
		return Format(nil)
	}
	return Format(bi)
}

// shortRevision is how many hex digits of the commit Format prints, as
// `git log --oneline` does.
const shortRevision = 7

// Format renders build info: the main module's version ("(devel)" when
// there is none, as for `go run`, a build without module info or a
// checkout with no tag), then
// the VCS revision (short), commit time and ", dirty" when the work tree
// had uncommitted changes, each only when the build recorded it
// (-buildvcs, the default in a checkout).
func Format(bi *debug.BuildInfo) string {
	version := "(devel)"
	if bi != nil && bi.Main.Version != "" {
		version = bi.Main.Version
	}
	if bi == nil {
		return version
	}
	var rev, when string
	dirty := false
	for _, s := range bi.Settings {
		switch s.Key {
		case "vcs.revision":
			rev = s.Value
		case "vcs.time":
			when = s.Value
		case "vcs.modified":
			dirty = s.Value == "true"
		}
	}
	version = untaggedAsDevel(strings.TrimSuffix(version, "+dirty"), rev)
	var b strings.Builder
	b.WriteString(version)
	if rev != "" {
		b.WriteString(" rev ")
		b.WriteString(rev[:min(len(rev), shortRevision)])
	}
	if when != "" {
		b.WriteString(" ")
		b.WriteString(when)
	}
	if dirty {
		b.WriteString(", dirty")
	}
	return b.String()
}

// untaggedAsDevel reads the pseudo-version the go command (1.24 and later)
// stamps on a build of a checkout with no tag, v0.0.0-<time>-<rev>, as
// "(devel)": the revision and time Format prints say the same, once. A
// pseudo-version over a tag (v1.2.1-0.<time>-<rev>) keeps its tag.
func untaggedAsDevel(version, rev string) string {
	if rev == "" || !strings.HasPrefix(version, "v0.0.0-") {
		return version
	}
	if strings.HasSuffix(version, "-"+rev[:min(len(rev), 12)]) {
		return "(devel)"
	}
	return version
}
