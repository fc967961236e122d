package main

import (
	"fmt"
	"io"
	"slices"
	"strconv"
	"strings"
	"text/tabwriter"
	"unicode"
	"unicode/utf8"

	"github.com/countersign/countersign/oauth1"
	"github.com/countersign/countersign/oauth1/basestring"
	"github.com/countersign/countersign/percent"
)

func (c *cmd) explain(args []string) int {
	fs := c.newFlags("explain", "BASE_STRING\n\nBASE_STRING \"-\" reads the base string from stdin. A provider's problem report\n"+
		"(oauth_problem=...&oauth_signature_base_string=...) is accepted too.")
	pos, code, ok := fs.parse(args)
	if !ok {
		return code
	}
	switch len(pos) {
	case 0:
		return fs.usageError("missing BASE_STRING")
	case 1:
	default:
		return fs.usageError("extra argument %.40q after BASE_STRING", pos[1])
	}
	s, err := c.readArg(pos[0])
	if err != nil {
		return c.errorf(exitUsage, "reading stdin: %v", err)
	}
	s = baseStringArg(s)
	b, err := basestring.Parse(s)
	if err != nil {
		return c.errorf(exitUsage, "%v", err)
	}
	writeBreakdown(c.stdout, b, nil)
	fmt.Fprintln(c.stdout)
	writeChecks(c.stdout, s, b)
	return exitOK
}

// writeBreakdown prints the method, URI and a table of the parameters.
// sources, if not nil, says where each parameter came from.
func writeBreakdown(w io.Writer, b *basestring.BaseString, sources []string) {
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

// writeChecks compares s with the RFC 5849 normal form of the same base
// string and prints what differs, with the likely cause.
func writeChecks(w io.Writer, s string, b *basestring.BaseString) {
	ds := basestring.Diff(canonical(b), s)
	if len(ds) == 0 {
		fmt.Fprintln(w, "Checks: the base string is in RFC 5849 normal form (method uppercase, URI normalized, parameters encoded and sorted).")
		return
	}
	fmt.Fprintln(w, "Checks: this base string is not in RFC 5849 normal form (-normal +as given):")
	for _, d := range withHints(ds) {
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

// sources says where each parameter of b came from: the query, the form
// body, or the protocol parameters that signing added.
func sources(b *basestring.BaseString, query, body string) []string {
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

// headerSources labels "header" the parameters of b that srcs calls
// "protocol" but that are header parameters (--header-param, header_params).
func headerSources(b *basestring.BaseString, srcs []string, header [][2]string) []string {
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

// printSigned prints the breakdown of a signed request: what --explain shows.
func (c *cmd) printSigned(s *signed, m masker) {
	b, err := basestring.Parse(s.base)
	if err != nil {
		// The library wrote this base string; failing to parse it is a bug.
		fmt.Fprintf(c.stderr, "oauth1: internal error: %v\n", err)
		return
	}
	w := c.stdout
	writeBreakdown(w, b, headerSources(b, sources(b, s.query, s.formBody), s.header))
	if ct := s.req.Header.Get("Content-Type"); s.formBody == "" && s.body != "" && s.cfg.Delivery != oauth1.FormBody {
		// The commonest surprise: only form bodies are signed (§3.4.1.3.1).
		if s.cfg.BodyHash == 0 {
			fmt.Fprintf(w, "Note: the body is not signed: its Content-Type %q is not application/x-www-form-urlencoded; --body-hash covers it with oauth_body_hash.\n", ct)
		} else {
			fmt.Fprintf(w, "Note: the body (Content-Type %q) is covered by oauth_body_hash, not by the parameters.\n", ct)
		}
	}
	fmt.Fprintf(w, "\nSignature base string:\n%s\n\n", s.base)
	fmt.Fprintf(w, "Signature method: %s\n", s.cfg.Signer.SignatureMethod())
	fmt.Fprintf(w, "Signing key:      %s\n", m.signingKey(s))
	fmt.Fprintf(w, "Signature:        %s\n", m.mask(s.signature))
	switch s.cfg.Delivery {
	case oauth1.QueryString:
		fmt.Fprintf(w, "URL:              %s\n", m.mask(s.req.URL.String()))
	case oauth1.FormBody:
		fmt.Fprintf(w, "Body:             %s\n", m.mask(s.body))
	default:
		fmt.Fprintf(w, "Authorization:    %s\n", m.mask(s.auth))
	}
}

// A masker keeps secrets out of the output: the signing key is described,
// not shown, and a PLAINTEXT signature, which is the signing key, is
// replaced wherever it appears.
type masker struct {
	show                        bool
	consumerSecret, tokenSecret string
	plainSig                    []string // the signature and its encodings, for PLAINTEXT
}

const masked = "<masked>"

func (c *cmd) masker(j *job, show bool) masker {
	return masker{show: show, consumerSecret: j.ConsumerSecret, tokenSecret: j.TokenSecret}
}

// hideSignature reports whether s's signature must be masked, and
// remembers it if so.
func (m *masker) hideSignature(s *signed) bool {
	if m.show || s.cfg.Signer.SignatureMethod() != "PLAINTEXT" || m.consumerSecret == "" && m.tokenSecret == "" {
		return false
	}
	enc := percent.Encode(s.signature)
	m.plainSig = []string{percent.Encode(enc), enc, s.signature}
	return true
}

func (m masker) mask(s string) string {
	for _, sig := range m.plainSig {
		s = strings.ReplaceAll(s, sig, masked)
	}
	return s
}

func (m masker) signingKey(s *signed) string {
	if _, ok := s.cfg.Signer.(oauth1.RSA); ok {
		return "the RSA private key (the shared secrets are not used)"
	}
	if h, ok := s.cfg.Signer.(oauth1.HMAC); ok && h.ConsumerSecretOnly {
		if m.show {
			return percent.Encode(m.consumerSecret) + "   (the consumer secret alone, no \"&\": --consumer-secret-only)"
		}
		return fmt.Sprintf("<consumer secret, %d bytes encoded>   (alone, no \"&\": --consumer-secret-only; secrets masked, --show-secrets shows them)", len(percent.Encode(m.consumerSecret)))
	}
	if m.show {
		return percent.Encode(m.consumerSecret) + "&" + percent.Encode(m.tokenSecret)
	}
	describe := func(what, secret string) string {
		if secret == "" {
			return ""
		}
		return fmt.Sprintf("<%s, %d bytes encoded>", what, len(percent.Encode(secret)))
	}
	return describe("consumer secret", m.consumerSecret) + "&" + describe("token secret", m.tokenSecret) +
		"   (secrets masked; --show-secrets shows them)"
}
