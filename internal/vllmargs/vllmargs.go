// Package vllmargs spells out vLLM's multi-letter short flags (-tp, -pp, -sc),
// which pflag cannot declare, so that a thinkcap command line reads as a
// `vllm serve` one.
package vllmargs

import "strings"

// long maps vLLM's multi-letter short flags to their long names
// (vllm/engine/arg_utils.py adds them beside the long names).
var long = map[string]string{
	"-tp": "--tensor-parallel-size", "-pp": "--pipeline-parallel-size", "-sc": "--speculative-config",
}

// Expand returns args with each multi-letter short flag (alone or as
// -tp=2) spelled out; arguments after "--" are left as they are.
func Expand(args []string) []string {
	out := make([]string, len(args))
	for i, a := range args {
		out[i] = a
		if a == "--" {
			copy(out[i:], args[i:])
			break
		}
		name, value, hasValue := strings.Cut(a, "=")
		if l, ok := long[name]; ok {
			out[i] = l
			if hasValue {
				out[i] += "=" + value
			}
		}
	}
	return out
}
