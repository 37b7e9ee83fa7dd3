package main

import (
	"io"

	"github.com/spf13/pflag"

	"github.com/thinkcap/thinkcap/internal/inputerr"
	"github.com/thinkcap/thinkcap/workload"
)

// logFlags say how to read a request log: its format, a field mapping, and
// whether to skip invalid records.
type logFlags struct {
	format      string
	mapping     string
	skipInvalid bool
}

func (f *logFlags) register(fs *pflag.FlagSet) {
	fs.StringVar(&f.format, "workload-format", "", "log format: native, openai-usage, csv or mooncake (default: detected from the content)")
	fs.StringVar(&f.mapping, "map", "", "read any JSONL/CSV log through a field mapping, e.g. arrival=ts,think=reasoning_tokens,answer=out_tokens,prompt=in_tokens")
	fs.BoolVar(&f.skipInvalid, "skip-invalid", false, "skip invalid records (and report how many and why) instead of failing")
}

// options are the flags as workload's log options.
func (f *logFlags) options() workload.LogOptions {
	return workload.LogOptions{Format: f.format, Mapping: f.mapping, SkipInvalid: f.skipInvalid}
}

// each streams the log at path into add (workload.LogOptions.Each); errors
// are bad input.
func (f *logFlags) each(path string, warn io.Writer, add func(*workload.Request)) error {
	return inputerr.New(f.options().Each(path, warn, add))
}
