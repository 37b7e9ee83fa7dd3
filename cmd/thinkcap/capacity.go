package main

import (
	"fmt"
	"io"

	"github.com/spf13/cobra"

	"github.com/thinkcap/thinkcap/sim"
)

func newCapacityCmd() *cobra.Command {
	var (
		dep    deploymentFlags
		output string
	)
	cmd := &cobra.Command{
		Use:   "capacity",
		Short: "Print the KV-cache capacity vLLM would report at startup",
		Long: `capacity computes what vLLM's startup log says for a deployment: available KV
cache memory, "GPU KV cache size: N tokens" and "Maximum concurrency for L tokens
per request: X". --num-gpu-blocks-override (the number vLLM logs) always wins.`,
		Example: `  thinkcap capacity --model qwen3-8b --gpu h100-sxm
  thinkcap capacity --model qwen3-32b --gpu h100-sxm -t 2 --kv-cache-dtype fp8 -o json`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error { return runCapacity(cmd.OutOrStdout(), &dep, output) },
	}
	dep.register(cmd.Flags())
	cmd.Flags().StringVarP(&output, "output", "o", "table", "table or json")
	return cmd
}

func runCapacity(out io.Writer, dep *deploymentFlags, output string) error {
	cat, err := dep.catalog()
	if err != nil {
		return err
	}
	cfg, err := dep.config(cat)
	if err != nil {
		return err
	}
	c, err := sim.ComputeCapacity(&cfg)
	if err != nil {
		return badInput(err)
	}
	switch output {
	case "json":
		return writeJSON(out, c.Summary())
	case "table", "":
		fmt.Fprint(out, sim.CapacityTable(&cfg, c))
		return nil
	default:
		return checkOutput(output)
	}
}
