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

// GPU returns the GPU profile called name (case-insensitive; spaces read
// as hyphens, so a datasheet's "H100 NVL" is h100-nvl), or an
// *UnknownError listing the valid names.
func (c *Catalog) GPU(name string) (GPU, error) {
	if k, ok := lookupKey(c.GPUs, name); ok {
		return c.GPUs[k], nil
	}
	if k, ok := lookupKey(c.GPUs, strings.Join(strings.Fields(name), "-")); ok {
		return c.GPUs[k], nil
	}
	return GPU{}, &UnknownError{Kind: "gpu", Name: name, Valid: c.GPUNames()}
}

// Model returns the model profile called name, matched case-insensitively
// against the short name (qwen3-8b), the Hugging Face id (Qwen/Qwen3-8B) or
// one of its aliases, as users pass to `vllm serve`. A quantized
// checkpoint's id resolves to its base model with the weight format its
// suffix names in Model.Checkpoint (ResolveCheckpoint), and an id of
// another publisher to the model of that name (unsloth/Qwen3-8B). It
// returns an *UnknownError listing the valid names when nothing matches,
// an *UnmodelledFormatError for a checkpoint whose format thinkcap does not
// model, and an error naming the candidates when an id matches several
// profiles.
func (c *Catalog) Model(name string) (Model, error) {
	if k, ok := lookupKey(c.Models, name); ok {
		return c.Models[k], nil
	}
	ck := ParseCheckpoint(name)
	k, own, err := c.modelByID(ck)
	if err != nil {
		return Model{}, err
	}
	m := c.Models[k]
	if ck.Unmodelled != "" {
		return Model{}, &UnmodelledFormatError{Checkpoint: ck, Model: m.Name}
	}
	if ck.Quantized() {
		// A suffix of several formats is the one the model ships in
		// (gpt-oss's -FP4 is its MXFP4 experts).
		for _, own := range []string{m.ExpertWeightDtype, m.WeightDtype} {
			if own != "" && slices.Contains(ck.Accepts, own) {
				ck.Format = own
				break
			}
		}
		m.Checkpoint = ck
		m.FP8BlockScaled = fp8BlockScaled(&m, &ck, own)
	}
	return m, nil
}

// modelByID finds the profile a Hugging Face id names: first by the whole
// id (a profile's hf_name or alias: the model's own checkpoint, own), then
// by its name whatever the publisher, then by its name less the format
// suffix (neuralmagic/Meta-Llama-3.1-8B-Instruct-FP8 is
// meta-llama/Meta-Llama-3.1-8B-Instruct's).
func (c *Catalog) modelByID(ck Checkpoint) (key string, own bool, err error) {
	full := ck.ID[strings.LastIndexByte(ck.ID, '/')+1:]
	steps := []func(m *Model) bool{
		func(m *Model) bool { return m.namedBy(ck.ID, strings.EqualFold) },
		func(m *Model) bool { return m.namedBy(full, sameName) },
	}
	if ck.Suffix != "" {
		steps = append(steps, func(m *Model) bool { return m.namedBy(ck.Base, sameName) })
	}
	for i, step := range steps {
		var matches []string
		for _, k := range c.ModelNames() {
			m := c.Models[k]
			if step(&m) {
				matches = append(matches, k)
			}
		}
		switch len(matches) {
		case 0:
			continue
		case 1:
			return matches[0], i == 0, nil
		default:
			return "", false, fmt.Errorf("model %q matches several profiles (%s); pass the profile name",
				ck.ID, strings.Join(matches, ", "))
		}
	}
	return "", false, &UnknownError{Kind: "model", Name: ck.ID, Valid: c.ModelNames(), Why: unmodelledArchitecture(ck.ID)}
}

// namedBy reports whether id, compared by same, is m's Hugging Face id or
// one of its aliases.
func (m *Model) namedBy(id string, same func(a, b string) bool) bool {
	return m.HFName != "" && same(m.HFName, id) || slices.ContainsFunc(m.Aliases, func(a string) bool { return same(a, id) })
}

// sameName reports whether Hugging Face id a's name, without its
// publisher, is name (case-insensitive).
func sameName(a, name string) bool {
	if i := strings.LastIndexByte(a, '/'); i >= 0 {
		a = a[i+1:]
	}
	return strings.EqualFold(a, name)
}

// fp8BlockScaled is whether the checkpoint's FP8 weights are block-scaled:
// as its suffix says (-FP8-block; compressed-tensors' -FP8-dynamic is per
// channel), else as the profile says for the model's own publisher, whose
// FP8 checkpoints the profile describes (Qwen's and DeepSeek's are
// block-scaled). Other publishers' -FP8 uploads scale per tensor
// (neuralmagic's and RedHatAI's static FP8, NVIDIA ModelOpt's).
func fp8BlockScaled(m *Model, ck *Checkpoint, own bool) bool {
	switch ck.FP8Block {
	case "block":
		return true
	case "channel", "tensor":
		return false
	}
	return (own || sameOrg(m.HFName, ck.Org)) && m.FP8BlockScaled
}

// sameOrg reports whether Hugging Face id hf is published by org.
func sameOrg(hf, org string) bool {
	o, _, ok := strings.Cut(hf, "/")
	return ok && org != "" && strings.EqualFold(o, org)
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
	// Why says, for a model of an architecture thinkcap does not model,
	// what it is; "" otherwise.
	Why string
}

func (e *UnknownError) Error() string {
	if e.Why != "" {
		return fmt.Sprintf("unknown %s %q: %s, which thinkcap does not model; valid %ss: %s", e.Kind, e.Name, e.Why, e.Kind, strings.Join(e.Valid, ", "))
	}
	return fmt.Sprintf("unknown %s %q; valid %ss: %s", e.Kind, e.Name, e.Kind, strings.Join(e.Valid, ", "))
}
