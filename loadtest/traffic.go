package loadtest

import (
	"cmp"
	"io"

	"github.com/thinkcap/thinkcap/internal/inputerr"
	"github.com/thinkcap/thinkcap/workload"
)

// Dataset is a prompt dataset whose prompts are sent as given, on the
// traffic's arrival times (vllm bench serve's --dataset-name).
type Dataset struct {
	Name string // --dataset-name: one of workload.DatasetNames; "": none
	Path string // --dataset-path
	// OutputLen fixes every output length (--sharegpt-output-len or
	// --custom-output-len); 0 takes the dataset's.
	OutputLen int
}

// loadRequests makes the schedule when the options carry none: the
// traffic read or generated, each request with an ID, the dataset's
// prompts put on it and the what-if transforms applied (thinking budgets
// as the server sees them). Every error is the user's input.
func (o *Options) loadRequests() error {
	if o.Requests != nil {
		return nil
	}
	warn := cmp.Or[io.Writer](o.Stderr, io.Discard)
	reqs, err := o.Traffic.Load(o.Catalog, uint64(o.Seed), warn)
	if err != nil {
		return inputerr.New(err)
	}
	EnsureIDs(reqs)
	if err := o.useDataset(reqs); err != nil {
		return err
	}
	if reqs, _, err = o.WhatIf.Apply(reqs, uint64(o.Seed)); err != nil {
		return inputerr.New(err)
	}
	o.Requests, o.Replay = reqs, o.Traffic.Workload != ""
	return nil
}

// useDataset reads the dataset and puts its prompts on reqs
// (workload.UseDataset), their text into PromptTexts.
func (o *Options) useDataset(reqs []workload.Request) error {
	d := o.Dataset
	if d.Name == "" {
		return nil
	}
	ps, err := workload.ReadDataset(d.Name, d.Path, workload.DatasetOptions{OutputLen: d.OutputLen})
	if err != nil {
		return inputerr.Field("Dataset.Path", err)
	}
	o.PromptTexts = map[string]string{}
	workload.UseDataset(reqs, d.Name, ps, uint64(o.Seed), o.PromptTexts)
	return nil
}
