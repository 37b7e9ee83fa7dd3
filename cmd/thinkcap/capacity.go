package main

import (
	"fmt"
	"io"

	"github.com/spf13/cobra"

	"github.com/thinkcap/thinkcap/internal/inputerr"
	"github.com/thinkcap/thinkcap/sim"
)

func newCapacityCmd() *cobra.Command {
	var (
		dep     deploymentFlags
		output  string
		explain bool
	)
	cmd := &cobra.Command{
		Use:   "capacity",
		Short: "Print the KV-cache capacity vLLM would report at startup",
		Long: `capacity computes what vLLM's startup log says for a deployment: available KV
cache memory, "GPU KV cache size: N tokens" and "Maximum concurrency for L tokens
per request: X". --num-gpu-blocks-override (the number vLLM logs) always wins.
--explain prints the memory budget term by term as vLLM's log gives it (total x
utilisation, weights, activation peak, non-torch, CUDA graphs, available KV
memory, blocks, tokens, concurrency), for --vllm-version's memory model.`,
		Example: `  thinkcap capacity --model qwen3-8b --gpu h100-sxm
  thinkcap capacity --model qwen3-32b --gpu h100-sxm -t 2 --kv-cache-dtype fp8 -o json
  thinkcap capacity --model qwen3-8b --gpu a100-40g --vllm-version 0.19.1 --explain`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			return runCapacity(cmd.OutOrStdout(), &dep, output, explain)
		},
	}
	dep.register(cmd.Flags())
	cmd.Flags().StringVarP(&output, "output", "o", "table", "table or json")
	cmd.Flags().BoolVar(&explain, "explain", false, "print the memory budget term by term, as vLLM's startup log gives it")
	return cmd
}

func runCapacity(out io.Writer, dep *deploymentFlags, output string, explain bool) error {
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
		return inputerr.New(err)
	}
	switch {
	case output == "json" && explain:
		return writeJSON(out, c.Budget(&cfg))
	case output == "json":
		return writeJSON(out, c.Summary())
	case output == "table" || output == "":
		fmt.Fprint(out, sim.CapacityTable(&cfg, c))
		if explain {
			fmt.Fprint(out, c.Budget(&cfg).Explain())
		}
		return nil
	default:
		return checkOutput(output)
	}
}
