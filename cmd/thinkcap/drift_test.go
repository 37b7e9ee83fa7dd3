package main

import (
	"encoding/json"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/thinkcap/thinkcap/internal/golden"
)

var (
	driftBasePath = filepath.Join("testdata", "drift-base.jsonl")
	driftNewPath  = filepath.Join("testdata", "drift-new.jsonl")
)

// TestDriftGolden: in the sample logs high/math thinks 60% more with flat
// accuracy, medium/rag 8% more with better accuracy. With classes of 8 records, the default
// --min-count 30 keeps quiet; --min-count 5 pages.
func TestDriftGolden(t *testing.T) {
	out, errOut, code := execAnalysisCmd(t, newDriftCmd(), driftBasePath, driftNewPath, "--min-count", "5")
	if code != exitCheckFailed {
		t.Fatalf("exit %d, want 1 (an alert): %s", code, errOut)
	}
	golden.Check(t, "drift-table.txt", []byte(out))
	if !strings.Contains(errOut, "cost regression") || !strings.Contains(errOut, "high/math") {
		t.Errorf("stderr lacks the alert: %s", errOut)
	}

	out, _, code = execAnalysisCmd(t, newDriftCmd(), driftBasePath, driftNewPath, "--min-count", "5", "-o", "json")
	if code != exitCheckFailed {
		t.Fatalf("exit %d, want 1", code)
	}
	golden.Check(t, "drift.json", []byte(out))
	var rep struct {
		Classes []struct {
			Mode, Category string
			Alert          bool
			KS             *struct {
				D      float64 `json:"statistic"`
				PValue float64 `json:"p_value"`
			}
		}
		Alerts []struct{ Class, Message string }
	}
	if err := json.Unmarshal([]byte(out), &rep); err != nil {
		t.Fatal(err)
	}
	// Overall, thinking rose 48% too, but accuracy rose 4 points (rag got
	// better): the regression shows only per class.
	if len(rep.Classes) != 3 || len(rep.Alerts) != 1 || rep.Alerts[0].Class != "high/math" {
		t.Fatalf("classes %+v, alerts %+v", rep.Classes, rep.Alerts)
	}
	if math := rep.Classes[2]; math.Mode != "high" || !math.Alert || math.KS == nil || math.KS.D != 1 {
		t.Errorf("high/math: %+v", math)
	}

	out, errOut, code = execAnalysisCmd(t, newDriftCmd(), driftBasePath, driftNewPath)
	if code != exitOK || !strings.Contains(out, "no alert") {
		t.Fatalf("default --min-count: exit %d, want 0 with no alert\n%s%s", code, out, errOut)
	}
}

// TestDriftWithoutAccuracy: logs with no "correct" field page on a rise
// alone; a log compared with itself does not.
func TestDriftWithoutAccuracy(t *testing.T) {
	var base, next strings.Builder
	for i := range 40 {
		base.WriteString(`{"arrival_s":` + strconv.Itoa(i) + `,"prompt_tokens":100,"think_tokens":` + strconv.Itoa(1000+i) + `,"answer_tokens":50,"mode":"high"}` + "\n")
		next.WriteString(`{"arrival_s":` + strconv.Itoa(i) + `,"prompt_tokens":100,"think_tokens":` + strconv.Itoa(1500+i) + `,"answer_tokens":50,"mode":"high"}` + "\n")
	}
	basePath, newPath := writeTemp(t, "base.jsonl", base.String()), writeTemp(t, "new.jsonl", next.String())
	out, errOut, code := execAnalysisCmd(t, newDriftCmd(), basePath, newPath)
	if code != exitCheckFailed || !strings.Contains(out, "no accuracy") {
		t.Fatalf("exit %d, want 1 and a no-accuracy alert\n%s%s", code, out, errOut)
	}
	// The same rise under a higher threshold is no alert.
	if _, errOut, code := execAnalysisCmd(t, newDriftCmd(), basePath, newPath, "--threshold", "60"); code != exitOK {
		t.Fatalf("--threshold 60: exit %d: %s", code, errOut)
	}
	if _, errOut, code := execAnalysisCmd(t, newDriftCmd(), basePath, basePath); code != exitOK {
		t.Fatalf("same log: exit %d: %s", code, errOut)
	}
}
