package calibrate

import (
	"math"
	"testing"
)

// unitRows are n rows asking parameter k to equal target, weight 1 each.
func unitRows(k int, target float64, n int) []Row {
	rows := make([]Row, n)
	for i := range rows {
		a := make([]float64, len(Params))
		a[k] = 1
		rows[i] = Row{A: a, B: target, W: 1}
	}
	return rows
}

// TestSolverHoldsPhysicalRanges: points asking an efficiency above its
// declared range get the range's end under Physical, and only the
// efficiency of 1 without it (a run directory's calibration).
func TestSolverHoldsPhysicalRanges(t *testing.T) {
	k := Index("fp8_expert_compute_efficiency") // range 0.05:0.85, fitted as its inverse
	x0, free := make([]float64, len(Params)), make([]bool, len(Params))
	for i, p := range Params {
		x0[i] = p.Lower()
	}
	x0[k], free[k] = 1/0.5, true
	rows := unitRows(k, 1/1.2, 3) // an efficiency of 1.2
	phys, err := Solver{Physical: true}.Solve(rows, x0, x0, free)
	if err != nil {
		t.Fatal(err)
	}
	if got := 1 / phys[k]; math.Abs(got-0.85) > 1e-9 {
		t.Errorf("physical fit: efficiency %.4f; want the range's 0.85", got)
	}
	loose, err := Solver{}.Solve(rows, x0, x0, free)
	if err != nil {
		t.Fatal(err)
	}
	if got := 1 / loose[k]; math.Abs(got-1) > 1e-9 {
		t.Errorf("unphysical fit: efficiency %.4f; want 1", got)
	}
}

// TestSolverTiesAChildToItsParent: a child coefficient no row sees stays
// at its prior without Tie and follows its parent's fitted value with
// it, while rows that see the child separate the two.
func TestSolverTiesAChildToItsParent(t *testing.T) {
	child, parent := Index("fp8_expert_compute_efficiency"), Index("expert_compute_efficiency")
	x0, free := make([]float64, len(Params)), make([]bool, len(Params))
	for i, p := range Params {
		x0[i] = p.Lower()
	}
	x0[child], x0[parent] = 1/0.2, 1/0.3
	free[child], free[parent] = true, true
	parentRows := unitRows(parent, 1/0.5, 20)

	untied, err := Solver{Ridge: 1e-6}.Solve(parentRows, x0, x0, free)
	if err != nil {
		t.Fatal(err)
	}
	if math.Abs(1/untied[child]-0.2) > 0.001 {
		t.Errorf("without a tie the unseen child moved to %.4f from its prior 0.2", 1/untied[child])
	}
	tied, err := Solver{Tie: 0.1}.Solve(parentRows, x0, x0, free)
	if err != nil {
		t.Fatal(err)
	}
	if math.Abs(1/tied[child]-0.5) > 0.01 || math.Abs(1/tied[parent]-0.5) > 0.01 {
		t.Errorf("tied: child %.4f, parent %.4f; want both near the parent's 0.5", 1/tied[child], 1/tied[parent])
	}
	seen, err := Solver{Tie: 0.01}.Solve(append(parentRows, unitRows(child, 1/0.25, 20)...), x0, x0, free)
	if err != nil {
		t.Fatal(err)
	}
	if c := 1 / seen[child]; c > 0.3 {
		t.Errorf("a child its own rows see at 0.25 fitted %.4f: the tie should not override them", c)
	}
}

// TestSourceCapWeights: a deployment's n points weigh 1/√n each, and a
// source above SourceCap of the total weight is scaled down to it.
func TestSourceCapWeights(t *testing.T) {
	var obs []Observation
	for range 16 {
		obs = append(obs, Observation{Deployment: "big", Source: "a"})
	}
	for _, d := range []string{"b1", "b2", "c1", "c2"} {
		obs = append(obs, Observation{Deployment: d, Source: d[:1]})
	}
	f := &AggregateFit{obs: obs, perDeployment: map[string]int{"big": 16, "b1": 1, "b2": 1, "c1": 1, "c2": 1}}
	w := f.pointWeights()
	if math.Abs(w[0]-0.25) > 1e-12 || math.Abs(w[16]-1) > 1e-12 {
		t.Fatalf("uncapped weights %.3f (of 16) and %.3f (alone); want 0.25 and 1", w[0], w[16])
	}
	f.Settings.SourceCap = 0.4
	w = f.pointWeights()
	share := 0.0
	total := 0.0
	for i, o := range obs {
		total += w[i]
		if o.Source == "a" {
			share += w[i]
		}
	}
	if got := share / total; math.Abs(got-0.4) > 1e-6 {
		t.Errorf("source a holds %.3f of the weight under a cap of 0.4 (half uncapped)", got)
	}
}
