package profiles

import (
	"bytes"
	"errors"
	"io"
	"os"
	"strings"

	"go.yaml.in/yaml/v3"
)

// Merge returns s with every non-zero field of override in place of its own.
// Zero means "not set" in an override (a --step-model file lists only the
// knobs it tunes), so an override cannot set a coefficient to exactly zero;
// a tiny positive value does the same job.
func (s StepCoefficients) Merge(override StepCoefficients) StepCoefficients {
	for _, f := range StepFields {
		if v := *f.Value(&override); v != 0 {
			*f.Value(&s) = v
		}
	}
	return s
}

// LoadStepCoefficients reads a --step-model file: a YAML mapping of
// StepCoefficients keys (weight_bandwidth_efficiency: 0.88, ...), any subset
// of them. Unknown keys and out-of-range values are errors naming file:line;
// keys left out are zero, which Merge treats as "keep the GPU's value".
func LoadStepCoefficients(path string) (StepCoefficients, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return StepCoefficients{}, err
	}
	return parseStepCoefficients(path, data)
}

func parseStepCoefficients(path string, data []byte) (StepCoefficients, error) {
	var s StepCoefficients
	dec := yaml.NewDecoder(bytes.NewReader(data))
	dec.KnownFields(true)
	if err := dec.Decode(&s); err != nil && !errors.Is(err, io.EOF) {
		return StepCoefficients{}, errors.Join(yamlErrors(path, err)...)
	}
	problems := s.problems(true, "")
	if len(problems) == 0 {
		return s, nil
	}
	// Point each problem at its key's line; the problems start with the key.
	var node yaml.Node
	_ = yaml.Unmarshal(data, &node) // parsed above; errors cannot differ
	keyLines := map[string]int{}
	if node.Kind == yaml.DocumentNode && len(node.Content) > 0 && node.Content[0].Kind == yaml.MappingNode {
		m := node.Content[0].Content
		for i := 0; i+1 < len(m); i += 2 {
			keyLines[m[i].Value] = m[i].Line
		}
	}
	errs := make([]error, len(problems))
	for i, p := range problems {
		fe := &FileError{Path: path, Err: p}
		for key, line := range keyLines {
			if strings.HasPrefix(p.Error(), key+" ") {
				fe.Line = line
			}
		}
		errs[i] = fe
	}
	return StepCoefficients{}, errors.Join(errs...)
}

// EncodeStepCoefficients writes s as a --step-model file (every key, in
// the struct's order) under a head comment, which LoadStepCoefficients
// reads back.
func EncodeStepCoefficients(s StepCoefficients, head string) ([]byte, error) {
	return EncodeYAML(s, head)
}
