package loadtest

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/thinkcap/thinkcap/internal/vllmtest"
)

// TestReport: Report writes one self-contained HTML file of the
// run: the summary tables, the thresholds with their result, and the
// plots embedded (latency CDFs, throughput, and the server's timeline when
// scraped; a note instead when not).
func TestReport(t *testing.T) {
	srv, _ := vllmtest.Slow(t, time.Millisecond)
	tmp := t.TempDir()
	for _, c := range []struct {
		scrape   time.Duration
		minPlots int
		want     []string
	}{
		{20 * time.Millisecond, 7, []string{"Running and waiting requests", "KV cache usage"}},
		{0, 5, []string{"were not scraped"}},
	} {
		report := filepath.Join(tmp, "report-"+c.scrape.String()+".html")
		o := testOptions(srv.URL, filepath.Join(tmp, "run-"+c.scrape.String()), synthetic(t, 8, 40, "8", "4", "4"))
		o.Model, o.ScrapeInterval, o.Report, o.Thresholds = "slow-model", c.scrape, report, thresholds(t, "ttft_p99<1h")
		_, errOut, code := load(t, o)
		if code != exitOK {
			t.Fatalf("exit %d: %s", code, errOut)
		}
		b, err := os.ReadFile(report)
		if err != nil {
			t.Fatal(err)
		}
		html := string(b)
		if n := strings.Count(html, `src="data:image/png;base64,`); n < c.minPlots {
			t.Errorf("scrape %s: %d plots, want %d", c.scrape, n, c.minPlots)
		}
		for _, w := range append([]string{"<title>thinkcap load test", "slow-model", "ttft_p99&lt;1h", "pass", "latency (ms)", "Time to first token (TTFT)", "Output tokens per second"}, c.want...) {
			if !strings.Contains(html, w) {
				t.Errorf("scrape %s: report lacks %q", c.scrape, w)
			}
		}
		if strings.Contains(html, "http://") && strings.Count(html, "http://") > 1 || strings.Contains(html, "<script") || strings.Contains(html, "src=\"http") {
			t.Errorf("scrape %s: the report references something outside itself", c.scrape)
		}
	}
}
