package loadgen

import (
	"path/filepath"
	"testing"

	"github.com/thinkcap/thinkcap/internal/buildinfo"
)

// TestMetadataVersionIsBuildVersion checks metadata.json records the same
// version `thinkcap --version` prints (with the VCS revision when the build
// has one) unless the caller set one.
func TestMetadataVersionIsBuildVersion(t *testing.T) {
	for _, tt := range []struct{ set, want string }{
		{"", buildinfo.Version()},
		{"v9.9.9", "v9.9.9"},
	} {
		path := filepath.Join(t.TempDir(), "metadata.json")
		if err := WriteMetadata(path, Metadata{ThinkcapVersion: tt.set, Model: "m"}); err != nil {
			t.Fatal(err)
		}
		got, err := ReadMetadata(path)
		if err != nil {
			t.Fatal(err)
		}
		if got.ThinkcapVersion != tt.want {
			t.Errorf("set %q: thinkcap_version %q, want %q", tt.set, got.ThinkcapVersion, tt.want)
		}
	}
}
