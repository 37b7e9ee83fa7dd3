package profiles

import (
	"errors"
	"fmt"
	"strconv"
	"strings"

	"go.yaml.in/yaml/v3"
)

// FileError is a problem in a profile or step-model file: a YAML syntax or
// type error, an unknown key, or an entry that fails validation. Commands can
// tell bad input from other failures with errors.As.
type FileError struct {
	Path string
	Line int // 1-based; 0 when the line is not known
	Err  error
}

// Error reads "path:line: problem", as compilers write it, so that editors
// can jump to the place.
func (e *FileError) Error() string { return e.where() + ": " + e.Err.Error() }

func (e *FileError) Unwrap() error { return e.Err }

func (e *FileError) where() string {
	if e.Line > 0 {
		return e.Path + ":" + strconv.Itoa(e.Line)
	}
	return e.Path
}

// yamlErrors turns a yaml.v3 decode error into FileErrors, one per problem,
// moving the line yaml.v3 writes into the message ("yaml: line 3: ...",
// "line 5: field x not found in type ...") into FileError.Line.
func yamlErrors(path string, err error) []error {
	var te *yaml.TypeError
	if errors.As(err, &te) {
		out := make([]error, len(te.Errors))
		for i, msg := range te.Errors {
			out[i] = fileError(path, msg)
		}
		return out
	}
	return []error{fileError(path, strings.TrimPrefix(err.Error(), "yaml: "))}
}

// fileError parses an optional "line N: " prefix off msg.
func fileError(path, msg string) *FileError {
	fe := &FileError{Path: path}
	if rest, ok := strings.CutPrefix(msg, "line "); ok {
		if num, text, ok := strings.Cut(rest, ": "); ok {
			if n, err := strconv.Atoi(num); err == nil {
				fe.Line, msg = n, text
			}
		}
	}
	fe.Err = errors.New(friendlier(msg))
	return fe
}

// typeNames says in the user's words where a key was not expected.
var typeNames = map[string]string{
	"profiles.document":         "the top level (want gpus, models or traffic)",
	"profiles.GPU":              "a gpu",
	"profiles.StepCoefficients": "step coefficients",
	"profiles.Model":            "a model",
	"profiles.Traffic":          "a traffic profile",
	"profiles.TrafficClass":     "a traffic class",
}

// friendlier rewrites yaml.v3's "field x not found in type profiles.GPU",
// which names a Go type, as "unknown key "x" in a gpu".
func friendlier(msg string) string {
	rest, ok := strings.CutPrefix(msg, "field ")
	if !ok {
		return msg
	}
	key, typ, ok := strings.Cut(rest, " not found in type ")
	if !ok {
		return msg
	}
	if name, ok := typeNames[typ]; ok {
		typ = name
	}
	return fmt.Sprintf("unknown key %q in %s", key, typ)
}
