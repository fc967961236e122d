// Package quirks names the provider quirks that explain a refused request:
// what a provider does otherwise than RFC 5849, and how the library
// expresses it. oauth1 diff checks the differences between two base
// strings (Diff); oauth1 verify checks the request itself and its
// signature (Request).
package quirks

import (
	"crypto/rsa"
	"fmt"
	"io"
	"net/http"
	"slices"
	"strings"

	"github.com/countersign/countersign/cmd/oauth1/internal/sign"
	"github.com/countersign/countersign/cmd/oauth1/internal/terminal"
	"github.com/countersign/countersign/oauth1"
	"github.com/countersign/countersign/oauth1/basestring"
	"github.com/countersign/countersign/oauth1/providers"
	"github.com/countersign/countersign/percent"
)

// A Quirk is a known deviation of a provider that matches a refusal.
type Quirk struct {
	name     string // stable, for scripts and tests: "netsuite-realm", ...
	provider string
	text     string // what matched, and the fix
}

// The quirks' names.
const (
	quirkWooKey      = "woocommerce-legacy-key"
	quirkNetSuiteRlm = "netsuite-realm"
	quirkRole        = "netsuite-role"
	quirkRealmSigned = "realm-signed"
)

// Print writes the quirks qs, if any, after a blank line.
func Print(w io.Writer, qs []Quirk) {
	for i, q := range qs {
		if i == 0 {
			fmt.Fprintln(w)
		}
		fmt.Fprintf(w, "Known quirk (%s, %s): %s\n", q.provider, q.name, terminal.Safe(q.text))
	}
}

// Diff names the quirks that the differences ds between want, the
// provider's base string, and got, the client's, match. When ds is empty,
// the base strings are equal and the quirks are those of the key or of
// the header, named from the base string URI.
func Diff(ds []basestring.Difference, want string) []Quirk {
	var qs []Quirk
	w, err := basestring.Parse(want)
	uri := ""
	if err == nil {
		uri = w.URI
	}
	if len(ds) == 0 {
		if wooLegacy(uri) {
			qs = append(qs, wooKeyQuirk(true))
		}
		if realm, ok := netSuiteRealm(uri); ok {
			qs = append(qs, Quirk{quirkNetSuiteRlm, "NetSuite", "NetSuite refuses a request whose realm is not the account id " +
				"in uppercase with \"_\": for this host the Authorization header must carry realm=\"" + realm + "\" " +
				"(providers.NetSuite sets it; the realm is not signed, so the base strings cannot show it)."})
		}
		return qs
	}
	for _, d := range ds {
		switch {
		case d.Name == "realm" && (d.Kind == basestring.RealmIncluded || d.Kind == basestring.MissingParam || d.Kind == basestring.ExtraParam):
			side := "the client signed realm and the provider did not: sign it never (every Config does so); the realm goes in the header only."
			if d.Want != "" {
				side = "the provider signs realm, which RFC 5849 §3.4.1.3.1 excludes; no setting of this library signs it, and a provider that does is refusing RFC requests."
			}
			qs = append(qs, Quirk{quirkRealmSigned, "some providers", side})
		case d.Name == "realm" && d.Kind == basestring.ValueDiffers && sameRealm(d.Want, d.Got):
			qs = append(qs, Quirk{quirkNetSuiteRlm, "NetSuite", "the realms differ in case or in \"-\" for \"_\" only: NetSuite wants the account id " +
				"in uppercase with \"_\" (providers.NetSuiteRealm)."})
		case d.Name == "role" && (d.Kind == basestring.MissingParam || d.Kind == basestring.ExtraParam) && isNetSuite(uri):
			qs = append(qs, roleQuirk(d.Kind == basestring.MissingParam))
		}
	}
	return qs
}

// sameRealm reports whether two realms differ only as NetSuite's account
// id forms do: in case, or in "-" for "_".
func sameRealm(a, b string) bool {
	norm := func(s string) string { return providers.NetSuiteRealm(strings.Trim(s, `"`)) }
	return a != b && norm(a) == norm(b)
}

