package main

import (
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/thinkcap/thinkcap/scenario"
	"github.com/thinkcap/thinkcap/sim"
)

// TestFlagNamesCoverFields: every field a package names in an
// inputerr.Error (Field, Fieldf, Name or a List's Field and Fieldf with a
// constant) has its flag in flagNames, so no user reads a Go field name.
func TestFlagNamesCoverFields(t *testing.T) {
	forEachSource(t, func(path string) bool { return strings.Contains(path, filepath.Join("internal", "inputerr")) }, func(path string, f *ast.File) {
		ast.Inspect(f, func(n ast.Node) bool {
			call, ok := n.(*ast.CallExpr)
			if !ok || len(call.Args) == 0 {
				return true
			}
			sel, ok := call.Fun.(*ast.SelectorExpr)
			if !ok {
				return true
			}
			switch sel.Sel.Name {
			case "Field", "Fieldf", "Name":
			default:
				return true
			}
			if x, ok := sel.X.(*ast.Ident); !ok || (x.Name != "inputerr" && !isListVar(x)) {
				return true
			}
			lit, ok := call.Args[0].(*ast.BasicLit)
			if !ok || lit.Kind != token.STRING {
				return true
			}
			field, _ := strconv.Unquote(lit.Value)
			if _, ok := flagNames[field]; !ok {
				t.Errorf("%s: field %q has no flag in flagNames", path, field)
			}
			return true
		})
	})
}

// forEachSource parses every Go source of the repository that is not a
// test, testdata or a file skip names, and hands it to fn.
func forEachSource(t *testing.T, skip func(path string) bool, fn func(path string, f *ast.File)) {
	t.Helper()
	root := filepath.Join("..", "..")
	err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() && (d.Name() == "testdata" || strings.HasPrefix(d.Name(), ".")) && path != root {
			return filepath.SkipDir
		}
		if d.IsDir() || !strings.HasSuffix(path, ".go") || strings.HasSuffix(path, "_test.go") || skip(path) {
			return nil
		}
		f, err := parser.ParseFile(token.NewFileSet(), path, nil, 0)
		if err != nil {
			return err
		}
		fn(path, f)
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}

// isListVar says whether x is declared as an inputerr.List.
func isListVar(x *ast.Ident) bool {
	if x.Obj == nil {
		return false
	}
	spec, ok := x.Obj.Decl.(*ast.ValueSpec)
	if !ok {
		return false
	}
	sel, ok := spec.Type.(*ast.SelectorExpr)
	return ok && sel.Sel.Name == "List"
}

// TestFlagNamesCoverGiven: every field a package asks its options' Given
// about (given, Given or explicit with a constant, or from a table, which
// asking every field finds) has its flag in flagNames, so given can tell
// whether the user set it.
func TestFlagNamesCoverGiven(t *testing.T) {
	asked := map[string]string{}
	record := func(where string) func(string) bool {
		return func(field string) bool { asked[field] = where; return true }
	}
	dep := sim.DeploymentOptions{Given: record("sim.DeploymentOptions")}
	_ = dep.CheckValues()
	route := scenario.RouteOptions{Given: record("scenario.RouteOptions")}
	_ = route.Validate()
	// cmd answers Given; the packages ask it.
	inCmd := func(path string) bool { return strings.HasPrefix(path, filepath.Join("..", "..", "cmd")) }
	forEachSource(t, inCmd, func(path string, f *ast.File) {
		ast.Inspect(f, func(n ast.Node) bool {
			call, ok := n.(*ast.CallExpr)
			if !ok || len(call.Args) != 1 {
				return true
			}
			var name string
			switch fun := call.Fun.(type) {
			case *ast.Ident:
				name = fun.Name
			case *ast.SelectorExpr:
				name = fun.Sel.Name
			}
			if name != "given" && name != "Given" && name != "explicit" {
				return true
			}
			if lit, ok := call.Args[0].(*ast.BasicLit); ok && lit.Kind == token.STRING {
				field, _ := strconv.Unquote(lit.Value)
				asked[field] = path
			}
			return true
		})
	})
	if len(asked) == 0 {
		t.Fatal("found no field asked about: the scan is broken")
	}
	for field, where := range asked {
		if _, ok := flagNames[field]; !ok {
			t.Errorf("%s: asks whether %q was given, which has no flag in flagNames", where, field)
		}
	}
}
