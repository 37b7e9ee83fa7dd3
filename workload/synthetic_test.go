package workload

import (
	"math"
	"reflect"
	"strings"
	"testing"

	"github.com/thinkcap/thinkcap/profiles"
)

func testTraffic() profiles.Traffic {
	return profiles.Traffic{
		Name: "mixed",
		Classes: []profiles.TrafficClass{
			{Name: "easy", Mode: "low", Category: "extraction", Share: 0.6,
				PromptTokens: "lognormal:p50=800,p99=4000", AnswerTokens: "uniform:50..150",
				PrefixID: "sys-a", PrefixTokens: 500},
			{Name: "hard", Mode: "high", Category: "math", Share: 0.3,
				PromptTokens: "uniform:100..300", ThinkTokens: "lognormal:p50=2000,p99=16000,max=32768",
				AnswerTokens: "300"},
			{Name: "rag", Category: "rag", Share: 0.1,
				PromptTokens: "normal:mean=6000,sd=1000", ThinkTokens: "exponential:mean=400"},
		},
	}
}

func testSynthetic(t *testing.T) Synthetic {
	t.Helper()
	classes, err := ClassesFromTraffic(testTraffic())
	if err != nil {
		t.Fatal(err)
	}
	return Synthetic{Requests: 20_000, RatePerS: 10, Seed: 42, Classes: classes}
}

func TestSyntheticDeterministic(t *testing.T) {
	s := testSynthetic(t)
	a, err := s.Generate()
	if err != nil {
		t.Fatal(err)
	}
	b, err := s.Generate()
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(a, b) {
		t.Fatal("same seed, different requests")
	}
	s.Seed = 43
	c, _ := s.Generate()
	if reflect.DeepEqual(a, c) {
		t.Fatal("different seeds, same requests")
	}
	if a[0].ID != "req-000001" || a[len(a)-1].ID != "req-020000" {
		t.Errorf("ids %q..%q", a[0].ID, a[len(a)-1].ID)
	}
}

func TestSyntheticStreamsAreIndependent(t *testing.T) {
	s := testSynthetic(t)
	base, _ := s.Generate()

	// Another think distribution for "hard": arrivals, classes, prompts,
	// answers and the other classes' thinking stay as they were.
	s.Classes = append([]Class(nil), s.Classes...)
	d, err := ParseDist("normal:mean=100,sd=30")
	if err != nil {
		t.Fatal(err)
	}
	s.Classes[1].Think = d
	changed, _ := s.Generate()
	thinkDiffers := false
	for i := range base {
		b, c := base[i], changed[i]
		if b.ArrivalS != c.ArrivalS || b.Category != c.Category || b.PromptTokens != c.PromptTokens || b.AnswerTokens != c.AnswerTokens {
			t.Fatalf("request %d changed beyond think_tokens: %+v vs %+v", i, b, c)
		}
		if b.Category != "math" && b.ThinkTokens != c.ThinkTokens {
			t.Fatalf("request %d of another class changed its thinking", i)
		}
		thinkDiffers = thinkDiffers || b.ThinkTokens != c.ThinkTokens
	}
	if !thinkDiffers {
		t.Error("think_tokens did not change")
	}

	// Another rate moves arrivals only.
	s.RatePerS = 20
	faster, _ := s.Generate()
	for i := range faster {
		if math.Abs(faster[i].ArrivalS*2-changed[i].ArrivalS) > 1e-9*changed[i].ArrivalS+1e-12 {
			t.Fatalf("request %d: arrival %v at twice the rate, was %v", i, faster[i].ArrivalS, changed[i].ArrivalS)
		}
		faster[i].ArrivalS = changed[i].ArrivalS
	}
	if !reflect.DeepEqual(faster, changed) {
		t.Error("rate changed more than arrivals")
	}
}

