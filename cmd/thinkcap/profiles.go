package main

import (
	"fmt"
	"text/tabwriter"

	"github.com/spf13/cobra"
)

func newProfilesCmd() *cobra.Command {
	var path string
	cmd := &cobra.Command{
		Use:   "profiles",
		Short: "List the GPU, model and traffic profiles",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			dep := deploymentFlags{profilesPath: path}
			cat, err := dep.catalog()
			if err != nil {
				return err
			}
			w := tabwriter.NewWriter(cmd.OutOrStdout(), 0, 0, 2, ' ', 0)
			fmt.Fprintln(w, "GPU\tMEMORY\tBANDWIDTH\tBF16\tFP8\tLINK\t$/H")
			for _, name := range cat.GPUNames() {
				g := cat.GPUs[name]
				fmt.Fprintf(w, "%s\t%.1f GiB\t%.0f GB/s\t%.0f TF\t%.0f TF\t%.0f GB/s\t%.2f\n",
					g.Name, g.MemoryGiB, g.MemoryBandwidthGBps, g.BF16TFLOPS, g.FP8TFLOPS, g.InterconnectGBps, g.PricePerHour)
			}
			fmt.Fprintln(w)
			fmt.Fprintln(w, "MODEL\tHF NAME\tPARAMS\tACTIVE\tLAYERS\tKV HEADS\tMAX LEN\tREASONING")
			for _, name := range cat.ModelNames() {
				m := cat.Models[name]
				kv := fmt.Sprint(m.NumKVHeads)
				if m.IsMLA() {
					kv = "MLA"
				}
				fmt.Fprintf(w, "%s\t%s\t%.1fB\t%.1fB\t%d\t%s\t%d\t%v\n",
					m.Name, m.HFName, m.TotalParamsB, m.ActiveParamsB, m.Layers, kv, m.MaxModelLen, m.Reasoning)
			}
			fmt.Fprintln(w)
			fmt.Fprintln(w, "TRAFFIC\tCLASSES\tDESCRIPTION")
			for _, name := range cat.TrafficNames() {
				t := cat.Traffic[name]
				fmt.Fprintf(w, "%s\t%d\t%s\n", t.Name, len(t.Classes), t.Description)
			}
			return w.Flush()
		},
	}
	cmd.Flags().StringVar(&path, "profiles", "", "extra profiles: a YAML file or a directory of them")
	return cmd
}
