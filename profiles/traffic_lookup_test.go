package profiles

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestLookupTraffic(t *testing.T) {
	cat, err := Embedded()
	if err != nil {
		t.Fatal(err)
	}
	if tr, err := cat.LookupTraffic("effort-modes"); err != nil || tr.Name != "effort-modes" {
		t.Fatalf("by name: %q, %v", tr.Name, err)
	}
	class := "    classes:\n      - {name: c, share: 1, prompt_tokens: \"100\", think_tokens: \"10\", answer_tokens: \"10\"}\n"
	dir := t.TempDir()
	one := filepath.Join(dir, "one.yaml")
	two := filepath.Join(dir, "two.yml")
	if err := os.WriteFile(one, []byte("traffic:\n  - name: fitted\n"+class), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(two, []byte("traffic:\n  - name: a\n"+class+"  - name: b\n"+class), 0o644); err != nil {
		t.Fatal(err)
	}
	if tr, err := cat.LookupTraffic(one); err != nil || tr.Name != "fitted" {
		t.Fatalf("a file's one profile: %q, %v", tr.Name, err)
	}
	if _, err := cat.LookupTraffic(two); err == nil || !strings.Contains(err.Error(), "defines 2 traffic profiles (a, b)") {
		t.Errorf("two profiles: %v", err)
	}
	if _, err := cat.Traffic["fitted"]; err {
		t.Error("a file's profile was added to the catalog")
	}
}
