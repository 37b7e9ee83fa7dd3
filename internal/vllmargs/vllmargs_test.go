package vllmargs

import (
	"slices"
	"testing"
)

func TestExpand(t *testing.T) {
	for _, tt := range []struct{ in, want []string }{
		{[]string{"-tp", "2"}, []string{"--tensor-parallel-size", "2"}},
		{[]string{"-tp=2"}, []string{"--tensor-parallel-size=2"}},
		{[]string{"-pp", "2"}, []string{"--pipeline-parallel-size", "2"}},
		{[]string{"-pp=4", "-tp", "2"}, []string{"--pipeline-parallel-size=4", "--tensor-parallel-size", "2"}},
		{[]string{"-sc", `{"method":"ngram"}`}, []string{"--speculative-config", `{"method":"ngram"}`}},
		{[]string{"-t", "2", "--tp"}, []string{"-t", "2", "--tp"}},
		{[]string{"serve", "--", "-tp"}, []string{"serve", "--", "-tp"}},
		{nil, []string{}},
	} {
		if got := Expand(tt.in); !slices.Equal(got, tt.want) {
			t.Errorf("Expand(%q) = %q, want %q", tt.in, got, tt.want)
		}
	}
}
