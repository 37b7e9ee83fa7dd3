package sim

import (
	"testing"

	"github.com/thinkcap/thinkcap/internal/simtest"
	"github.com/thinkcap/thinkcap/workload"
)

func TestRouters(t *testing.T) {
	reqs := make([]workload.Request, 6)
	for i := range reqs {
		reqs[i] = workload.Request{PromptTokens: 100, ThinkTokens: 50, AnswerTokens: 10}
	}
	// Long requests arriving together: every router spreads them evenly.
	for _, router := range []string{"round-robin", "least-requests", "least-kv"} {
		cfg := benchConfig(t)
		cfg.Replicas, cfg.Router = 3, router
		rep, err := Run(cfg, reqs, Options{})
		if err != nil {
			t.Fatal(err)
		}
		for i, r := range rep.Results {
			if r.Replica != i%3 {
				t.Fatalf("%s: request %d on replica %d, want %d", router, i, r.Replica, i%3)
			}
		}
	}
	// least-requests sends a newcomer to the replica with fewer requests;
	// round-robin does not look.
	mixed := []workload.Request{
		{ArrivalS: 0, PromptTokens: 100, ThinkTokens: 5000, AnswerTokens: 10},
		{ArrivalS: 0, PromptTokens: 100, ThinkTokens: 1, AnswerTokens: 1},
		{ArrivalS: 5, PromptTokens: 100, ThinkTokens: 10, AnswerTokens: 10},
	}
	want := map[string]int{"round-robin": 0, "least-requests": 1, "least-kv": 1}
	for router, replica := range want {
		cfg := benchConfig(t)
		cfg.Replicas, cfg.Router = 2, router
		rep, err := Run(cfg, mixed, Options{})
		if err != nil {
			t.Fatal(err)
		}
		if got := rep.Results[2].Replica; got != replica {
			t.Fatalf("%s: third request on replica %d, want %d", router, got, replica)
		}
	}
}

func TestMoreReplicasNeverSlower(t *testing.T) {
	reqs := simtest.ReasoningTraffic(t, 400, 4)
	var last float64
	for n := 1; n <= 3; n++ {
		cfg := benchConfig(t)
		cfg.Replicas, cfg.Router = n, "least-requests"
		rep, err := Run(cfg, reqs, Options{})
		if err != nil {
			t.Fatal(err)
		}
		var e2e float64
		for _, r := range rep.Results {
			e2e += r.E2ES
		}
		if n > 1 && e2e > last {
			t.Fatalf("%d replicas: total E2E %.0f s above %.0f s with fewer", n, e2e, last)
		}
		last = e2e
	}
}
