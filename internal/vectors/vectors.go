// Package vectors loads the request vectors of testdata/vectors for the
// tests of this module, so that each published example is written down
// once. It parses the files and formats them; it uses none of the code
// under test, so what it returns stays independent of it.
//
// A vector file holds "key: value" lines, where a value runs to the end of
// the line and may be empty; blank lines and lines starting with # are
// comments.
package vectors

import (
	"bufio"
	"errors"
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
)

// module is the path of the module whose testdata this package reads.
const module = "github.com/countersign/countersign"

// A Vector is one file of testdata/vectors.
type Vector struct {
	Name   string            // the file name, such as "x-update-1.1.txt"
	Path   string            // the file's absolute path
	Fields map[string]string // the "key: value" lines
}

// Get returns the value of key, or "" if the vector has none.
func (v Vector) Get(key string) string { return v.Fields[key] }

// Has reports whether the vector has a key line, which may be empty.
func (v Vector) Has(key string) bool { _, ok := v.Fields[key]; return ok }

// With returns a copy of v with key set to value; v is unchanged.
func (v Vector) With(key, value string) Vector {
	v.Fields = maps.Clone(v.Fields)
	v.Fields[key] = value
	return v
}

// Header returns the Authorization header of the vector's request: realm,
// then the protocol parameters the vector sets, sorted, with its
// signature, in the layout of the X API documentation. oauth_token and
// oauth_version are left out when the vector's token or version is empty.
// Values are percent-encoded here per RFC 5849 section 3.6.
func (v Vector) Header() string {
	var ps []string
	for _, f := range [][2]string{
		{"callback", "oauth_callback"},
		{"consumer-key", "oauth_consumer_key"},
		{"nonce", "oauth_nonce"},
		{"signature", "oauth_signature"},
		{"signature-method", "oauth_signature_method"},
		{"timestamp", "oauth_timestamp"},
		{"token", "oauth_token"},
		{"verifier", "oauth_verifier"},
		{"version", "oauth_version"},
	} {
		if val := v.Get(f[0]); val != "" {
			ps = append(ps, f[1]+`="`+Encode(val)+`"`)
		}
	}
	slices.Sort(ps)
	if realm := v.Get("realm"); realm != "" {
		ps = append([]string{`realm="` + Encode(realm) + `"`}, ps...)
	}
	return "OAuth " + strings.Join(ps, ", ")
}

// Encode percent-encodes s per RFC 5849 section 3.6: everything but
// ALPHA, DIGIT, "-", ".", "_" and "~", with upper-case hex digits. It is
// written out apart from package percent, so that tests can build expected
// base strings without the code under test.
func Encode(s string) string {
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		c := s[i]
		if 'A' <= c && c <= 'Z' || 'a' <= c && c <= 'z' || '0' <= c && c <= '9' || strings.IndexByte("-._~", c) >= 0 {
			b.WriteByte(c)
		} else {
			fmt.Fprintf(&b, "%%%02X", c)
		}
	}
	return b.String()
}

var root struct {
	once sync.Once
	dir  string
	err  error
}

// Dir returns the absolute path of testdata/vectors in the module root,
// found by walking up from the working directory to the go.mod of the
// module.
func Dir() (string, error) {
	root.once.Do(func() {
		dir, err := os.Getwd()
		if err != nil {
			root.err = err
			return
		}
		for {
			if b, err := os.ReadFile(filepath.Join(dir, "go.mod")); err == nil && modulePath(string(b)) == module {
				root.dir = filepath.Join(dir, "testdata", "vectors")
				return
			}
			parent := filepath.Dir(dir)
			if parent == dir {
				root.err = errors.New("vectors: no go.mod of " + module + " above the working directory")
				return
			}
			dir = parent
		}
	})
	return root.dir, root.err
}

func modulePath(gomod string) string {
	for _, line := range strings.Split(gomod, "\n") {
		if p, ok := strings.CutPrefix(strings.TrimSpace(line), "module "); ok {
			return strings.Trim(strings.TrimSpace(p), `"`)
		}
	}
	return ""
}

// Load reads testdata/vectors/NAME.txt.
func Load(name string) (Vector, error) {
	dir, err := Dir()
	if err != nil {
		return Vector{}, err
	}
	return parseFile(filepath.Join(dir, name+".txt"))
}

// MustLoad is Load that panics on an error, for the package-level
// fixtures of tests, as regexp.MustCompile is for package-level patterns.
func MustLoad(name string) Vector {
	v, err := Load(name)
	if err != nil {
		panic(err)
	}
	return v
}

// All reads every vector, in file name order.
func All() ([]Vector, error) {
	dir, err := Dir()
	if err != nil {
		return nil, err
	}
	files, err := filepath.Glob(filepath.Join(dir, "*.txt"))
	if err != nil {
		return nil, err
	}
	if len(files) == 0 {
		return nil, errors.New("vectors: no vectors in " + dir)
	}
	vs := make([]Vector, 0, len(files))
	for _, f := range files {
		v, err := parseFile(f)
		if err != nil {
			return nil, err
		}
		vs = append(vs, v)
	}
	return vs, nil
}

func parseFile(path string) (Vector, error) {
	fh, err := os.Open(path)
	if err != nil {
		return Vector{}, fmt.Errorf("vectors: %w", err)
	}
	defer fh.Close()
	v := Vector{Name: filepath.Base(path), Path: path, Fields: map[string]string{}}
	sc := bufio.NewScanner(fh)
	sc.Buffer(nil, 1<<20)
	for n := 1; sc.Scan(); n++ {
		line := sc.Text()
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		k, val, ok := strings.Cut(line, ":")
		if !ok {
			return Vector{}, fmt.Errorf("vectors: %s:%d: malformed line %q", v.Name, n, line)
		}
		if _, dup := v.Fields[k]; dup {
			return Vector{}, fmt.Errorf("vectors: %s:%d: duplicate key %q", v.Name, n, k)
		}
		v.Fields[k] = strings.TrimPrefix(val, " ")
	}
	if err := sc.Err(); err != nil {
		return Vector{}, fmt.Errorf("vectors: %s: %w", v.Name, err)
	}
	return v, nil
}
