package buildinfo

import (
	"runtime/debug"
	"strings"
	"testing"
)

func TestFormat(t *testing.T) {
	vcs := func(kv ...string) []debug.BuildSetting {
		var s []debug.BuildSetting
		for i := 0; i+1 < len(kv); i += 2 {
			s = append(s, debug.BuildSetting{Key: kv[i], Value: kv[i+1]})
		}
		return s
	}
	tests := []struct {
		name string
		bi   *debug.BuildInfo
		want string
	}{
		{"no build info", nil, "(devel)"},
		{"no version", &debug.BuildInfo{}, "(devel)"},
		{"release", &debug.BuildInfo{Main: debug.Module{Version: "v1.2.0"}}, "v1.2.0"},
		{"checkout, dirty", &debug.BuildInfo{
			Main:     debug.Module{Version: "(devel)"},
			Settings: vcs("vcs", "git", "vcs.revision", "9a1a6c8e0b3f4d2c1a0b9c8d7e6f5a4b3c2d1e0f", "vcs.time", "2026-12-01T22:00:00Z", "vcs.modified", "true"),
		}, "(devel) rev 9a1a6c8 2026-12-01T22:00:00Z, dirty"},
		{"checkout, clean", &debug.BuildInfo{
			Main:     debug.Module{Version: "v0.3.1-0.20261201220000-9a1a6c8e0b3f"},
			Settings: vcs("vcs.revision", "9a1a6c8e0b3f", "vcs.time", "2026-12-01T22:00:00Z", "vcs.modified", "false"),
		}, "v0.3.1-0.20261201220000-9a1a6c8e0b3f rev 9a1a6c8 2026-12-01T22:00:00Z"},
		{"untagged checkout (go 1.24 pseudo-version)", &debug.BuildInfo{
			Main:     debug.Module{Version: "v0.0.0-20261129173549-9a1a6c80ef71+dirty"},
			Settings: vcs("vcs.revision", "9a1a6c80ef71a2b3c4d5e6f708192a3b4c5d6e7f", "vcs.time", "2026-11-29T17:35:49Z", "vcs.modified", "true"),
		}, "(devel) rev 9a1a6c8 2026-11-29T17:35:49Z, dirty"},
		{"pseudo-version of another commit kept", &debug.BuildInfo{
			Main:     debug.Module{Version: "v0.0.0-20261129173549-0123456789ab"},
			Settings: vcs("vcs.revision", "9a1a6c80ef71a2b3c4d5e6f708192a3b4c5d6e7f"),
		}, "v0.0.0-20261129173549-0123456789ab rev 9a1a6c8"},
		{"short revision kept whole", &debug.BuildInfo{Settings: vcs("vcs.revision", "abc")}, "(devel) rev abc"},
		{"other settings ignored", &debug.BuildInfo{Settings: vcs("-trimpath", "true", "GOOS", "linux")}, "(devel)"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := Format(tt.bi); got != tt.want {
				t.Errorf("Format = %q, want %q", got, tt.want)
			}
		})
	}
}

// TestVersionOfThisBinary checks Version reads the running binary's build
// info: a test binary has a main module, so it is never empty.
func TestVersionOfThisBinary(t *testing.T) {
	got := Version()
	if got == "" || strings.HasPrefix(got, " ") {
		t.Fatalf("Version() = %q", got)
	}
	if bi, ok := debug.ReadBuildInfo(); ok && Format(bi) != got {
		t.Errorf("Version() = %q, Format(ReadBuildInfo()) = %q", got, Format(bi))
	}
}
