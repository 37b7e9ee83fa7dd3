package loadtest

import (
	"testing"

	"github.com/thinkcap/thinkcap/workload"
)

// TestK8sJobSizeFor: the pods are sized from the schedule's output tokens
// over its span and the streams a closed loop keeps in flight.
func TestK8sJobSizeFor(t *testing.T) {
	reqs := []workload.Request{
		{ID: "a", ArrivalS: 0, ThinkTokens: 10, AnswerTokens: 10},
		{ID: "b", ArrivalS: 2, ThinkTokens: 20, AnswerTokens: 0},
	}
	var k K8sJobOptions
	k.SizeFor(reqs, 2, 0)
	if k.TokensPerS != 20 || k.Streams != 2 {
		t.Errorf("%g tokens/s, %d streams; want 20 and 2", k.TokensPerS, k.Streams)
	}
	k.SizeFor(reqs[:1], 0, 0)
	if k.TokensPerS != 0 {
		t.Errorf("a schedule of no span: %g tokens/s, want 0", k.TokensPerS)
	}
}
