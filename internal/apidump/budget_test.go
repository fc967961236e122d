package main

import (
	"os"
	"testing"
	"testing/fstest"
)

// TestAPIBudget holds oauth1 and oauth1/server to their budgets of
// exported identifiers (issue 32.5): a change that adds one must remove or
// merge another, or put a separable feature in a package of its own.
func TestAPIBudget(t *testing.T) {
	root := os.DirFS("../..")
	for _, b := range budgets {
		c, err := countExported(root, b.dir)
		if err != nil {
			t.Fatal(err)
		}
		t.Logf("%s: %d types, %d funcs, %d methods, %d vars, %d consts: %d of %d", b.dir, c.types, c.funcs, c.methods, c.vars, c.consts, c.total(), b.max)
		if c.total() > b.max {
			t.Errorf("%s exports %d identifiers (%d types, %d funcs, %d methods, %d vars, %d consts); its budget is %d: "+
				"pay for an addition by removing or merging a name, make it unexported or a field, or give a separable feature a package of its own",
				b.dir, c.total(), c.types, c.funcs, c.methods, c.vars, c.consts, b.max)
		}
	}
}

// TestCountExported checks the count on a package whose identifiers are
// counted here by hand.
func TestCountExported(t *testing.T) {
	fsys := fstest.MapFS{
		"p/a.go": {Data: []byte(`package p

type T struct{ Field int }        // 1 type; fields are not counted
type I interface{ M(); N() }       // 1 type; interface methods are not counted
type u struct{}                    // unexported
type G[K comparable, V any] struct{} // 1 type

func F()        {} // 1 func
func f()        {}
func (T) M()    {} // 1 method
func (*T) N()   {} // 1 method
func (T) m()    {}
func (u) M()    {} // on an unexported type: not counted
func (G[K, V]) M() {} // 1 method

var V, w, X = 1, 2, 3 // 2 vars
const (
	C1 = iota // 2 consts
	C2
	c3
)
`)},
		"p/b_linux.go": {Data: []byte("package p\n\nfunc OnLinux() {} // 1 func: build constraints do not matter\n")},
		"p/a_test.go":  {Data: []byte("package p\n\nfunc TestX() {}\nvar Y int\n")},
		"p/sub/c.go":   {Data: []byte("package sub\n\nfunc Sub() {}\n")},
		"p/notes.txt":  {Data: []byte("func NotGo() {}")},
	}
	c, err := countExported(fsys, "p")
	if err != nil {
		t.Fatal(err)
	}
	want := apiCount{types: 3, funcs: 2, methods: 3, vars: 2, consts: 2}
	if c != want || c.total() != 12 {
		t.Errorf("countExported = %+v (%d); want %+v (12)", c, c.total(), want)
	}
	if _, err := countExported(fsys, "missing"); err == nil {
		t.Error("countExported of a missing directory: no error")
	}
}
