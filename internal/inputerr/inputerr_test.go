package inputerr

import (
	"errors"
	"fmt"
	"testing"
)

// TestSpelling: an error names its field by the command's name for it,
// the file and line where given, and passes through fmt's and errors'
// wrapping.
func TestSpelling(t *testing.T) {
	SetNames(map[string]string{"Rate": "--rate", "Plot": "--plot"})
	defer SetNames(nil)
	cases := []struct {
		err  error
		want string
	}{
		{Fieldf("Rate", "must be > 0, got %g", -1.0), "--rate must be > 0, got -1"},
		{Field("Plot", errors.New("no such directory")), "--plot: no such directory"},
		{Field("Unlisted", errors.New("bad")), "Unlisted: bad"},
		{At("t.jsonl", 3, errors.New("status: not a number")), "t.jsonl:3: status: not a number"},
		{At("t.yaml", 0, errors.New("empty")), "t.yaml: empty"},
		{&Error{Field: "Plot", File: "p.png", Err: errors.New("denied")}, "--plot: p.png: denied"},
		{Errorf("no %s", "runs"), "no runs"},
		{fmt.Errorf("size: %w", Fieldf("Rate", "is required")), "size: --rate is required"},
	}
	for _, c := range cases {
		if got := c.err.Error(); got != c.want {
			t.Errorf("got %q, want %q", got, c.want)
		}
		if !Is(c.err) {
			t.Errorf("%q: not the user's input", c.err)
		}
	}
}

// TestNil: the wrapping constructors keep nil nil, so a caller returns
// New(f()) without an if.
func TestNil(t *testing.T) {
	if New(nil) != nil || Field("Rate", nil) != nil || At("f", 1, nil) != nil {
		t.Fatal("nil wrapped as an error")
	}
	if Is(errors.New("plain")) || Is(nil) {
		t.Fatal("a plain error taken for input")
	}
	in := Fieldf("Rate", "is required")
	if New(in) != in {
		t.Fatal("New wrapped an input error twice")
	}
}

// TestList: a List reports every problem, each still findable with
// errors.As and its field readable.
func TestList(t *testing.T) {
	var l List
	if l.Err() != nil {
		t.Fatal("an empty list is an error")
	}
	l.Fieldf("Rate", "must be > 0")
	l.Field("Plot", nil)
	l.Add(errors.New("two models"))
	err := l.Err()
	if got, want := err.Error(), "Rate must be > 0\ntwo models"; got != want {
		t.Fatalf("got %q, want %q", got, want)
	}
	var in *Error
	if !errors.As(err, &in) || in.Field != "Rate" {
		t.Fatalf("errors.As: %+v", in)
	}
	if got := Fields(fmt.Errorf("wrapped: %w", err)); len(got) != 1 || got[0] != "Rate" {
		t.Fatalf("Fields: %v", got)
	}
	var one List
	one.Fieldf("Rate", "is required")
	if _, ok := one.Err().(*Error); !ok {
		t.Fatalf("one problem is not returned as itself: %T", one.Err())
	}
}
