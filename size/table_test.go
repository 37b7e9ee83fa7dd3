package size

import (
	"bytes"
	"strings"
	"testing"
)

// TestWriteTableUnits checks every column of the size table names its unit
// and the cells are in it: milliseconds, dollars per hour and per million
// output tokens, KV usage in percent.
func TestWriteTableUnits(t *testing.T) {
	vs := -0.5
	r := &Result{
		SLOs: []string{"ttft_p99=2s"}, RatePerS: 2, OutputTokensPerS: 5389,
		Candidates: []Outcome{
			{Name: "qwen3-14b h200×1 kv=fp8", Replicas: 1, GPUs: 1, CostPerHour: 3.79, CostPerMillionOutputTokens: 0.2,
				CostVsBaseline: &vs, Passes: true, TTFTP99S: 0.352, TTFAP99S: 207.317, TPOTP99S: 0.0204, E2EP99S: 210.4671,
				KVUsagePeak: 0.414, Preemptions: 1234, MaxRatePerReplica: 3.17},
			{Name: "qwen3-14b h100×1", Error: "weights do not fit"},
		},
	}
	r.Best = &r.Candidates[0]
	var buf bytes.Buffer
	if err := WriteTable(&buf, r); err != nil {
		t.Fatal(err)
	}
	header, row := tableLine(t, buf.String(), 0), tableLine(t, buf.String(), 1)
	want := []struct{ header, cell string }{
		{"cost ($/h)", "3.79"},
		{"$/1M output tokens", "0.20"},
		{"cost vs base", "-50%"},
		{"TTFT p99 (ms)", "352"},
		{"TTFA p99 (ms)", "207,317"},
		{"TPOT p99 (ms)", "20.4"},
		{"E2E p99 (ms)", "210,467"},
		{"KV peak (%)", "41.4"},
		{"preemptions", "1,234"},
		{"max req/s/replica", "3.17"},
		{"result", "pass"},
	}
	if len(header) != len(row) {
		t.Fatalf("header %q and row %q differ in length", header, row)
	}
	col := map[string]int{}
	for i, h := range header {
		col[h] = i
	}
	for _, w := range want {
		i, ok := col[w.header]
		if !ok {
			t.Errorf("no column %q in %q", w.header, header)
			continue
		}
		if row[i] != w.cell {
			t.Errorf("column %q: %q, want %q", w.header, row[i], w.cell)
		}
	}
	if !strings.Contains(buf.String(), "cannot deploy: weights do not fit") {
		t.Errorf("undeployable candidate missing:\n%s", buf.String())
	}
}

// tableLine returns the cells of the n-th text line of the table (0: the
// header) that starts with the box character "│".
func tableLine(t *testing.T, out string, n int) []string {
	t.Helper()
	for _, line := range strings.Split(out, "\n") {
		if !strings.HasPrefix(line, "│") {
			continue
		}
		if n > 0 {
			n--
			continue
		}
		cells := strings.Split(strings.Trim(line, "│"), "│")
		for i := range cells {
			cells[i] = strings.TrimSpace(cells[i])
		}
		return cells
	}
	t.Fatalf("table has too few lines:\n%s", out)
	return nil
}
