package main

import (
	"io"

	"github.com/spf13/cobra"
)

func newRootCmd(stdout, stderr io.Writer) *cobra.Command {
	root := &cobra.Command{
		Use:   "thinkcap",
		Short: "Capacity planning for reasoning models on vLLM",
		Long: `thinkcap simulates a vLLM cluster serving a reasoning model (KV cache, the V1
scheduler, chunked prefill, preemption, FP8 KV cache, speculative decoding) on
logged or synthetic traffic, and reports what users and the servers would see.`,
		SilenceUsage:  true,
		SilenceErrors: true,
	}
	root.SetOut(stdout)
	root.SetErr(stderr)
	root.SetFlagErrorFunc(func(_ *cobra.Command, err error) error { return badInput(err) })
	root.AddCommand(newSimulateCmd(), newCapacityCmd(), newProfilesCmd(),
		newStatsCmd(), newDriftCmd(), newCurveCmd(), newFitCmd(), newLoadtestCmd(), newServeCmd(), newSizeCmd())
	return root
}
