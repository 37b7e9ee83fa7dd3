package main

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"os"

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

// writeFile creates path and writes it through a buffer.
func writeFile(path string, write func(*bufio.Writer) error) error {
	f, err := os.Create(path)
	if err != nil {
		return inputerr.New(err)
	}
	bw := bufio.NewWriter(f)
	if err := write(bw); err != nil {
		f.Close()
		return err
	}
	if err := bw.Flush(); err != nil {
		f.Close()
		return err
	}
	return f.Close()
}
