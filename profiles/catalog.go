package profiles

import (
	"fmt"
	"maps"
	"slices"
	"strings"
	"sync"
)

// Catalog is a set of GPU, model and traffic profiles, keyed by name. The
// zero value is an empty catalog ready for LoadPath; Embedded returns one
// filled with the built-in profiles.
type Catalog struct {
	GPUs    map[string]GPU
	Models  map[string]Model
	Traffic map[string]Traffic
	// StepFits are the corpus step fits by generation (step-fit.yaml).
	StepFits map[string]StepFit
	// ModelError is the step model's cross-validated error on the
	// corpus (model-error.yaml); shared, never changed once loaded.
	ModelError *ModelError
}

// embedded parses the embedded data once per process; Embedded hands out
// clones so that no caller can change another's view.
var embedded = sync.OnceValues(func() (*Catalog, error) {
	c := &Catalog{}
	if err := c.loadFS(dataFS, "data"); err != nil {
		return nil, fmt.Errorf("embedded profiles: %w", err)
	}
	return c, nil
})

// Embedded returns a new catalog holding the profiles built into thinkcap
// (profiles/data). The caller owns it and may add to it with LoadPath.
func Embedded() (*Catalog, error) {
	c, err := embedded()
	if err != nil {
		return nil, err
	}
	return c.Clone(), nil
}

// Clone returns a deep copy of c.
func (c *Catalog) Clone() *Catalog {
	out := &Catalog{
		GPUs:       maps.Clone(c.GPUs),
		Models:     maps.Clone(c.Models),
		StepFits:   maps.Clone(c.StepFits),
		ModelError: c.ModelError,
		Traffic:    make(map[string]Traffic, len(c.Traffic)),
	}
	for k, t := range c.Traffic {
		out.Traffic[k] = t.clone()
	}
	return out
}

// clone copies the classes so that the copy shares no memory with t.
func (t Traffic) clone() Traffic {
	t.Classes = slices.Clone(t.Classes)
	return t
}

// GPUNames returns the GPU profile names, sorted.
func (c *Catalog) GPUNames() []string { return slices.Sorted(maps.Keys(c.GPUs)) }

// ModelNames returns the model profile names, sorted.
func (c *Catalog) ModelNames() []string { return slices.Sorted(maps.Keys(c.Models)) }

// TrafficNames returns the traffic profile names, sorted.
func (c *Catalog) TrafficNames() []string { return slices.Sorted(maps.Keys(c.Traffic)) }

// GPU returns the GPU profile called name (case-insensitive), or an
// *UnknownError listing the valid names.
func (c *Catalog) GPU(name string) (GPU, error) {
	if k, ok := lookupKey(c.GPUs, name); ok {
		return c.GPUs[k], nil
	}
	return GPU{}, &UnknownError{Kind: "gpu", Name: name, Valid: c.GPUNames()}
}

// Model returns the model profile called name, matched case-insensitively
// against both the short name (qwen3-8b) and the Hugging Face id
// (Qwen/Qwen3-8B) or one of its aliases, as users pass to `vllm serve`. It returns an
// *UnknownError listing the valid names when nothing matches, and an error
// naming the candidates when a Hugging Face id matches several profiles.
func (c *Catalog) Model(name string) (Model, error) {
	if k, ok := lookupKey(c.Models, name); ok {
		return c.Models[k], nil
	}
	var matches []string
	for _, k := range c.ModelNames() {
		m := c.Models[k]
		if hf := m.HFName; hf != "" && strings.EqualFold(hf, name) ||
			slices.ContainsFunc(m.Aliases, func(a string) bool { return strings.EqualFold(a, name) }) {
			matches = append(matches, k)
		}
	}
	switch len(matches) {
	case 0:
		return Model{}, &UnknownError{Kind: "model", Name: name, Valid: c.ModelNames()}
	case 1:
		return c.Models[matches[0]], nil
	default:
		return Model{}, fmt.Errorf("model %q matches the hf_name of several profiles (%s); pass the profile name",
			name, strings.Join(matches, ", "))
	}
}

// TrafficProfile returns the traffic profile called name (case-insensitive),
// or an *UnknownError listing the valid names. The result shares no memory
// with the catalog.
func (c *Catalog) TrafficProfile(name string) (Traffic, error) {
	if k, ok := lookupKey(c.Traffic, name); ok {
		return c.Traffic[k].clone(), nil
	}
	return Traffic{}, &UnknownError{Kind: "traffic profile", Name: name, Valid: c.TrafficNames()}
}

// lookupKey finds name in m: exactly, else case-insensitively. Names differ
// by more than case (add replaces case-insensitively), so at most one
// case-insensitive match exists.
func lookupKey[V any](m map[string]V, name string) (string, bool) {
	if _, ok := m[name]; ok {
		return name, true
	}
	for k := range m {
		if strings.EqualFold(k, name) {
			return k, true
		}
	}
	return "", false
}

// put stores v under name in *m, first removing any entry whose name differs
// from it only by case, so that a user's "H100-SXM" replaces "h100-sxm".
func put[V any](m *map[string]V, name string, v V) {
	if *m == nil {
		*m = make(map[string]V)
	}
	for k := range *m {
		if strings.EqualFold(k, name) {
			delete(*m, k)
		}
	}
	(*m)[name] = v
}

// UnknownError reports a profile name that is not in the catalog.
type UnknownError struct {
	Kind  string   // "gpu", "model" or "traffic profile"
	Name  string   // the name asked for
	Valid []string // the names the catalog holds, sorted
}

func (e *UnknownError) Error() string {
	return fmt.Sprintf("unknown %s %q; valid %ss: %s", e.Kind, e.Name, e.Kind, strings.Join(e.Valid, ", "))
}
