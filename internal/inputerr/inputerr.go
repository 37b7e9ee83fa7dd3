// Package inputerr is the one error type for a problem with the user's
// input: an option's value, a file that cannot be read, parsed or written.
// A command exits 2 on it, where 1 means a check failed.
//
// A package names the option by its Go field ("Rate"), never by a flag: the
// flags belong to the command, which tells this package once, with
// SetNames, which name the user knows each field by ("--rate").
package inputerr

import (
	"errors"
	"fmt"
	"strconv"
	"sync/atomic"
)

// Error is one problem with the user's input.
type Error struct {
	Field string // the option's field, e.g. "Rate"; "" when no one option is at fault
	File  string // the input file at fault, "" when none
	Line  int    // the 1-based line in File, 0 when not known
	Err   error  // the problem

	// predicate says Err reads as a predicate of the field's name
	// ("--rate must be > 0"); otherwise the name heads it ("--rate: ...").
	predicate bool
}

// Error spells the problem as the user sees it: the field by the name the
// command gave it, then the file and line, then the problem.
func (e *Error) Error() string {
	msg := e.Err.Error()
	if e.File != "" {
		where := e.File
		if e.Line > 0 {
			where += ":" + strconv.Itoa(e.Line)
		}
		msg = where + ": " + msg
	}
	if e.Field == "" {
		return msg
	}
	if e.predicate {
		return Name(e.Field) + " " + msg
	}
	return Name(e.Field) + ": " + msg
}

func (e *Error) Unwrap() error { return e.Err }

// New marks err as the user's input; nil stays nil.
func New(err error) error {
	if err == nil {
		return nil
	}
	var in *Error
	if errors.As(err, &in) {
		return err
	}
	return &Error{Err: err}
}

// Errorf is New(fmt.Errorf(format, args...)).
func Errorf(format string, args ...any) error {
	return &Error{Err: fmt.Errorf(format, args...)}
}

// Field says the option field's value is at fault: "--plot: <err>". nil
// stays nil.
func Field(field string, err error) error {
	if err == nil {
		return nil
	}
	return &Error{Field: field, Err: err}
}

// Fieldf says what is wrong with the option field, the message a predicate
// of its name: Fieldf("Rate", "must be > 0, got %g", r) reads
// "--rate must be > 0, got -1".
func Fieldf(field, format string, args ...any) error {
	return &Error{Field: field, Err: fmt.Errorf(format, args...), predicate: true}
}

// At says line of file is at fault ("traffic.jsonl:3: <err>"); line 0
// names the file alone. nil stays nil.
func At(file string, line int, err error) error {
	if err == nil {
		return nil
	}
	return &Error{File: file, Line: line, Err: err}
}

// Is reports whether err, or an error it wraps or joins, is the user's
// input.
func Is(err error) bool {
	var in *Error
	return errors.As(err, &in)
}

// names maps a field to the name the user knows it by (SetNames).
var names atomic.Pointer[map[string]string]

// SetNames tells Error how to name each field: a command passes its one
// table from field to flag. Fields it does not list show as they are.
func SetNames(m map[string]string) { names.Store(&m) }

// Name is the name the user knows field by: its flag where SetNames gave
// one, else the field itself.
func Name(field string) string {
	if m := names.Load(); m != nil {
		if n, ok := (*m)[field]; ok {
			return n
		}
	}
	return field
}

// Fields lists the fields named by every Error in err's tree, in order,
// once each: what a test or a caller checks instead of a message.
func Fields(err error) []string {
	var out []string
	seen := map[string]bool{}
	var walk func(error)
	walk = func(err error) {
		switch e := err.(type) {
		case nil:
			return
		case *Error:
			if e.Field != "" && !seen[e.Field] {
				seen[e.Field] = true
				out = append(out, e.Field)
			}
			walk(e.Err)
		case interface{ Unwrap() []error }:
			for _, inner := range e.Unwrap() {
				walk(inner)
			}
		case interface{ Unwrap() error }:
			walk(e.Unwrap())
		}
	}
	walk(err)
	return out
}
