package inputerr

import "errors"

// List collects every problem of the user's input, so that a Validate
// reports them all at once rather than the first: add each, then return
// Err.
type List struct{ errs []error }

// Add adds err (ignoring nil), marked as the user's input.
func (l *List) Add(err error) {
	if err != nil {
		l.errs = append(l.errs, New(err))
	}
}

// Field adds Field(field, err) (ignoring a nil err).
func (l *List) Field(field string, err error) { l.Add(Field(field, err)) }

// Fieldf adds Fieldf(field, format, args...).
func (l *List) Fieldf(field, format string, args ...any) {
	l.Add(Fieldf(field, format, args...))
}

// Err is nil when nothing was added, the one problem when one was, else
// every problem joined, one a line (errors.Join).
func (l *List) Err() error {
	switch len(l.errs) {
	case 0:
		return nil
	case 1:
		return l.errs[0]
	}
	return errors.Join(l.errs...)
}
