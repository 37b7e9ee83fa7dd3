package workload

import (
	"bytes"
	"strings"
	"testing"
)

// benchRequests is a synthetic log of n requests, generated once.
func benchRequests(b *testing.B, n int) []Request {
	b.Helper()
	s := Synthetic{Requests: n, RatePerS: 50, Seed: 1, Classes: []Class{
		{Mode: "high", Category: "math", Share: 1, Prompt: mustDist(b, "lognormal:p50=800,p99=6000"),
			Think: mustDist(b, "lognormal:p50=400,p99=8000,max=32768"), Answer: mustDist(b, "uniform:50..500")},
	}}
	reqs, err := s.Generate()
	if err != nil {
		b.Fatal(err)
	}
	return reqs
}

func mustDist(b testing.TB, spec string) Dist {
	d, err := ParseDist(spec)
	if err != nil {
		b.Fatal(err)
	}
	return d
}

func BenchmarkReadJSONL(b *testing.B) {
	var buf bytes.Buffer
	if err := WriteRequests(&buf, benchRequests(b, 10_000)); err != nil {
		b.Fatal(err)
	}
	data := buf.String()
	b.SetBytes(int64(len(data)))
	b.ReportAllocs()
	for b.Loop() {
		if _, err := Read(strings.NewReader(data), "bench.jsonl", ""); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkGenerate(b *testing.B) {
	b.ReportAllocs()
	for b.Loop() {
		benchRequests(b, 10_000)
	}
}
