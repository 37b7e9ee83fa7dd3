package main

import (
	"io"
	"os"
	"path/filepath"

	"github.com/spf13/cobra"
	"github.com/spf13/cobra/doc"

	"github.com/thinkcap/thinkcap/internal/inputerr"
)

// newGendocsCmd writes the CLI reference, one markdown page per command,
// from the commands themselves (`make docs` writes docs/cli). It is hidden:
// it documents thinkcap rather than being part of it.
func newGendocsCmd() *cobra.Command {
	return &cobra.Command{
		Use:    "gendocs DIR",
		Short:  "Write the CLI reference as markdown into DIR",
		Hidden: true,
		Args:   cobra.ExactArgs(1),
		RunE: func(_ *cobra.Command, args []string) error {
			return writeCLIReference(args[0])
		},
	}
}

// writeCLIReference replaces DIR's markdown pages with the reference of a
// fresh root command: not the running one, which cobra's Execute gave a
// completion command and a version flag, so that the pages are the same
// bytes from `make docs` and from the test that checks them. Pages carry
// no generation date for the same reason.
func writeCLIReference(dir string) error {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return inputerr.New(err)
	}
	old, err := filepath.Glob(filepath.Join(dir, "*.md"))
	if err != nil {
		return err
	}
	for _, f := range old {
		if err := os.Remove(f); err != nil {
			return err
		}
	}
	root := newRootCmd(io.Discard, io.Discard)
	disableAutoGenTag(root)
	return doc.GenMarkdownTree(root, dir)
}

func disableAutoGenTag(c *cobra.Command) {
	c.DisableAutoGenTag = true
	for _, sub := range c.Commands() {
		disableAutoGenTag(sub)
	}
}
