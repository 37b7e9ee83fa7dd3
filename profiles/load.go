package profiles

import (
	"bytes"
	"embed"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"go.yaml.in/yaml/v3"
)

// dataFS holds the built-in profiles; every *.yaml under data/ is loaded.
//
//go:embed data
var dataFS embed.FS

// document is one YAML document of a profile file. The three lists let one
// file mix kinds, so a user can keep a cluster's GPU, model and traffic
// together.
type document struct {
	GPUs     []GPU     `yaml:"gpus"`
	Models   []Model   `yaml:"models"`
	Traffic  []Traffic `yaml:"traffic"`
	StepFits []StepFit `yaml:"step_fits"`
	// ModelError is the step model's measured error (model-error.yaml).
	ModelError *ModelError `yaml:"model_error"`
}

// LoadPath adds the profiles in a YAML file, or in every *.yaml and *.yml
// file of a directory (not its subdirectories), to c. Entries replace those
// of c with the same name (case-insensitively), so a user's file can
// override an embedded profile. Every entry is validated; on any error c is
// left unchanged and the error lists every problem, each naming file:line.
func (c *Catalog) LoadPath(path string) error {
	files, err := yamlFiles(path)
	if err != nil {
		return err
	}
	var l loader
	for _, f := range files {
		data, err := os.ReadFile(f)
		if err != nil {
			l.errs = append(l.errs, err)
			continue
		}
		l.load(f, data)
	}
	return l.commit(c)
}

// LoadYAML adds the profiles of one YAML file's contents to c, as LoadPath
// does for a file; name identifies it in errors.
func (c *Catalog) LoadYAML(name string, data []byte) error {
	var l loader
	l.load(name, data)
	return l.commit(c)
}

// loadFS loads every *.yaml file under root in fsys (the embedded data).
func (c *Catalog) loadFS(fsys fs.FS, root string) error {
	l := loader{builtin: true}
	err := fs.WalkDir(fsys, root, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() || !isYAML(p) {
			return err
		}
		data, err := fs.ReadFile(fsys, p)
		if err != nil {
			return err
		}
		l.load(p, data)
		return nil
	})
	if err != nil {
		return err
	}
	return l.commit(c)
}

// yamlFiles returns path itself when it is a file (whatever its extension:
// the user named it), or the YAML files directly inside a directory.
func yamlFiles(path string) ([]string, error) {
	info, err := os.Stat(path)
	if err != nil {
		return nil, err
	}
	if !info.IsDir() {
		return []string{path}, nil
	}
	entries, err := os.ReadDir(path)
	if err != nil {
		return nil, err
	}
	var files []string
	for _, e := range entries { // sorted by name, so loading is deterministic
		// Skip hidden files: editors leave .swp-style and backup files.
		if !e.IsDir() && !strings.HasPrefix(e.Name(), ".") && isYAML(e.Name()) {
			files = append(files, filepath.Join(path, e.Name()))
		}
	}
	if len(files) == 0 {
		return nil, fmt.Errorf("%s: no *.yaml or *.yml files in the directory", path)
	}
	return files, nil
}

func isYAML(name string) bool {
	ext := strings.ToLower(filepath.Ext(name))
	return ext == ".yaml" || ext == ".yml"
}

// loader stages the profiles of one load call, so that a failed load leaves
// the catalog unchanged, and catches a name defined twice within it.
type loader struct {
	staged  Catalog
	defined map[string]*FileError // kind + "/" + lower-case name -> where
	errs    []error
	// builtin: the embedded profiles, whose GPUs all take the corpus step
	// fits; a user's GPU takes them only when it has no step block.
	builtin bool
}