func TestSyntheticShapes(t *testing.T) {
	s := testSynthetic(t)
	reqs, err := s.Generate()
	if err != nil {
		t.Fatal(err)
	}
	counts := map[string]int{}
	for i, r := range reqs {
		counts[r.Category]++
		if i > 0 && r.ArrivalS < reqs[i-1].ArrivalS {
			t.Fatalf("request %d arrives before %d", i, i-1)
		}
		if r.PromptTokens < 1 || r.ThinkTokens < 0 || r.AnswerTokens < 0 {
			t.Fatalf("bad lengths %+v", r)
		}
		switch r.Category {
		case "extraction":
			if r.Mode != "low" || r.PrefixID != "sys-a" || r.PrefixTokens != 500 || r.PromptTokens <= 500 || r.ThinkTokens != 0 {
				t.Fatalf("extraction request %+v", r)
			}
		case "math":
			if r.AnswerTokens != 300 || r.ThinkTokens > 32768 {
				t.Fatalf("math request %+v", r)
			}
		case "rag":
			if r.Mode != "" || r.AnswerTokens != 0 {
				t.Fatalf("rag request %+v", r)
			}
		}
	}
	n := float64(len(reqs))
	for cat, share := range map[string]float64{"extraction": 0.6, "math": 0.3, "rag": 0.1} {
		if got := float64(counts[cat]) / n; math.Abs(got-share) > 0.01 {
			t.Errorf("%s share %.3f, want %.2f", cat, got, share)
		}
	}
	// 20,000 requests at 10/s: the last arrives near 2,000 s.
	if last := reqs[len(reqs)-1].ArrivalS; !within(last, 2000, 0.03) {
		t.Errorf("last arrival %v, want about 2000", last)
	}
}

func TestSyntheticValidate(t *testing.T) {
	good := testSynthetic(t)
	tests := []struct {
		name string
		edit func(*Synthetic)
		want []string
	}{
		{"zero value", func(s *Synthetic) { *s = Synthetic{} }, []string{"requests: must be at least 1", "rate must be positive", "classes: need at least one class"}},
		{"bad arrival", func(s *Synthetic) { s.Arrival = "sine" }, []string{`arrival process "sine": unknown`}},
		{"bad class", func(s *Synthetic) {
			s.Classes = []Class{{Name: "x", Share: -1, Mode: "max"}, {Share: 1, PrefixTokens: -1}}
		}, []string{`class "x": share`, `class "x": mode`, `class "x": prompt: missing`, "class 2: prefix_tokens", "class 2: prompt: missing"}},
		{"zero shares", func(s *Synthetic) {
			s.Classes = []Class{{Prompt: Constant(1)}}
		}, []string{"shares must not all be zero"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := good
			tt.edit(&s)
			_, err := s.Generate()
			if err == nil {
				t.Fatal("no error")
			}
			for _, w := range tt.want {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("error %q does not contain %q", err, w)
				}
			}
		})
	}
}

func TestSyntheticZeroShareNeverChosen(t *testing.T) {
	s := Synthetic{Requests: 5000, RatePerS: math.Inf(1), Arrival: "constant", Classes: []Class{
		{Category: "never", Share: 0, Prompt: Constant(1)},
		{Category: "always", Share: 2, Prompt: Constant(0)},
		{Category: "never-either", Share: 0, Prompt: Constant(1)},
	}}
	reqs, err := s.Generate()
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range reqs {
		if r.Category != "always" || r.ArrivalS != 0 || r.PromptTokens != 1 {
			t.Fatalf("request %+v", r)
		}
	}
}

func TestClassesFromTrafficErrors(t *testing.T) {
	tr := testTraffic()
	tr.Classes[0].ThinkTokens = "lognormal:p50=400"
	tr.Classes[1].PromptTokens = ""
	tr.Classes[2].Mode = "max"
	_, err := ClassesFromTraffic(tr)
	if err == nil {
		t.Fatal("no error")
	}
	for _, w := range []string{
		`traffic profile "mixed": class "easy": think_tokens: distribution "lognormal:p50=400": lognormal needs exactly two`,
		`traffic profile "mixed": class "hard": prompt_tokens: missing distribution`,
		`traffic profile "mixed": class "rag": mode: must be one of`,
	} {
		if !strings.Contains(err.Error(), w) {
			t.Errorf("error %q does not contain %q", err, w)
		}
	}
	if _, err := ClassesFromTraffic(profiles.Traffic{Name: "none"}); err == nil || !strings.Contains(err.Error(), `traffic profile "none": no classes`) {
		t.Errorf("error %v", err)
	}
}
