package analysis

import "strings"

// Caveats are what of a deployment a prediction's step coefficients
// have no measurement behind (sim.Config.Caveats), each a sentence, and
// the error to expect with what to do about it.
type Caveats struct {
	Unmeasured []string `json:"unmeasured"`
	Expect     string   `json:"expect"`
}

// String is the caveats on one line.
func (c *Caveats) String() string {
	if c == nil {
		return ""
	}
	return strings.Join(c.Unmeasured, "; ") + ": " + c.Expect
}
