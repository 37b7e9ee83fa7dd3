package report

import (
	"fmt"
	"io"

	"github.com/olekukonko/tablewriter"
	"github.com/olekukonko/tablewriter/tw"

	"github.com/thinkcap/thinkcap/logstats"
)

// The reports' tables are built the one way this file gives: a writer per
// report (writeReport) prints its sections, each a table made by
// newAlignedTable (or its label-column forms) and filled by writeRows; the
// per-class reports list their classes, then the overall row (classRows).

// writeReport writes a report through an errWriter, so that its lines can
// be printed with plain Fprintf calls and checked once at the end, and names
// the report in any error: "write drift table: …".
func writeReport(w io.Writer, name string, write func(io.Writer) error) error {
	ew := &errWriter{w: w}
	if err := write(ew); err != nil {
		return fmt.Errorf("%s: %w", name, err)
	}
	if ew.err != nil {
		return fmt.Errorf("%s: %w", name, ew.err)
	}
	return nil
}

// newAlignedTable returns a table in the reports' style: the header keeps
// its case (tablewriter would upper-case "ms" and "p50") and each column,
// header and rows alike, is aligned as align says.
func newAlignedTable(w io.Writer, align []tw.Align, header ...string) *tablewriter.Table {
	t := tablewriter.NewTable(w,
		tablewriter.WithHeaderAutoFormat(tw.Off),
		tablewriter.WithHeaderAlignmentConfig(tw.CellAlignment{PerColumn: align}),
		tablewriter.WithRowAlignmentConfig(tw.CellAlignment{PerColumn: align}),
	)
	t.Header(header)
	return t
}

// newTable returns a table with a header whose first column holds labels,
// left-aligned, and the others numbers, right-aligned so digits line up.
func newTable(w io.Writer, header ...string) *tablewriter.Table {
	return newLabeledTable(w, 1, header...)
}

// newLabeledTable is newTable with the first labels columns left-aligned
// (names) and the others right-aligned (numbers).
func newLabeledTable(w io.Writer, labels int, header ...string) *tablewriter.Table {
	align := make([]tw.Align, len(header))
	for i := range align {
		align[i] = tw.AlignRight
		if i < labels {
			align[i] = tw.AlignLeft
		}
	}
	return newAlignedTable(w, align, header...)
}

// NewLabeledTable is a table in the report's style with the first labels
// columns left-aligned text and the others right-aligned numbers, for
// packages that print tables of their own.
func NewLabeledTable(w io.Writer, labels int, header ...string) *tablewriter.Table {
	return newLabeledTable(w, labels, header...)
}

// NewAlignedTable is a table in the report's style aligned column by column
// as align says, for packages whose tables mix the columns otherwise.
func NewAlignedTable(w io.Writer, align []tw.Align, header ...string) *tablewriter.Table {
	return newAlignedTable(w, align, header...)
}

// writeRows appends rows to t and renders it.
func writeRows(t *tablewriter.Table, rows [][]string) error {
	for _, r := range rows {
		if err := t.Append(r); err != nil {
			return err
		}
	}
	return t.Render()
}

// classRow is one class of a per-class report, or its overall row, with the
// labels its table prints.
type classRow[T any] struct {
	mode, category string
	v              *T
}

// classRows lists a report's classes (of gives each one's mode, category
// and figures), then the overall figures, labelled "overall".
func classRows[C, T any](classes []C, of func(*C) (mode, category string, v *T), overall *T) []classRow[T] {
	rows := make([]classRow[T], 0, len(classes)+1)
	for i := range classes {
		mode, category, v := of(&classes[i])
		rows = append(rows, classRow[T]{logstats.ClassLabel(mode), logstats.ClassLabel(category), v})
	}
	return append(rows, classRow[T]{"overall", "", overall})
}

// errWriter remembers the first write error so that the report can be
// written with plain Fprintf calls and checked once at the end.
type errWriter struct {
	w   io.Writer
	err error
}

// Write writes p unless an earlier write failed.
func (e *errWriter) Write(p []byte) (int, error) {
	if e.err != nil {
		return 0, e.err
	}
	n, err := e.w.Write(p)
	if err != nil {
		e.err = err
	}
	return n, err
}
