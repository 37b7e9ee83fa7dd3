package main

import (
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/spf13/pflag"

	"github.com/thinkcap/thinkcap/loadtest"
	"github.com/thinkcap/thinkcap/workload"
)

// datasetFlags are vllm bench serve's prompt-dataset flags: real prompts
// sent as given, on the traffic's arrival times.
type datasetFlags struct {
	name, path        string
	sharegptOutputLen int
	customOutputLen   int
}

func (d *datasetFlags) register(fs *pflag.FlagSet) {
	fs.StringVar(&d.name, "dataset-name", "", "send a dataset's prompts as given: sharegpt (ShareGPT's conversations: first turn, first reply's length) or custom (vLLM's JSONL of {\"prompt\": …, \"output_tokens\": N}); with --dataset-path")
	fs.StringVar(&d.path, "dataset-path", "", "the --dataset-name file")
	fs.IntVar(&d.sharegptOutputLen, "sharegpt-output-len", 0, "every ShareGPT request's output length (default: its reply's, estimated)")
	fs.IntVar(&d.customOutputLen, "custom-output-len", 0, fmt.Sprintf("every custom request's output length (default: its output_tokens, else %d as vLLM)", workload.DefaultCustomOutputLen))
}

// validate checks the flags against the traffic's: a dataset sets the
// prompts and their lengths, a log or length flags would contradict it.
func (d *datasetFlags) validate(t *trafficFlags) error {
	var errs []error
	switch {
	case d.name == "" && d.path == "":
	case d.name == "":
		errs = append(errs, errors.New("--dataset-path: give --dataset-name too (sharegpt or custom)"))
	case !slices.Contains(workload.DatasetNames, d.name):
		errs = append(errs, fmt.Errorf("--dataset-name %q: want one of %s", d.name, strings.Join(workload.DatasetNames, ", ")))
	case d.path == "":
		errs = append(errs, fmt.Errorf("--dataset-name %s: give the file with --dataset-path", d.name))
	}
	if d.sharegptOutputLen < 0 || d.customOutputLen < 0 {
		errs = append(errs, errors.New("--sharegpt-output-len and --custom-output-len must be at least 1 (0: the dataset's)"))
	}
	if d.name != "" {
		for _, flag := range []string{"workload", "prompt-tokens", "think-tokens", "answer-tokens", "traffic"} {
			if t.set.Changed(flag) {
				errs = append(errs, fmt.Errorf("--%s and --dataset-name: the dataset gives the prompts and their lengths", flag))
			}
		}
	}
	return errors.Join(errs...)
}

// options are the flags as the load test's dataset.
func (d *datasetFlags) options() loadtest.Dataset {
	outLen := d.sharegptOutputLen
	if d.name == workload.DatasetCustom {
		outLen = d.customOutputLen
	}
	return loadtest.Dataset{Name: d.name, Path: d.path, OutputLen: outLen}
}
