package main

import (
	"io"

	"github.com/spf13/cobra"

	"github.com/thinkcap/thinkcap/internal/buildinfo"
	"github.com/thinkcap/thinkcap/internal/inputerr"
)

func newRootCmd(stdout, stderr io.Writer) *cobra.Command {
	root := &cobra.Command{
		Use:   "thinkcap",
		Short: "Capacity planning for reasoning models on vLLM",
		Long: `thinkcap plans capacity for serving reasoning models on vLLM. It simulates a
vLLM cluster (KV cache, the V1 scheduler, chunked prefill, preemption, prefix
caching, FP8 KV cache, speculative decoding) on logged or synthetic traffic;
reads and fits production logs and tries what-ifs (thinking budgets, effort
modes, routing); sizes deployments against latency SLOs; load-tests a real
endpoint with the same traffic; and serves a vLLM-compatible emulator.`,
		// Version is the build's: a bug report or a run directory's
		// metadata.json then names the commit (metadata.json prints the
		// same string).
		Version:       buildinfo.Version(),
		SilenceUsage:  true,
		SilenceErrors: true,
	}
	root.SetVersionTemplate("{{.Name}} {{.Version}}\n")
	root.SetOut(stdout)
	root.SetErr(stderr)
	root.SetFlagErrorFunc(func(_ *cobra.Command, err error) error { return inputerr.New(err) })
	root.AddCommand(newSimulateCmd(), newCapacityCmd(), newProfilesCmd(),
		newStatsCmd(), newDriftCmd(), newCurveCmd(), newFitCmd(), newLoadtestCmd(), newServeCmd(), newSizeCmd(), newVerifyCmd(), newCalibrateCmd(), newFidelityCmd(), newMergeCmd(), newPlanCmd(), newGendocsCmd())
	return root
}
