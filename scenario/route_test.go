package scenario

import (
	"slices"
	"strings"
	"testing"

	"github.com/thinkcap/thinkcap/internal/simtest"
	"github.com/thinkcap/thinkcap/sim"
)

func TestRouteOptionsValidate(t *testing.T) {
	given := func(flags ...string) func(string) bool {
		return func(f string) bool { return slices.Contains(flags, f) }
	}
	for _, tc := range []struct {
		name string
		o    RouteOptions
		want []string // each a line of the error, in order; none: valid
	}{
		{"defaults", RouteOptions{TensorParallelSize: 1, Replicas: 1}, nil},
		{"a route", RouteOptions{Route: "low", Model: "qwen3-1.7b", TensorParallelSize: 1, Replicas: 1, Given: given("Route", "Route.Model")}, nil},
		{"bad rule", RouteOptions{Route: "mode=extreme", TensorParallelSize: 1, Replicas: 1}, []string{"Route"}},
		{"pool sizes", RouteOptions{Route: "low"}, []string{"Route.TensorParallelSize: --tensor-parallel-size must be at least 1, got 0", "Route.Replicas: --replicas must be at least 1, got 0"}},
		{"pool flags without a route", RouteOptions{TensorParallelSize: 1, Replicas: 1, Given: given("Route.Model", "Route.Replicas")},
			[]string{"Route.Model only matters with Route", "Route.Replicas only matters with Route"}},
	} {
		err := tc.o.Validate()
		if tc.want == nil {
			if err != nil {
				t.Errorf("%s: %v", tc.name, err)
			}
			continue
		}
		if err == nil {
			t.Errorf("%s: no error, want %q", tc.name, tc.want)
			continue
		}
		lines := strings.Split(err.Error(), "\n")
		if len(lines) != len(tc.want) {
			t.Errorf("%s: %q, want %d problems", tc.name, err, len(tc.want))
			continue
		}
		for i, w := range tc.want {
			if !strings.HasPrefix(lines[i], w) {
				t.Errorf("%s: problem %d is %q, want %q", tc.name, i, lines[i], w)
			}
		}
	}
}

func TestRoutePoolsConfig(t *testing.T) {
	cat := simtest.Catalog(t)
	dep := sim.DeploymentOptions{
		Model: "qwen3-8b", GPU: "h100-sxm",
		SpeculativeConfig: `{"method":"ngram","num_speculative_tokens":2}`,
		Engine:            sim.Config{TensorParallelSize: 1, Replicas: 2, MaxNumSeqs: 7, KVCacheDtype: "fp8", Seed: 3},
	}
	main, err := dep.Config(cat)
	if err != nil {
		t.Fatal(err)
	}
	main.TimelineIntervalS = 0.5
	reqs := simtest.MixedTraffic(t, 50, 4, 5)
	for i := range reqs {
		reqs[i].Mode = []string{"low", "high"}[i%2]
	}

	none := RouteOptions{TensorParallelSize: 1, Replicas: 1}
	pools, err := none.Pools(cat, dep, main, reqs)
	if err != nil || len(pools) != 1 || pools[0].Name != "" || len(pools[0].Requests) != 50 {
		t.Fatalf("no route: %d pools, %v", len(pools), err)
	}

	r := RouteOptions{Route: "low", Model: "qwen3-1.7b", GPU: "l4", TensorParallelSize: 1, Replicas: 3}
	pools, err = r.Pools(cat, dep, main, reqs)
	if err != nil {
		t.Fatal(err)
	}
	if len(pools) != 2 || pools[0].Name != "thinking" || pools[1].Name != "route" || len(pools[0].Requests) != 25 || len(pools[1].Requests) != 25 {
		t.Fatalf("pools %d, want thinking and route with 25 requests each", len(pools))
	}
	rc := pools[1].Config
	if rc.Model.Name != "qwen3-1.7b" || rc.GPU.Name != "l4" || rc.Replicas != 3 || rc.TimelineIntervalS != 0.5 {
		t.Errorf("route pool %s on %s x%d, interval %g", rc.Model.Name, rc.GPU.Name, rc.Replicas, rc.TimelineIntervalS)
	}
	// The main pool's engine flags stay; its limits and speculation do not.
	if rc.KVCacheDtype != "fp8" || rc.MaxNumSeqs == 7 || rc.Speculative != nil || pools[0].Config.MaxNumSeqs != 7 {
		t.Errorf("route pool kv %s, max-num-seqs %d, speculative %v", rc.KVCacheDtype, rc.MaxNumSeqs, rc.Speculative)
	}
	for _, q := range pools[1].Requests {
		if q.ThinkTokens != 0 || q.Mode != "low" {
			t.Fatalf("routed request %+v, want a low one with thinking off", q)
		}
	}

	bad := RouteOptions{Route: "low", Model: "no-such-model", TensorParallelSize: 1, Replicas: 1}
	if _, err := bad.Pools(cat, dep, main, reqs); err == nil || !strings.HasPrefix(err.Error(), "--route-model: ") {
		t.Errorf("unknown route model: %v", err)
	}
}
