package profiles

import (
	"bufio"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// localPaths are the ways a comment can cite a file of the machine it was
// written on instead of the public source a reader of this repository can
// open: the team's shared reference notes and fixtures, or any absolute
// home or work path.
var localPaths = []string{"shared/reference", "shared/fixtures", "../shared", "/work/", "/home/", "/Users/"}

// urlRE matches a URL, whose path may contain anything (a /work/ on
// someone's web site is public).
var urlRE = regexp.MustCompile(`[a-z][a-z0-9+.-]*://\S+`)

// localCitation returns the local-path pattern line cites outside its URLs,
// or "".
func localCitation(line string) string {
	line = urlRE.ReplaceAllString(line, "")
	for _, p := range localPaths {
		if strings.Contains(line, p) {
			return p
		}
	}
	return ""
}

func TestLocalCitation(t *testing.T) {
	tests := []struct{ line, want string }{
		{"# Source: https://huggingface.co/Qwen/Qwen3-8B/blob/main/config.json", ""},
		{"# Source: config.json (Hugging Face); /work/shared/reference/hardware-and-models.md §2a", "shared/reference"},
		{"Excerpt of (`/work/shared/fixtures/vllm/PROVENANCE.md`)", "shared/fixtures"},
		{"see ../shared/DESIGN.md", "../shared"},
		{"# measured in /work/bench/run1", "/work/"},
		{"# from /home/alice/notes.md", "/home/"},
		{"# https://example.com/work/shared/reference/x.md is public", ""},
		{"# shared experts: 1", ""},
	}
	for _, tt := range tests {
		if got := localCitation(tt.line); got != tt.want {
			t.Errorf("localCitation(%q) = %q, want %q", tt.line, got, tt.want)
		}
	}
}

// TestCitationsArePublic fails when an embedded profile or a testdata
// provenance file cites a local path rather than its public source (the
// vLLM file, the model card's config.json, the datasheet, the blog post),
// so that every number can be checked from this repository alone.
func TestCitationsArePublic(t *testing.T) {
	checked := 0
	check := func(name string, open func() (fs.File, error)) {
		f, err := open()
		if err != nil {
			t.Fatal(err)
		}
		defer f.Close()
		sc := bufio.NewScanner(f)
		sc.Buffer(make([]byte, 0, 64<<10), 1<<20)
		for n := 1; sc.Scan(); n++ {
			if p := localCitation(sc.Text()); p != "" {
				t.Errorf("%s:%d cites a local path (%s); cite the public source: %s", name, n, p, strings.TrimSpace(sc.Text()))
			}
		}
		if err := sc.Err(); err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		checked++
	}
	err := fs.WalkDir(dataFS, "data", func(path string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		check("profiles/"+path, func() (fs.File, error) { return dataFS.Open(path) })
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	embedded := checked
	if embedded == 0 {
		t.Fatal("no embedded data files")
	}
	// Every provenance file of the repository, testdata of any package.
	root := ".."
	err = filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() && (d.Name() == ".git" || d.Name() == "node_modules") {
			return filepath.SkipDir
		}
		if !d.IsDir() && strings.HasPrefix(d.Name(), "PROVENANCE") {
			rel, _ := filepath.Rel(root, path)
			check(rel, func() (fs.File, error) { return os.Open(path) })
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if checked == embedded {
		t.Fatal("no PROVENANCE file found under the repository")
	}
}
