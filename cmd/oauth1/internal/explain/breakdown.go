// Package explain takes signature base strings apart for a reader: the
// table of their parameters and where each came from, how a base string
// departs from RFC 5849's normal form, and the flags of oauth1 sign that
// fix a difference. explain, diff, sign --explain and verify print with it.
package explain

import (
	"fmt"
	"io"
	"slices"
	"strconv"
	"strings"
	"text/tabwriter"
	"unicode"
	"unicode/utf8"

	"github.com/countersign/countersign/oauth1/basestring"
	"github.com/countersign/countersign/percent"
)

// Breakdown prints the method, URI and a table of the parameters.
// sources, if not nil, says where each parameter came from.
func Breakdown(w io.Writer, b *basestring.BaseString, sources []string) {
	fmt.Fprintf(w, "Method:   %s\n", b.Method)
	fmt.Fprintf(w, "Base URI: %s\n", b.URI)
	fmt.Fprintf(w, "Parameters (%d, in base string order):\n", len(b.Params))
	tw := tabwriter.NewWriter(w, 0, 8, 2, ' ', 0)
	fmt.Fprintln(tw, "  SOURCE\tNAME\tVALUE (decoded)\tENCODED")
	for i, p := range b.Params {
		src := "protocol"
		switch {
		case sources != nil:
			src = sources[i]
		case !strings.HasPrefix(p.Name, "oauth_"):
			src = "query/body"
		}
		fmt.Fprintf(tw, "  %s\t%s\t%s\t%s\n", src, show(p.Name), show(p.Value), p.RawValue)
	}
	tw.Flush()
}

// show returns s as it reads best in a table: quoted when it is empty, has
// spaces at either end or holds characters that do not print.
func show(s string) string {
	if s == "" || strings.TrimSpace(s) != s || !utf8.ValidString(s) ||
		strings.IndexFunc(s, func(r rune) bool { return !unicode.IsPrint(r) }) >= 0 {
		return strconv.Quote(s)
	}
	return s
}

// Checks compares s with the RFC 5849 normal form of the same base
// string and prints what differs, with the likely cause.
func Checks(w io.Writer, s string, b *basestring.BaseString) {
	ds := basestring.Diff(canonical(b), s)
	if len(ds) == 0 {
		fmt.Fprintln(w, "Checks: the base string is in RFC 5849 normal form (method uppercase, URI normalized, parameters encoded and sorted).")
		return
	}
	fmt.Fprintln(w, "Checks: this base string is not in RFC 5849 normal form (-normal +as given):")
	for _, d := range WithHints(ds) {
		fmt.Fprintln(w, d.String())
	}
}

// canonical rebuilds the base string that b denotes as RFC 5849 §3.4.1
// writes it.
func canonical(b *basestring.BaseString) string {
	var out strings.Builder
	out.WriteString(percent.Encode(strings.ToUpper(b.Method)))
	out.WriteByte('&')
	out.WriteString(percent.Encode(canonicalURI(b.URI)))
	out.WriteByte('&')
	var pairs []string
	for _, p := range b.Params {
		if p.Name == "realm" || p.Name == "oauth_signature" {
			continue
		}
		pairs = append(pairs, percent.Encode(p.Name)+"\x00"+percent.Encode(p.Value))
	}
	// Sorting "name\x00value" sorts by name, then value, as §3.4.1.3.2 does:
	// no encoded byte sorts below NUL.
	slices.Sort(pairs)
	for i, p := range pairs {
		if i > 0 {
			out.WriteString("%26")
		}
		out.WriteString(percent.Encode(strings.Replace(p, "\x00", "=", 1)))
	}
	return out.String()
}

func canonicalURI(u string) string {
	scheme, rest, _ := strings.Cut(u, "://")
	scheme = strings.ToLower(scheme)
	i := strings.IndexAny(rest, "/?#")
	if i < 0 {
		i = len(rest)
	}
	host, path := strings.ToLower(rest[:i]), rest[i:]
	switch {
	case scheme == "http":
		host = strings.TrimSuffix(host, ":80")
	case scheme == "https":
		host = strings.TrimSuffix(host, ":443")
	}
	path, _, _ = strings.Cut(path, "?")
	path, _, _ = strings.Cut(path, "#")
	if path == "" {
		path = "/"
	}
	return scheme + "://" + host + path
}

// Sources says where each parameter of b came from: the query, the form
// body, or the protocol parameters that signing added.
func Sources(b *basestring.BaseString, query, body string) []string {
	type pair struct{ name, value, src string }
	var from []pair
	add := func(raw, src string) {
		for _, kv := range strings.Split(raw, "&") {
			if kv == "" {
				continue
			}
			k, v, _ := strings.Cut(kv, "=")
			k, _ = percent.DecodeForm(k)
			v, _ = percent.DecodeForm(v)
			from = append(from, pair{k, v, src})
		}
	}
	add(query, "query")
	add(body, "body")
	out := make([]string, len(b.Params))
	for i, p := range b.Params {
		out[i] = "protocol"
		for j, f := range from {
			if f.name == p.Name && f.value == p.Value {
				out[i] = f.src
				from = slices.Delete(from, j, j+1)
				break
			}
		}
	}
	return out
}

// HeaderSources labels "header" the parameters of b that srcs calls
// "protocol" but that are header parameters (--header-param, header_params).
func HeaderSources(b *basestring.BaseString, srcs []string, header [][2]string) []string {
	header = slices.Clone(header)
	for i, p := range b.Params {
		if srcs[i] != "protocol" {
			continue
		}
		if k := slices.Index(header, [2]string{p.Name, p.Value}); k >= 0 {
			srcs[i] = "header"
			header = slices.Delete(header, k, k+1)
		}
	}
	return srcs
}
