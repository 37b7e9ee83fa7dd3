package main

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

var (
	mdLink    = regexp.MustCompile(`\]\(([^)\s]+)\)`)
	mdHeading = regexp.MustCompile("(?m)^#{1,6} +(.+)$")
	notAnchor = regexp.MustCompile(`[^\p{L}\p{N} _-]`)
)

// TestDocsLinks: every relative link of README.md and docs/ names a file
// that exists and, after #, a heading of it (as GitHub spells anchors), so
// that moving a page or renaming a section cannot leave a dead link.
func TestDocsLinks(t *testing.T) {
	root := filepath.Join("..", "..")
	pages, err := filepath.Glob(filepath.Join(root, "docs", "*.md"))
	if err != nil {
		t.Fatal(err)
	}
	cli, err := filepath.Glob(filepath.Join(root, "docs", "cli", "*.md"))
	if err != nil {
		t.Fatal(err)
	}
	pages = append(append(pages, cli...), filepath.Join(root, "README.md"))
	anchors := map[string]map[string]bool{}
	anchorsOf := func(path string) map[string]bool {
		if a, ok := anchors[path]; ok {
			return a
		}
		a := map[string]bool{}
		if b, err := os.ReadFile(path); err == nil {
			for _, m := range mdHeading.FindAllStringSubmatch(string(b), -1) {
				h := strings.ToLower(notAnchor.ReplaceAllString(m[1], ""))
				a[strings.ReplaceAll(h, " ", "-")] = true
			}
		}
		anchors[path] = a
		return a
	}
	for _, page := range pages {
		b, err := os.ReadFile(page)
		if err != nil {
			t.Fatal(err)
		}
		for _, m := range mdLink.FindAllStringSubmatch(string(b), -1) {
			link := m[1]
			if strings.Contains(link, "://") || strings.HasPrefix(link, "mailto:") {
				continue
			}
			file, anchor, _ := strings.Cut(link, "#")
			target := page
			if file != "" {
				target = filepath.Join(filepath.Dir(page), file)
				if _, err := os.Stat(target); err != nil {
					t.Errorf("%s: link %s: no such file", page, link)
					continue
				}
			}
			if anchor != "" && strings.HasSuffix(target, ".md") && !anchorsOf(target)[anchor] {
				t.Errorf("%s: link %s: no such heading", page, link)
			}
		}
	}
}
