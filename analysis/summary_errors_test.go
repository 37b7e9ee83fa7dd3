package analysis

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"

	"github.com/thinkcap/thinkcap/analysis/analysistest"
	"github.com/thinkcap/thinkcap/workload"
)

func TestErrorsBreakdown(t *testing.T) {
	rs := append(analysistest.Failures(),
		analysistest.Repeat(5, workload.StatusConnectError, 0, "dial tcp 127.0.0.1:8000: connect: connection refused")...)
	for i := range 6 {
		rs = append(rs, analysistest.Repeat(1, workload.StatusStreamError, 200, string(rune('a'+i))+strings.Repeat("x", 300))...)
	}
	if Errors(rs[:3]) != nil {
		t.Fatal("a run without failures has an errors breakdown")
	}
	e := Errors(rs)
	if e.ByStatus[workload.StatusHTTPError] != 40 || e.ByStatus[workload.StatusConnectError] != 5 || e.ByStatus[workload.StatusRejected] != 2 {
		t.Errorf("by status %v", e.ByStatus)
	}
	if e.ByHTTPCode["404"] != 40 || e.ByHTTPCode["429"] != 2 || e.ByHTTPCode["200"] != 6 || len(e.ByHTTPCode) != 3 {
		t.Errorf("by code %v", e.ByHTTPCode)
	}
	if len(e.Messages) != maxErrorMessages || e.Messages[0].Count != 40 || e.Messages[1].Count != 5 || e.Messages[2].Count != 2 || e.Messages[3].Count != 1 {
		t.Errorf("messages %+v", e.Messages)
	}
	for _, m := range e.Messages {
		if n := len([]rune(m.Message)); n > MaxErrorMessageRunes {
			t.Errorf("message of %d runes", n)
		}
	}
	s := Summary{Requests: RequestCounts{Total: len(rs), Completed: 3, Failed: len(rs) - 3}, Errors: e,
		Scrape: &ScrapeCounts{Scrapes: 10, Failures: 2, LastError: "scrape: http 500"}}
	b, err := json.Marshal(&s)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Contains(b, []byte(`"by_http_code":{"200":6,"404":40,"429":2}`)) || !bytes.Contains(b, []byte(`"scrape":{"scrapes":10,"failures":2`)) {
		t.Errorf("json %s", b)
	}
}
