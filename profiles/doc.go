// Package profiles holds thinkcap's GPU, model and traffic profiles: the
// embedded defaults (data/*.yaml, compiled into the binary with go:embed) and
// the typed loaders that read a user's own files.
//
// Read first:
//   - gpu.go, model.go, traffic.go: the profile types, the contract every
//     other package uses (field comments give units and sources).
//   - catalog.go: Catalog, Embedded and the lookups (GPU, Model,
//     TrafficProfile) that commands call with a flag's value.
//   - load.go: LoadPath and LoadYAML, for --profiles files and directories.
//   - validate.go: what a valid profile is; every loader runs it.
//   - errors.go: FileError, how a bad file is reported (path:line: problem).
//   - step.go: merging a --step-model override over a GPU's coefficients.
//
// The numbers in data/ come from vendor datasheets and the models'
// config.json; each entry cites its source in a YAML comment.
package profiles