func roleQuirk(missing bool) Quirk {
	text := "the client sent role without signing it"
	if !missing {
		text = "the client signed a role parameter the provider did not receive"
	}
	return Quirk{quirkRole, "NetSuite", text + ": NetSuite's request token step (/rest/requesttoken) signs role with the protocol parameters; " +
		"send it as one, in Config.Params (oauth1.Param{Name: \"role\", Value: ...}), which is signed and sent in the Authorization header."}
}

func wooKeyQuirk(legacyURI bool) Quirk {
	if legacyURI {
		return Quirk{quirkWooKey, "WooCommerce", "WooCommerce's legacy REST API v1 and v2 (/wc-api/v1, /wc-api/v2) key the HMAC with the consumer secret alone, " +
			"without the \"&\" of RFC 5849 §3.4.2: sign with oauth1.HMAC{ConsumerSecretOnly: true} (its legacy v3 and /wp-json/wc/ follow the RFC)."}
	}
	return Quirk{quirkWooKey, "WooCommerce", "the client keyed the HMAC with the consumer secret alone, as WooCommerce's legacy REST API v1 and v2 " +
		"(/wc-api/v1, /wc-api/v2) want and no other API accepts: drop HMAC.ConsumerSecretOnly for this URL."}
}

// wooLegacy reports whether a base string URI is one of WooCommerce's
// legacy REST API v1 or v2.
func wooLegacy(uri string) bool {
	return strings.Contains(uri, "/wc-api/v1/") || strings.Contains(uri, "/wc-api/v2/") ||
		strings.HasSuffix(uri, "/wc-api/v1") || strings.HasSuffix(uri, "/wc-api/v2")
}

// isNetSuite reports whether a base string URI is one of NetSuite's.
func isNetSuite(uri string) bool {
	_, rest, _ := strings.Cut(uri, "://")
	host, _, _ := strings.Cut(rest, "/")
	return strings.HasSuffix(strings.ToLower(host), ".netsuite.com")
}

// netSuiteRealm returns the realm NetSuite wants for a URL of one of its
// account hosts (ACCOUNT.suitetalk.api.netsuite.com, ...), or false.
func netSuiteRealm(uri string) (string, bool) {
	if !isNetSuite(uri) {
		return "", false
	}
	_, rest, _ := strings.Cut(uri, "://")
	host, _, _ := strings.Cut(strings.ToLower(rest), "/")
	host, _, _ = strings.Cut(host, ":")
	account, _, _ := strings.Cut(host, ".")
	if account == "system" || account == "rest" {
		return "", false // the account-less hosts
	}
	return providers.NetSuiteRealm(account), true
}

// Secrets are what the user gave to verify a request with.
type Secrets struct {
	ConsumerSecret, TokenSecret string
	PublicKey                   *rsa.PublicKey
}

