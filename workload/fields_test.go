package workload

import (
	"fmt"
	"math/rand/v2"
	"strconv"
	"testing"
)

// The allocation-free number parsers agree with strconv.
func TestNumberParsersMatchStrconv(t *testing.T) {
	r := rand.New(rand.NewPCG(2, 3))
	inputs := []string{"0", "00", "007", "12.0", "12.50", "0.1", "0.000001", "999999999999999", "9999999999999999", "123456789012345.6",
		"1.", ".5", "-0", "-1", "+1", "1e3", "1_000", "0x10", "Inf", "NaN", "", "1.2.3", "12a"}
	for range 20000 {
		digits := strconv.FormatUint(r.Uint64()>>r.IntN(64), 10)
		if p := r.IntN(len(digits) + 1); p > 0 && p < len(digits) {
			digits = digits[:p] + "." + digits[p:]
		}
		inputs = append(inputs, digits)
	}
	for _, s := range inputs {
		want, err := strconv.ParseFloat(s, 64)
		got, ok := parseFloatBytes([]byte(s))
		if ok != (err == nil) || (ok && fmt.Sprint(got) != fmt.Sprint(want)) {
			t.Fatalf("parseFloatBytes(%q) = %v, %v; strconv %v, %v", s, got, ok, want, err)
		}
		wi, wok := parseInteger(s)
		gi, gok := parseIntegerBytes([]byte(s))
		if gi != wi || gok != wok {
			t.Fatalf("parseIntegerBytes(%q) = %v, %v; parseInteger %v, %v", s, gi, gok, wi, wok)
		}
	}
}
