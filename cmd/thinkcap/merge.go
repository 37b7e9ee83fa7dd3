package main

import (
	"fmt"
	"io"
	"os"

	"github.com/spf13/cobra"

	"github.com/thinkcap/thinkcap/analysis"
	"github.com/thinkcap/thinkcap/loadtest"
	"github.com/thinkcap/thinkcap/report"
)

func newMergeCmd() *cobra.Command {
	var o loadtest.MergeOptions
	var output string
	cmd := &cobra.Command{
		Use:   "merge RUN_DIR...",
		Short: "Merge the shards of a load test (loadtest --shard I/N) into one run directory",
		Long: `merge makes the shards of a sharded load test one run directory, as one
client would have written it: the result records merged in schedule order (each
shard's times moved by how much later its schedule began), the timeline of the
shard that scraped /metrics, the summary recomputed from the raw records and the
shards' inter-token gap histograms (never averaged percentiles), and
metadata.json listing the shards, their clock offsets and any that ended early.
verify and calibrate take the merged directory as any other run.`,
		Example: `  thinkcap merge shard-0 shard-1 shard-2 shard-3 --out run
  thinkcap verify run`,
		Args: cobra.MinimumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			if err := checkOutput(output); err != nil {
				return err
			}
			o.Dirs, o.Args = args, os.Args
			out, err := loadtest.Merge(o)
			if err != nil {
				return err
			}
			for _, n := range out.Notes {
				fmt.Fprintf(cmd.ErrOrStderr(), "note: %s\n", n)
			}
			fmt.Fprintf(cmd.ErrOrStderr(), "thinkcap: merged %d shards into %s\n", len(args), out.Dir)
			return writeOutput(cmd.OutOrStdout(), output, out.Summary, func(w io.Writer, s analysis.Summary) error { return report.WriteTable(w, &s) })
		},
	}
	fs := cmd.Flags()
	fs.StringVar(&o.Out, "out", "", "the merged run directory (required)")
	fs.BoolVar(&o.Force, "force", false, "replace a run already in --out")
	fs.StringVarP(&output, "output", "o", "table", "table or json (the merged summary)")
	_ = cmd.MarkFlagRequired("out")
	return cmd
}