// load parses one file's bytes into l.staged, collecting every problem.
func (l *loader) load(path string, data []byte) {
	// A second decoder walks the same documents as yaml.Nodes to learn the
	// line of each entry: yaml.Node.Decode cannot reject unknown keys, so
	// the typed decode has to come from the strict decoder.
	typed := yaml.NewDecoder(bytes.NewReader(data))
	typed.KnownFields(true)
	nodes := yaml.NewDecoder(bytes.NewReader(data))
	count := 0
	for {
		var doc document
		if err := typed.Decode(&doc); err != nil {
			if !errors.Is(err, io.EOF) {
				l.errs = append(l.errs, yamlErrors(path, err)...)
				return
			}
			break
		}
		var node yaml.Node
		if err := nodes.Decode(&node); err != nil {
			// Unreachable: the strict decoder just parsed these bytes.
			l.errs = append(l.errs, yamlErrors(path, err)...)
			return
		}
		lines := entryLines(&node)
		at := func(key string, i int) *FileError {
			fe := &FileError{Path: path}
			if i < len(lines[key]) {
				fe.Line = lines[key][i]
			}
			return fe
		}
		for i := range doc.GPUs {
			g := &doc.GPUs[i]
			if l.accept(at("gpus", i), "gpu", g.Name, g.problems()) {
				put(&l.staged.GPUs, g.Name, *g)
			}
		}
		for i := range doc.Models {
			m := &doc.Models[i]
			if l.accept(at("models", i), "model", m.Name, m.problems()) {
				put(&l.staged.Models, m.Name, *m)
			}
		}
		for i := range doc.Traffic {
			t := &doc.Traffic[i]
			if l.accept(at("traffic", i), "traffic", t.Name, t.problems()) {
				put(&l.staged.Traffic, t.Name, *t)
			}
		}
		for i := range doc.StepFits {
			f := &doc.StepFits[i]
			if l.accept(at("step_fits", i), "step fit", f.Generation, f.problems()) {
				put(&l.staged.StepFits, f.Generation, *f)
			}
		}
		if doc.ModelError != nil {
			if l.accept(at("model_error", 0), "model error", "model_error", doc.ModelError.problems()) {
				l.staged.ModelError = doc.ModelError
			}
			count++
		}
		count += len(doc.GPUs) + len(doc.Models) + len(doc.Traffic) + len(doc.StepFits)
	}
	if count == 0 {
		// Most likely a misplaced file; an empty profile file is never useful.
		l.errs = append(l.errs, &FileError{Path: path,
			Err: errors.New("no profiles: expected a top-level gpus:, models:, traffic: or step_fits: list, or model_error:")})
	}
}

// accept records an entry's problems at its location, or a second definition
// of its name within this load, and reports whether the entry is good.
func (l *loader) accept(at *FileError, kind, name string, problems []error) bool {
	for _, p := range problems {
		l.errs = append(l.errs, &FileError{Path: at.Path, Line: at.Line, Err: p})
	}
	if len(problems) > 0 {
		return false
	}
	key := kind + "/" + strings.ToLower(name)
	if prev, ok := l.defined[key]; ok {
		l.errs = append(l.errs, &FileError{Path: at.Path, Line: at.Line,
			Err: fmt.Errorf("%s %q is already defined at %s", kind, name, prev.where())})
		return false
	}
	if l.defined == nil {
		l.defined = make(map[string]*FileError)
	}
	l.defined[key] = at
	return true
}

// commit adds the staged profiles to c, or returns every problem found.
func (l *loader) commit(c *Catalog) error {
	if len(l.errs) > 0 {
		return errors.Join(l.errs...)
	}
	for k, v := range l.staged.StepFits {
		put(&c.StepFits, k, v)
	}
	if l.staged.ModelError != nil {
		c.ModelError = l.staged.ModelError
	}
	for k, v := range l.staged.GPUs {
		v.fitGoverned = l.builtin || v.Step == (StepCoefficients{})
		if !v.fitGoverned {
			v.StepSource = "the profile's own step block"
		}
		put(&c.GPUs, k, v)
	}
	// New fits or new GPUs: every GPU the fits govern takes its
	// generation's, from its own block.
	for k, g := range c.GPUs {
		if g.fitGoverned {
			if g.StepPrior != (StepCoefficients{}) {
				g.Step = g.StepPrior
			}
			c.applyStepFit(&g)
			c.GPUs[k] = g
		}
	}
	for k, g := range c.GPUs {
		if g.Step.EagerLaunchUs == 0 {
			g.Step.EagerLaunchUs = DefaultEagerLaunchUs
			c.GPUs[k] = g
		}
	}
	for k, v := range l.staged.Models {
		put(&c.Models, k, v)
	}
	for k, v := range l.staged.Traffic {
		put(&c.Traffic, k, v)
	}
	return nil
}

// entryLines maps each top-level list key of a document node to the line of
// each of its items. A document the lines cannot be read from (merge keys,
// an alias in place of the list) yields fewer lines; errors then name the
// file only.
func entryLines(doc *yaml.Node) map[string][]int {
	lines := make(map[string][]int)
	if doc.Kind != yaml.DocumentNode || len(doc.Content) == 0 {
		return lines
	}
	root := doc.Content[0]
	if root.Kind != yaml.MappingNode {
		return lines
	}
	for i := 0; i+1 < len(root.Content); i += 2 {
		key, list := root.Content[i], root.Content[i+1]
		if list.Kind != yaml.SequenceNode {
			continue
		}
		for _, item := range list.Content {
			if isNull(item) {
				continue // go.yaml.in/yaml/v3 drops null items from a []struct
			}
			lines[key.Value] = append(lines[key.Value], item.Line)
		}
	}
	return lines
}

// isNull reports whether n (after aliases) is a null scalar.
func isNull(n *yaml.Node) bool {
	for depth := 0; n.Kind == yaml.AliasNode && n.Alias != nil && depth < 100; depth++ {
		n = n.Alias
	}
	return n.Kind == yaml.ScalarNode && n.ShortTag() == "!!null"
}
