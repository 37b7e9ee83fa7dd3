package main

import (
	"bytes"
	"os"
	"path/filepath"
	"slices"
	"testing"
)

// TestCLIReferenceIsCurrent: docs/cli is what `make docs` writes from the
// commands as they are; a flag or help text changed without regenerating
// the reference fails here.
func TestCLIReferenceIsCurrent(t *testing.T) {
	want := t.TempDir()
	if err := writeCLIReference(want); err != nil {
		t.Fatal(err)
	}
	have := filepath.Join("..", "..", "docs", "cli")
	wantFiles, haveFiles := mdFiles(t, want), mdFiles(t, have)
	if !slices.Equal(wantFiles, haveFiles) {
		t.Fatalf("docs/cli is stale (run make docs): pages %v, want %v", haveFiles, wantFiles)
	}
	for _, name := range wantFiles {
		w, err := os.ReadFile(filepath.Join(want, name))
		if err != nil {
			t.Fatal(err)
		}
		h, err := os.ReadFile(filepath.Join(have, name))
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(w, h) {
			t.Errorf("docs/cli/%s is stale (run make docs)", name)
		}
	}
}

func mdFiles(t *testing.T, dir string) []string {
	t.Helper()
	paths, err := filepath.Glob(filepath.Join(dir, "*.md"))
	if err != nil {
		t.Fatal(err)
	}
	names := make([]string, len(paths))
	for i, p := range paths {
		names[i] = filepath.Base(p)
	}
	return names
}

// TestStepFitTablesAreCurrent: the README's step-fit tables are what
// `make docs` writes from the embedded step fit; a refit without
// regenerating them fails here.
func TestStepFitTablesAreCurrent(t *testing.T) {
	data, err := os.ReadFile(filepath.Join("..", "..", "README.md"))
	if err != nil {
		t.Fatal(err)
	}
	have, _, ok := readmeStepFitBlock(string(data))
	if !ok {
		t.Fatal("README.md has no step-fit tables between their markers")
	}
	want, err := stepFitTables()
	if err != nil {
		t.Fatal(err)
	}
	if have != want {
		t.Error("README.md's step-fit tables are stale (run make docs)")
	}
}
