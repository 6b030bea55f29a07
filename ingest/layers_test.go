package ingest

import (
	"go/ast"
	"go/parser"
	"go/token"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// TestFormatsTableSitsAbove: the formats table (formats.go) is read only by
// the run around it (ingest.go, inputs.go); no format and no reader it
// builds on refers to anything formats.go declares, so that a format is
// added without reaching up into the table, and what the formats share
// lives below them (the readers here, internal/scan).
func TestFormatsTableSitsAbove(t *testing.T) {
	fset := token.NewFileSet()
	table, err := parser.ParseFile(fset, "formats.go", nil, 0)
	if err != nil {
		t.Fatal(err)
	}
	declared := map[string]bool{}
	for _, d := range table.Decls {
		switch d := d.(type) {
		case *ast.FuncDecl:
			if d.Recv == nil {
				declared[d.Name.Name] = true
			}
		case *ast.GenDecl:
			for _, s := range d.Specs {
				switch s := s.(type) {
				case *ast.TypeSpec:
					declared[s.Name.Name] = true
				case *ast.ValueSpec:
					for _, n := range s.Names {
						declared[n.Name] = true
					}
				}
			}
		}
	}
	if !declared["formats"] || !declared["detectFormat"] {
		t.Fatalf("formats.go declares %v: not the formats table", declared)
	}
	files, err := filepath.Glob("*.go")
	if err != nil {
		t.Fatal(err)
	}
	above := []string{"formats.go", "ingest.go", "inputs.go"}
	for _, name := range files {
		if strings.HasSuffix(name, "_test.go") || slices.Contains(above, name) {
			continue
		}
		f, err := parser.ParseFile(fset, name, nil, 0)
		if err != nil {
			t.Fatal(err)
		}
		// Names the file declares itself (a local formats, a field New)
		// are its own; a selector's field is its operand's.
		own := map[*ast.Ident]bool{}
		ast.Inspect(f, func(n ast.Node) bool {
			switch n := n.(type) {
			case *ast.SelectorExpr:
				own[n.Sel] = true
			case *ast.KeyValueExpr:
				if k, ok := n.Key.(*ast.Ident); ok {
					own[k] = true
				}
			case *ast.Field:
				for _, id := range n.Names {
					own[id] = true
				}
			}
			return true
		})
		ast.Inspect(f, func(n ast.Node) bool {
			if id, ok := n.(*ast.Ident); ok && declared[id.Name] && !own[id] && id.Obj == nil {
				t.Errorf("%s: refers to %s of the formats table (formats.go), which sits above the formats", fset.Position(id.Pos()), id.Name)
			}
			return true
		})
	}
}
