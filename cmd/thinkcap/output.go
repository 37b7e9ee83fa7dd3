package main

import (
	"encoding/json"
	"fmt"
	"io"

	"github.com/thinkcap/thinkcap/internal/inputerr"
)

// checkOutput validates -o: every command prints a table or JSON.
func checkOutput(output string) error {
	if output != "table" && output != "json" {
		return inputerr.New(fmt.Errorf("-o: unknown output %q (valid: table, json)", output))
	}
	return nil
}

// writeJSON writes v as indented JSON, the -o json of every command.
func writeJSON(w io.Writer, v any) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(v)
}

// writeOutput writes v as JSON for -o json, else as the package's table.
func writeOutput[T any](w io.Writer, format string, v T, table func(io.Writer, T) error) error {
	if format == "json" {
		return writeJSON(w, v)
	}
	return table(w, v)
}
