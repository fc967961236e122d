package main

import (
	"fmt"
	"strings"

	"github.com/countersign/countersign/cmd/oauth1/internal/explain"
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
	s = explain.BaseStringArg(s)
	b, err := basestring.Parse(s)
	if err != nil {
		return c.errorf(exitUsage, "%v", err)
	}
	explain.Breakdown(c.stdout, b, nil)
	fmt.Fprintln(c.stdout)
	explain.Checks(c.stdout, s, b)
	return exitOK
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
	explain.Breakdown(w, b, explain.HeaderSources(b, explain.Sources(b, s.query, s.formBody), s.header))
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
