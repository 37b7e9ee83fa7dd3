package fidelity

import (
	"strings"

	"github.com/thinkcap/thinkcap/sim"
)

// releaseDates are the vLLM releases by the day they were out, as far as
// the corpus and vLLM's release notes show (the first day a record names
// the release, or the release notes' date): a nightly or a custom image
// of a given day behaves as the last release before it. Async scheduling
// (0.14) and the memory model's ranges (0.21, 0.22, 0.28) are what the
// replay takes from the release.
var releaseDates = []struct{ date, version string }{
	{"2025-07-24", "0.10.0"}, {"2025-08-18", "0.10.1"}, {"2025-09-13", "0.10.2"}, {"2025-10-02", "0.11.0"},
	{"2025-11-18", "0.11.1"}, {"2025-12-03", "0.12.0"}, {"2025-12-18", "0.13.0"}, {"2026-01-20", "0.14.0"},
	{"2026-02-01", "0.15.1"}, {"2026-03-01", "0.16.0"}, {"2026-03-11", "0.17.0"}, {"2026-03-27", "0.18.0"},
	{"2026-04-08", "0.19.0"}, {"2026-04-28", "0.20.0"}, {"2026-05-16", "0.21.0"}, {"2026-05-29", "0.22.0"},
	{"2026-07-04", "0.24.0"}, {"2026-07-12", "0.25.0"}, {"2026-07-31", "0.26.1"}, {"2026-08-11", "0.27.1"},
}

// vllmVersion is the release to replay a record as: its own when it names
// one, else the last release before its date (a nightly, a custom image),
// else "" (thinkcap's default).
func vllmVersion(r *Record) string {
	v := strings.TrimPrefix(r.VLLMVersion, "v")
	if _, err := sim.ParseVLLMVersion(v); err == nil && v != "" {
		return v
	}
	if r.Date == "" {
		return ""
	}
	out := ""
	for _, rd := range releaseDates {
		if rd.date <= r.Date {
			out = rd.version
		}
	}
	return out
}
