package sign

import (
	"fmt"
	"io"
	"net/http"
	"strings"

	"github.com/countersign/countersign/cmd/oauth1/internal/explain"
	"github.com/countersign/countersign/oauth1"
	"github.com/countersign/countersign/oauth1/basestring"
	"github.com/countersign/countersign/percent"
)

// Explain writes the breakdown of a signed request: what --explain shows.
// An error is a bug: the library wrote the base string it cannot parse.
func Explain(w io.Writer, s *Signed, m Masker) error {
	b, err := basestring.Parse(s.base)
	if err != nil {
		return err
	}
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
	fmt.Fprintf(w, "Signature:        %s\n", m.Mask(s.signature))
	switch s.cfg.Delivery {
	case oauth1.QueryString:
		fmt.Fprintf(w, "URL:              %s\n", m.Mask(s.req.URL.String()))
	case oauth1.FormBody:
		fmt.Fprintf(w, "Body:             %s\n", m.Mask(s.body))
	default:
		fmt.Fprintf(w, "Authorization:    %s\n", m.Mask(s.auth))
	}
	return nil
}

// A Masker keeps secrets out of the output: the signing key is described,
// not shown, and a PLAINTEXT signature, which is the signing key, is
// replaced wherever it appears.
type Masker struct {
	show                        bool
	consumerSecret, tokenSecret string
	plainSig                    []string // the signature and its encodings, for PLAINTEXT
}

// Masked replaces a secret in the output.
const Masked = "<masked>"

// NewMasker returns the Masker of j's secrets; show (--show-secrets)
// masks nothing.
func NewMasker(j *Job, show bool) Masker {
	return Masker{show: show, consumerSecret: j.ConsumerSecret, tokenSecret: j.TokenSecret}
}

// HideSignature reports whether s's signature must be masked, and
// remembers it if so.
func (m *Masker) HideSignature(s *Signed) bool {
	if m.show || s.cfg.Signer.SignatureMethod() != "PLAINTEXT" || m.consumerSecret == "" && m.tokenSecret == "" {
		return false
	}
	enc := percent.Encode(s.signature)
	m.plainSig = []string{percent.Encode(enc), enc, s.signature}
	return true
}

// Mask replaces the signature HideSignature hid wherever it is in s.
func (m Masker) Mask(s string) string {
	for _, sig := range m.plainSig {
		s = strings.ReplaceAll(s, sig, Masked)
	}
	return s
}

func (m Masker) signingKey(s *Signed) string {
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

// Delivered is what carries the signature: the Authorization
// header, the URL with the query, or the body.
func (s *Signed) Delivered() string {
	switch s.cfg.Delivery {
	case oauth1.QueryString:
		return s.req.URL.String()
	case oauth1.FormBody:
		return s.body
	default:
		return "Authorization: " + s.auth
	}
}

// CurlCommand returns a curl command line that sends the signed request.
func CurlCommand(s *Signed) string {
	r := s.req
	var b strings.Builder
	b.WriteString("curl")
	implied := http.MethodGet
	if s.body != "" {
		implied = http.MethodPost
	}
	if r.Method != implied {
		b.WriteString(" -X " + shellQuote(r.Method))
	}
	for _, name := range []string{"Authorization", "Content-Type"} {
		for _, v := range r.Header.Values(name) {
			b.WriteString(" -H " + shellQuote(name+": "+v))
		}
	}
	for name, vs := range r.Header {
		if name == "Authorization" || name == "Content-Type" {
			continue
		}
		for _, v := range vs {
			b.WriteString(" -H " + shellQuote(name+": "+v))
		}
	}
	if s.body != "" {
		b.WriteString(" --data-raw " + shellQuote(s.body))
	}
	b.WriteString(" " + shellQuote(r.URL.String()))
	return b.String()
}

func shellQuote(s string) string {
	if s != "" && strings.IndexFunc(s, func(r rune) bool {
		return !('a' <= r && r <= 'z' || 'A' <= r && r <= 'Z' || '0' <= r && r <= '9' || strings.ContainsRune("-_./:=@%,+", r))
	}) < 0 {
		return s
	}
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}

// KeyWarnings returns warnings of the signing keys that providers refuse:
// an empty consumer secret, and a token without its secret. Each is a real
// key (OAuth allows empty secrets) but is usually a missing variable. In
// batch mode the request line is a place the secret could have come from.
func KeyWarnings(j *Job, s *Signed, batch bool) []string {
	if strings.HasPrefix(s.cfg.Signer.SignatureMethod(), "RSA-") {
		return nil // the key is the private key; the secrets are not used
	}
	from := func(flag, env, field string) string {
		if batch {
			return field + ", " + flag + " or $" + env
		}
		return flag + " or $" + env
	}
	var ws []string
	if j.ConsumerSecret == "" {
		ws = append(ws, "the consumer secret is empty (no "+from("--consumer-secret", "OAUTH1_CONSUMER_SECRET", "consumer_secret")+"); signed with an empty consumer secret in the key, which a provider that issued a secret refuses")
	}
	if h, _ := s.cfg.Signer.(oauth1.HMAC); j.Token != "" && j.TokenSecret == "" && !h.ConsumerSecretOnly {
		ws = append(ws, "a token but no token secret ("+from("--token-secret", "OAUTH1_TOKEN_SECRET", "token_secret")+"); signed with an empty token secret, which a provider that issued the token with a secret refuses (oauth1 verify calls this empty-token-secret)")
	}
	return ws
}
