package main

import (
	"encoding/json"
	"fmt"
	"io"
)

// checkOutput validates -o: every command prints a table or JSON.
func checkOutput(output string) error {
	if output != "table" && output != "json" {
		return badInput(fmt.Errorf("-o: unknown output %q (valid: table, json)", output))
	}
	return nil
}

// writeJSON writes v as indented JSON, the -o json of every command.
func writeJSON(w io.Writer, v any) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(v)
}
