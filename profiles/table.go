package profiles

import (
	"fmt"
	"io"
	"text/tabwriter"
)

// WriteTable lists the catalog's GPUs, models and traffic profiles, sorted
// by name, as `thinkcap profiles` prints them.
func (c *Catalog) WriteTable(out io.Writer) error {
	w := tabwriter.NewWriter(out, 0, 0, 2, ' ', 0)
	fmt.Fprintln(w, "GPU\tMEMORY\tBANDWIDTH\tBF16\tFP8\tLINK\tSERVER\t$/H\tSTEP COEFFICIENTS")
	for _, name := range c.GPUNames() {
		g := c.GPUs[name]
		fmt.Fprintf(w, "%s\t%.1f GiB\t%.0f GB/s\t%.0f TF\t%.0f TF\t%.0f GB/s\t%s\t%.2f\t%s\n",
			g.Name, g.MemoryGiB, g.MemoryBandwidthGBps, g.BF16TFLOPS, g.FP8TFLOPS, g.InterconnectGBps, g.server(), g.PricePerHour, g.StepSource)
	}
	fmt.Fprintln(w)
	fmt.Fprintln(w, "MODEL\tHF NAME\tPARAMS\tACTIVE\tLAYERS\tKV HEADS\tMAX LEN\tREASONING")
	for _, name := range c.ModelNames() {
		m := c.Models[name]
		kv := fmt.Sprint(m.NumKVHeads)
		if m.IsMLA() {
			kv = "MLA"
		}
		fmt.Fprintf(w, "%s\t%s\t%.1fB\t%.1fB\t%d\t%s\t%d\t%v\n",
			m.Name, m.HFName, m.TotalParamsB, m.ActiveParamsB, m.Layers, kv, m.MaxModelLen, m.Reasoning)
	}
	fmt.Fprintln(w)
	fmt.Fprintln(w, "TRAFFIC\tCLASSES\tDESCRIPTION")
	for _, name := range c.TrafficNames() {
		t := c.Traffic[name]
		fmt.Fprintf(w, "%s\t%d\t%s\n", t.Name, len(t.Classes), t.Description)
	}
	return w.Flush()
}

// server is the server a GPU profile names: its GPUs and each one's
// network card ("-" when the profile does not say).
func (g *GPU) server() string {
	if g.GPUsPerNode <= 0 {
		return "-"
	}
	return fmt.Sprintf("%d × %.0f GB/s", g.GPUsPerNode, g.NetworkGBps)
}
