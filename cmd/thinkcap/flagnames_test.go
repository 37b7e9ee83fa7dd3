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
)

// TestFlagNamesCoverFields: every field a package names in an
// inputerr.Error (Field, Fieldf, Name or a List's Field and Fieldf with a
// constant) has its flag in flagNames, so no user reads a Go field name.
func TestFlagNamesCoverFields(t *testing.T) {
	root := filepath.Join("..", "..")
	err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() && (d.Name() == "testdata" || strings.HasPrefix(d.Name(), ".")) && path != root {
			return filepath.SkipDir
		}
		if d.IsDir() || !strings.HasSuffix(path, ".go") || strings.HasSuffix(path, "_test.go") ||
			strings.Contains(path, filepath.Join("internal", "inputerr")) {
			return nil
		}
		f, err := parser.ParseFile(token.NewFileSet(), path, nil, 0)
		if err != nil {
			return err
		}
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
