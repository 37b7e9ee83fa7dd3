package main

import (
	"go/parser"
	"go/token"
	"io/fs"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
)

const module = "github.com/thinkcap/thinkcap/"

// allowedImports is the dependency rule (docs/architecture.md): which project packages each
// package may import (cmd may import everything; nothing imports cmd).
var allowedImports = map[string][]string{
	"profiles":        {},
	"workload":        {"profiles", "internal/jsonscan", "internal/splitmix", "internal/inputerr"},
	"analysis":        {"workload", "internal/inputerr", "internal/histogram"},
	"logstats":        {"analysis", "workload", "profiles", "report/numfmt", "internal/inputerr"}, // profiles: fit writes a traffic profile
	"report":          {"analysis", "logstats", "report/numfmt"},
	"report/numfmt":   {},
	"sim":             {"workload", "profiles", "analysis", "internal/histogram", "internal/splitmix", "internal/inputerr"},
	"scenario":        {"sim", "workload", "profiles", "analysis", "report", "internal/inputerr"},
	"loadgen":         {"workload", "loadgen/vllmapi", "internal/buildinfo", "internal/histogram", "internal/splitmix"},
	"loadgen/vllmapi": {"internal/jsonscan"},
	"emulator":        {"sim", "workload", "profiles", "loadgen/vllmapi", "internal/inputerr"},
	"fidelity":        {"calibrate", "sim", "workload", "profiles", "analysis", "report", "internal/inputerr"},
	"size":            {"sim", "scenario", "workload", "profiles", "analysis", "logstats", "report", "internal/inputerr"},
	// calibrate owns the fit of the step coefficients; verify's run
	// directories and fidelity's corpus both feed it.
	"calibrate": {"sim", "workload", "profiles", "analysis", "report", "internal/inputerr"},
	"verify":    {"calibrate", "sim", "scenario", "workload", "profiles", "analysis", "report", "loadgen", "internal/inputerr", "internal/outfile"},
	"loadtest":  {"loadgen", "analysis", "report", "verify", "sim", "workload", "profiles", "internal/progress", "internal/inputerr", "internal/outfile"},
	// analysistest holds results the tests of analysis and report share.
	"analysis/analysistest": {"workload"},
	// logstatstest holds records the tests of logstats and report share.
	"logstats/logstatstest": {"workload", "internal/simtest"},
	// buildinfo is a leaf: the version string of the running binary.
	"internal/buildinfo": {},
	// histogram is a leaf: the log-linear latency histograms.
	"internal/histogram": {},
	// jsonscan is a leaf: the JSON scanner of the log reader and the chunk decoder.
	"internal/jsonscan": {},
	// outfile writes a file the user named; its create errors are the user's input.
	"internal/outfile": {"internal/inputerr"},
	// progress is a leaf: the terminal bar and plain progress lines.
	"internal/progress": {},
	// inputerr is a leaf: the one error type of the user's input.
	"internal/inputerr": {},
	// splitmix is a leaf: the SplitMix64 generator.
	"internal/splitmix": {},
	// samplelog is a leaf: the prompt datasets' sample conversations.
	"internal/samplelog": {},
	// approx is a leaf: the float comparison of tests.
	"internal/approx": {},
	// golden is a leaf: the golden-file compare of tests.
	"internal/golden": {},
	// simtest holds test fixtures: the catalog's models and GPUs, mixed traffic.
	"internal/simtest": {"profiles", "workload"},
	// runtest holds test fixtures: what a load test of a server that is the simulator records.
	"internal/runtest": {"internal/simtest", "sim", "workload", "loadgen"},
	// vllmtest is a leaf: vLLM-like servers for tests.
	"internal/vllmtest": {},
	// vllmargs is a leaf: vLLM's multi-letter short flags spelled out.
	"internal/vllmargs": {},
}

// forbiddenStd keeps I/O out of the packages that compute: the simulator
// and the statistics never touch the network, the statistics and the report
// never open a file (the report writes to the io.Writer it is given).
var forbiddenStd = map[string][]string{
	"sim":           {"net/http", "net"},
	"scenario":      {"net/http", "net"},
	"analysis":      {"net/http", "net", "os"},
	"logstats":      {"net/http", "net"},
	"report":        {"net/http", "net", "os"},
	"report/numfmt": {"net/http", "net", "os"},
}

func TestDependencyRule(t *testing.T) {
	root := filepath.Join("..", "..")
	pkgs := modulePackages(t, root)
	for pkg := range allowedImports {
		if !slices.Contains(pkgs, pkg) {
			t.Errorf("allowedImports has %s, which is not a package: drop its entry", pkg)
		}
	}
	for _, pkg := range pkgs {
		allowed, ok := allowedImports[pkg]
		if !ok {
			t.Errorf("package %s has no entry in allowedImports: add one naming the project packages it may import", pkg)
			continue
		}
		files, err := filepath.Glob(filepath.Join(root, pkg, "*.go"))
		if err != nil {
			t.Fatal(err)
		}
		for _, file := range files {
			if strings.HasSuffix(file, "_test.go") {
				continue // tests may drive one package with another (the emulator with the load generator)
			}
			f, err := parser.ParseFile(token.NewFileSet(), file, nil, parser.ImportsOnly)
			if err != nil {
				t.Fatal(err)
			}
			for _, imp := range f.Imports {
				path, _ := strconv.Unquote(imp.Path.Value)
				for _, bad := range forbiddenStd[pkg] {
					if path == bad {
						t.Errorf("%s imports %s", file, path)
					}
				}
				if !strings.HasPrefix(path, module) {
					continue
				}
				dep := strings.TrimPrefix(path, module)
				if dep == pkg {
					continue
				}
				ok := false
				for _, a := range allowed {
					ok = ok || dep == a || strings.HasPrefix(dep, a+"/")
				}
				if !ok {
					t.Errorf("%s: %s may not import %s (the dependency rule, docs/architecture.md)", file, pkg, dep)
				}
			}
		}
	}
	// No util/common/types packages.
	entries, err := os.ReadDir(root)
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range entries {
		switch e.Name() {
		case "util", "utils", "common", "types":
			t.Errorf("package %s is not allowed: name a package by what it holds (docs/architecture.md)", e.Name())
		}
	}
}

// modulePackages lists the module's packages below root, as paths relative
// to it: every directory holding a Go file that is not a test, but testdata,
// hidden directories and the commands under cmd/ (which may import
// everything). So a new package is checked from its first file, and must
// say in allowedImports what it may import.
func modulePackages(t *testing.T, root string) []string {
	t.Helper()
	seen := map[string]bool{}
	err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(root, path)
		rel = filepath.ToSlash(rel)
		if d.IsDir() {
			name := d.Name()
			if rel != "." && (name == "testdata" || strings.HasPrefix(name, ".") || strings.HasPrefix(name, "_") || rel == "cmd") {
				return filepath.SkipDir
			}
			if _, err := os.Stat(filepath.Join(path, "go.mod")); err == nil && rel != "." {
				return filepath.SkipDir // another module
			}
			return nil
		}
		if strings.HasSuffix(rel, ".go") && !strings.HasSuffix(rel, "_test.go") {
			seen[filepath.ToSlash(filepath.Dir(rel))] = true
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if len(seen) == 0 {
		t.Fatal("no packages found below", root)
	}
	return slices.Sorted(maps.Keys(seen))
}
