package loadtest

import (
	"fmt"
	"path/filepath"
	"sync"
	"testing"
	"time"

	"github.com/thinkcap/thinkcap/internal/runtest"
	"github.com/thinkcap/thinkcap/internal/vllmtest"
	"github.com/thinkcap/thinkcap/loadgen"
	"github.com/thinkcap/thinkcap/workload"
)

// TestShardsMerge: two shards of one schedule, started together, each send
// their part (shard 0 alone scraping) and merge into a run with the
// schedule's every request and its token counts; a run that is not a shard
// is refused. The command's TestShardedLoadtest runs more shards against
// an emulated server and verifies the merged run.
func TestShardsMerge(t *testing.T) {
	srv, _ := vllmtest.Slow(t, time.Millisecond)
	tmp := t.TempDir()
	reqs := traffic(t, workload.TrafficOptions{Requests: 16, RatePerS: 200, Prompt: dist(t, "uniform:5..40"), Think: dist(t, "uniform:1..4"), Answer: dist(t, "uniform:1..4")}, 5)
	whole := filepath.Join(tmp, "whole")
	o := testOptions(srv.URL, whole, reqs)
	o.Model = "slow-model"
	if _, errOut, code := load(t, o); code != exitOK {
		t.Fatalf("unsharded: exit %d: %s", code, errOut)
	}
	want := runtest.TokensByID(t, whole)
	start := time.Now().Add(100 * time.Millisecond)
	dirs := []string{filepath.Join(tmp, "shard-0"), filepath.Join(tmp, "shard-1")}
	var wg sync.WaitGroup
	errs := make([]string, len(dirs))
	for i := range dirs {
		o := testOptions(srv.URL, dirs[i], reqs)
		o.Model, o.ScrapeInterval, o.StartAt = "slow-model", 20*time.Millisecond, start
		o.Shard = &loadgen.Shard{Index: i, Count: len(dirs)}
		wg.Go(func() {
			if _, errOut, code := load(t, o); code != exitOK {
				errs[i] = fmt.Sprintf("shard %d: exit %d: %s", i, code, errOut)
			}
		})
	}
	wg.Wait()
	for _, e := range errs {
		if e != "" {
			t.Fatal(e)
		}
	}
	merged := filepath.Join(tmp, "merged")
	if _, err := Merge(MergeOptions{Dirs: dirs, Out: merged}); err != nil {
		t.Fatal(err)
	}
	got := runtest.TokensByID(t, merged)
	if len(got) != len(want) {
		t.Fatalf("%d requests merged, %d unsharded", len(got), len(want))
	}
	for id, tok := range want {
		if got[id] != tok {
			t.Errorf("%s: %v merged, %v unsharded", id, got[id], tok)
		}
	}
	meta, err := loadgen.ReadMetadata(filepath.Join(merged, loadgen.MetadataFile))
	if err != nil {
		t.Fatal(err)
	}
	scraped := 0
	for _, s := range meta.Shards {
		if s.Scraped {
			scraped++
		}
	}
	if len(meta.Shards) != 2 || scraped != 1 || meta.State != loadgen.RunComplete || meta.RequestsFinished != len(want) {
		t.Errorf("metadata: %d shards, %d scraped, state %s, %d finished", len(meta.Shards), scraped, meta.State, meta.RequestsFinished)
	}
	if _, err := Merge(MergeOptions{Dirs: []string{whole}, Out: filepath.Join(tmp, "bad")}); exitCode(err) != exitBadInput {
		t.Errorf("merging an unsharded run: %v", err)
	}
}
