package bench

// Size benchmarks (issue 21): the cost of signing and verifying should grow
// linearly with a form body's size, and 10,000 parameters should cost about
// the same whatever their names share.

import (
	"fmt"
	"io"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/countersign/countersign/oauth1/server"
)

var formSizes = []struct {
	name string
	size int
}{
	{"1KiB", 1 << 10}, {"16KiB", 16 << 10}, {"256KiB", 256 << 10}, {"1MiB", 1 << 20}, {"4MiB", 4 << 20},
}

// formOfSize is size bytes of form parameters like form64K's: 500 names,
// each repeated, with values that share their first ten encoded bytes.
func formOfSize(size int) string {
	var b strings.Builder
	b.Grow(size + 64)
	for i := 0; b.Len() < size; i++ {
		if i > 0 {
			b.WriteByte('&')
		}
		fmt.Fprintf(&b, "field%d=value+%d%%2C+caf%%C3%%A9+%%26+more", i%500, i)
	}
	return strings.TrimRight(b.String()[:size], "%0123456789ABCDEF") // no cut escape
}

// reportPerByte reports the time per body byte, besides -benchmem's MB/s.
func reportPerByte(b *testing.B, size int) {
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/float64(size), "ns/B")
}

func BenchmarkSignFormSize(b *testing.B) {
	for _, fs := range formSizes {
		c := signCase{name: "Form" + fs.name, method: "POST", url: "https://api.example.com/1/upload", contentType: formType, body: formOfSize(fs.size)}
		b.Run("size="+fs.name, func(b *testing.B) {
			r := c.request(b)
			b.SetBytes(int64(len(c.body)))
			b.ReportAllocs()
			for b.Loop() {
				if err := xConfig.SignAt(r, xToken, xTime, nonce); err != nil {
					b.Fatal(err)
				}
			}
			reportPerByte(b, len(c.body))
		})
	}
}

func BenchmarkVerifyFormSize(b *testing.B) {
	for _, fs := range formSizes {
		c := signCase{name: "Form" + fs.name, method: "POST", url: "https://api.example.com/1/upload", contentType: formType, body: formOfSize(fs.size)}
		b.Run("size="+fs.name, func(b *testing.B) { benchVerifyCase(b, c, len(c.body)) })
	}
}

// benchVerifyCase verifies c, signed once with the X example's credentials,
// over and over.
func benchVerifyCase(b *testing.B, c signCase, size int) {
	signed := c.request(b)
	if err := xConfig.SignAt(signed, xToken, xTime, nonce); err != nil {
		b.Fatal(err)
	}
	v := &server.Verifier{Store: xStore{}, Settings: server.Settings{Nonces: freshNonces{}, Now: func() time.Time { return xTime }}}
	r := received(b, c)
	r.Header.Set("Authorization", signed.Header.Get("Authorization"))
	body := strings.NewReader(c.body)
	b.SetBytes(int64(len(c.body)))
	b.ReportAllocs()
	for b.Loop() {
		if c.body != "" {
			body.Reset(c.body)
			r.Body, r.GetBody, r.ContentLength = io.NopCloser(body), nil, int64(len(c.body))
		}
		if _, err := v.Verify(r); err != nil {
			b.Fatal(err)
		}
	}
	if size > 0 {
		reportPerByte(b, size)
	}
}

const manyParams = 10_000

// manyQuery is manyParams query parameters in a scrambled order: distinct
// short names, names that share their first nine bytes, or one name with
// distinct values.
func manyQuery(shape string) string {
	var b strings.Builder
	for i := range manyParams {
		if i > 0 {
			b.WriteByte('&')
		}
		j := i * 7919 % manyParams // 7919 is prime: a permutation
		switch shape {
		case "distinct":
			fmt.Fprintf(&b, "k%d=v%d", j, j)
		case "prefix":
			fmt.Fprintf(&b, "parameter%05d=v%d", j, j)
		case "repeated":
			fmt.Fprintf(&b, "id=%d", j)
		}
	}
	return b.String()
}

var manyShapes = []string{"distinct", "prefix", "repeated"}

func BenchmarkSignManyParams(b *testing.B) {
	for _, shape := range manyShapes {
		b.Run("shape="+shape, func(b *testing.B) {
			r, err := http.NewRequest("GET", "https://api.example.com/1/search?"+manyQuery(shape), nil)
			if err != nil {
				b.Fatal(err)
			}
			b.ReportAllocs()
			for b.Loop() {
				if err := xConfig.SignAt(r, xToken, xTime, nonce); err != nil {
					b.Fatal(err)
				}
			}
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/manyParams, "ns/param")
		})
	}
}

func BenchmarkVerifyManyParams(b *testing.B) {
	for _, shape := range manyShapes {
		c := signCase{name: shape, method: "GET", url: "https://api.example.com/1/search?" + manyQuery(shape)}
		b.Run("shape="+shape, func(b *testing.B) {
			benchVerifyCase(b, c, 0)
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/manyParams, "ns/param")
		})
	}
}