// Request names the quirks a verified request matches: r is a copy of the
// request as read, whose body it reads, base the base string the Verifier
// computed, and valid whether the signature checked. Alternative base
// strings (realm signed, role not signed) and keys (the consumer secret
// alone) are tried only when the signature did not check, with the
// secrets the user gave.
func Request(r *http.Request, sec Secrets, base string, valid bool) []Quirk {
	var qs []Quirk
	realm, hasRealm := headerRealm(r)
	// Since 2020.1 the token requests of the flow may leave realm out.
	tokenStep := strings.HasPrefix(r.URL.Path, "/rest/requesttoken") || strings.HasPrefix(r.URL.Path, "/rest/accesstoken")
	if want, ok := netSuiteRealm(scheme(r) + "://" + r.Host + "/"); ok && realm != want && (hasRealm || !tokenStep) {
		text := "the Authorization header has no realm"
		if hasRealm {
			text = "the realm is \"" + realm + "\""
		}
		qs = append(qs, Quirk{quirkNetSuiteRlm, "NetSuite", text + ", but NetSuite wants the account id in uppercase with \"_\": realm=\"" + want +
			"\" (providers.NetSuite sets it). The realm is not signed, so the signature itself can be valid."})
	}
	b, perr := basestring.Parse(base)
	if valid || perr != nil {
		if valid && perr == nil && wooLegacy(b.URI) {
			qs = append(qs, wooKeyQuirk(true))
		}
		return qs
	}
	ps := protocolParams(r)
	key := basestring.Key{ConsumerKey: ps["oauth_consumer_key"], ConsumerSecret: sec.ConsumerSecret, Token: ps["oauth_token"], PublicKey: sec.PublicKey}
	if key.Token != "" {
		key.TokenSecret = sec.TokenSecret
	}
	checks := func(alt string) bool {
		_, wrong := basestring.KeyMistake(alt, ps["oauth_signature"], ps["oauth_signature_method"], key)
		return !wrong
	}
	if m, ok := basestring.KeyMistake(base, ps["oauth_signature"], ps["oauth_signature_method"], key); ok && m.Includes(basestring.ConsumerSecretOnly) {
		qs = append(qs, wooKeyQuirk(wooLegacy(b.URI)))
	}
	if hasRealm && checks(rebuild(b, func(p []basestring.Param) []basestring.Param {
		return append(p, basestring.Param{RawName: "realm", RawValue: percent.Encode(realm)})
	})) {
		qs = append(qs, Quirk{quirkRealmSigned, "some providers", "the signature is valid for the base string with realm=\"" + realm + "\" added: " +
			"the client signed realm, which RFC 5849 §3.4.1.3.1 excludes; sign it never (every Config does so)."})
	}
	if isNetSuite(b.URI) && slices.ContainsFunc(b.Params, func(p basestring.Param) bool { return p.Name == "role" }) && checks(rebuild(b, func(p []basestring.Param) []basestring.Param {
		return slices.DeleteFunc(p, func(p basestring.Param) bool { return p.Name == "role" })
	})) {
		qs = append(qs, roleQuirk(true))
	}
	return qs
}

// rebuild returns the base string of b with its parameters changed by
// edit, sorted and encoded again (§3.4.1.3.2).
func rebuild(b *basestring.BaseString, edit func([]basestring.Param) []basestring.Param) string {
	ps := edit(slices.Clone(b.Params))
	pairs := make([]string, len(ps))
	for i, p := range ps {
		pairs[i] = p.RawName + "=" + p.RawValue
	}
	slices.Sort(pairs)
	return b.RawMethod + "&" + b.RawURI + "&" + percent.Encode(strings.Join(pairs, "&"))
}

// headerRealm returns the realm of r's Authorization header, if it has one.
func headerRealm(r *http.Request) (string, bool) {
	auth := r.Header.Get("Authorization")
	if auth == "" {
		return "", false
	}
	ps, err := oauth1.ParseAuthHeader(auth)
	if err != nil {
		return "", false
	}
	for _, p := range ps {
		if p.Name == "realm" {
			return p.Value, true
		}
	}
	return "", false
}

func scheme(r *http.Request) string {
	if r.URL.Scheme != "" {
		return r.URL.Scheme
	}
	return "https"
}

// protocolParams returns the protocol parameters of r, decoded, from its
// Authorization header, else its query, else a form body. It reads the
// body: r must be a copy that nothing else reads.
func protocolParams(r *http.Request) map[string]string {
	ps := map[string]string{}
	if auth := r.Header.Get("Authorization"); auth != "" {
		if params, err := oauth1.ParseAuthHeader(auth); err == nil {
			for _, p := range params {
				ps[p.Name] = p.Value
			}
			if ps["oauth_signature"] != "" {
				return ps
			}
		}
	}
	raws := []string{r.URL.RawQuery}
	if form, _ := sign.IsFormType(r.Header.Get("Content-Type")); form && r.Body != nil {
		b, _ := io.ReadAll(r.Body)
		raws = append(raws, string(b))
	}
	for _, raw := range raws {
		for _, pair := range strings.Split(raw, "&") {
			name, value, _ := strings.Cut(pair, "=")
			if !strings.HasPrefix(name, "oauth_") {
				continue
			}
			if v, err := percent.DecodeForm(value); err == nil {
				if _, seen := ps[name]; !seen {
					ps[name] = v
				}
			}
		}
	}
	return ps
}

// Name is the quirk's stable name, for scripts: "netsuite-realm", ...
func (q Quirk) Name() string { return q.name }

// Provider names the provider (or providers) the quirk is of.
func (q Quirk) Provider() string { return q.provider }

// Text says what matched, and the fix.
func (q Quirk) Text() string { return q.text }
