package main

import (
	"crypto/hmac"
	"crypto/sha1"
	"crypto/sha256"
	"encoding/base64"
	"encoding/json"
	"hash"
	"net/url"
	"strings"
	"testing"

	"github.com/countersign/countersign/cmd/oauth1/internal/sign"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// sign --provider and the quirk flags (issue 26): each signature is
// checked against crypto/hmac over a base string written by hand here,
// and each header against one written by hand.

// handSig is base64(HMAC(key, base)), computed without the library.
func handSig(h func() hash.Hash, key, base string) string {
	m := hmac.New(h, []byte(key))
	m.Write([]byte(base))
	return base64.StdEncoding.EncodeToString(m.Sum(nil))
}

// sigEnc percent-encodes a base64 signature as the header and query carry it.
func sigEnc(sig string) string { return url.QueryEscape(sig) }

var fixed = []string{"--consumer-key", "ck", "--consumer-secret", "cs", "--nonce", "n0nce", "--timestamp", "1700000000"}

func signOut(t *testing.T, args ...string) output {
	t.Helper()
	return runCmd(t, nil, "", append(append([]string{"sign"}, fixed...), args...)...)
}

func TestSignProviderNetSuite(t *testing.T) {
	const u = "https://1234567-sb1.suitetalk.api.netsuite.com/services/rest/record/v1/customer"
	base := "GET&https%3A%2F%2F1234567-sb1.suitetalk.api.netsuite.com%2Fservices%2Frest%2Frecord%2Fv1%2Fcustomer&" +
		"oauth_consumer_key%3Dck%26oauth_nonce%3Dn0nce%26oauth_signature_method%3DHMAC-SHA256%26oauth_timestamp%3D1700000000%26oauth_token%3Dtk%26oauth_version%3D1.0"
	sig := handSig(sha256.New, "cs&ts", base)
	// The account id in the host's form: the realm is NetSuite's form of it.
	out := signOut(t, "--provider", "netsuite", "--account-id", "1234567-sb1", "--token", "tk", "--token-secret", "ts", u)
	require.Equal(t, exitOK, out.code, out.stderr)
	assert.Equal(t, `Authorization: OAuth realm="1234567_SB1", oauth_consumer_key="ck", oauth_nonce="n0nce", oauth_signature="`+sigEnc(sig)+
		`", oauth_signature_method="HMAC-SHA256", oauth_timestamp="1700000000", oauth_token="tk", oauth_version="1.0"`+"\n", out.stdout)

	// An explicit --realm overrides the preset's.
	out = signOut(t, "--provider", "NetSuite", "--account-id", "1234567_SB1", "--realm", "other", "--token", "tk", "--token-secret", "ts", u)
	require.Equal(t, exitOK, out.code, out.stderr)
	assert.Contains(t, out.stdout, `OAuth realm="other", `)
	assert.Contains(t, out.stdout, `oauth_signature="`+sigEnc(sig)+`"`, "the realm is not signed")

	// The request token step with role, a header parameter: signed, and
	// labelled "header" by --explain (it was "protocol").
	const rt = "https://1234567-sb1.restlets.api.netsuite.com/rest/requesttoken"
	rtBase := "POST&https%3A%2F%2F1234567-sb1.restlets.api.netsuite.com%2Frest%2Frequesttoken&" +
		"oauth_callback%3Doob%26oauth_consumer_key%3Dck%26oauth_nonce%3Dn0nce%26oauth_signature_method%3DHMAC-SHA256%26oauth_timestamp%3D1700000000%26oauth_version%3D1.0%26role%3D3"
	out = signOut(t, "--provider", "netsuite", "--account-id", "1234567_SB1", "-X", "POST", "--callback", "oob", "--header-param", "role=3", "--explain", rt)
	require.Equal(t, exitOK, out.code, out.stderr)
	assert.Contains(t, out.stdout, "\nSignature base string:\n"+rtBase+"\n")
	assert.Contains(t, out.stdout, "Signature:        "+handSig(sha256.New, "cs&", rtBase)+"\n")
	assert.Regexp(t, `\n  header +role +3 +3\n`, out.stdout)
	assert.Regexp(t, `\n  protocol +oauth_callback +oob +oob\n`, out.stdout)
}

// NetSuite's realm is its account id: --realm names the account when
// --account-id is not given, in NetSuite's form only.
func TestSignProviderNetSuiteRealm(t *testing.T) {
	const u = "https://1234567-sb1.suitetalk.api.netsuite.com/services/rest/record/v1/customer"
	base := "GET&https%3A%2F%2F1234567-sb1.suitetalk.api.netsuite.com%2Fservices%2Frest%2Frecord%2Fv1%2Fcustomer&" +
		"oauth_consumer_key%3Dck%26oauth_nonce%3Dn0nce%26oauth_signature_method%3DHMAC-SHA256%26oauth_timestamp%3D1700000000%26oauth_token%3Dtk%26oauth_version%3D1.0"
	out := signOut(t, "--provider", "netsuite", "--realm", "1234567_SB1", "--token", "tk", "--token-secret", "ts", u)
	require.Equal(t, exitOK, out.code, out.stderr)
	assert.Equal(t, `Authorization: OAuth realm="1234567_SB1", oauth_consumer_key="ck", oauth_nonce="n0nce", oauth_signature="`+
		sigEnc(handSig(sha256.New, "cs&ts", base))+
		`", oauth_signature_method="HMAC-SHA256", oauth_timestamp="1700000000", oauth_token="tk", oauth_version="1.0"`+"\n", out.stdout)

	// The host's form is not a realm NetSuite takes: say which is.
	out = signOut(t, "--provider", "netsuite", "--realm", "1234567-sb1", u)
	assert.Equal(t, exitUsage, out.code)
	assert.Contains(t, out.stderr, `--realm "1234567-sb1" is not a NetSuite realm, which is the account id in uppercase with "_" (1234567_SB1)`)
}

// NetSuite takes role on the request token request only: sign warns when
// it is given on another request of the provider.
func TestSignProviderNetSuiteRoleWarning(t *testing.T) {
	const api = "https://1234567.restlets.api.netsuite.com/app/site/hosting/restlet.nl?script=1"
	out := signOut(t, "--provider", "netsuite", "--account-id", "1234567", "--header-param", "role=3", "--token", "tk", "--token-secret", "ts", api)
	require.Equal(t, exitOK, out.code, out.stderr)
	assert.Contains(t, out.stderr, "oauth1: warning: NetSuite takes role on the request token request only (https://1234567.restlets.api.netsuite.com/rest/requesttoken), not on this one\n")

	out = signOut(t, "--provider", "netsuite", "--account-id", "1234567", "--header-param", "role=3", "-X", "POST", "https://1234567.restlets.api.netsuite.com/rest/requesttoken")
	require.Equal(t, exitOK, out.code, out.stderr)
	assert.NotContains(t, out.stderr, "role")
	assert.Contains(t, out.stdout, `oauth_callback="oob"`, "the request token request signs oauth_callback, as the library's flow does")
}

func TestSignProviderWooCommerce(t *testing.T) {
	// The current API: HMAC-SHA256, the parameters in the query, the RFC's key.
	base := "GET&http%3A%2F%2Fshop.example%2Fwp-json%2Fwc%2Fv3%2Fproducts&" +
		"oauth_consumer_key%3Dck%26oauth_nonce%3Dn0nce%26oauth_signature_method%3DHMAC-SHA256%26oauth_timestamp%3D1700000000%26oauth_version%3D1.0%26per_page%3D2"
	out := signOut(t, "--provider", "woocommerce", "http://shop.example/wp-json/wc/v3/products?per_page=2")
	require.Equal(t, exitOK, out.code, out.stderr)
	assert.Equal(t, "http://shop.example/wp-json/wc/v3/products?per_page=2&oauth_consumer_key=ck&oauth_nonce=n0nce&oauth_signature="+
		sigEnc(handSig(sha256.New, "cs&", base))+"&oauth_signature_method=HMAC-SHA256&oauth_timestamp=1700000000&oauth_version=1.0\n", out.stdout)

	// The legacy v2 API: the consumer secret alone, without "&".
	legacy := "GET&http%3A%2F%2Fshop.example%2Fwc-api%2Fv2%2Fproducts&" +
		"oauth_consumer_key%3Dck%26oauth_nonce%3Dn0nce%26oauth_signature_method%3DHMAC-SHA256%26oauth_timestamp%3D1700000000%26oauth_version%3D1.0"
	out = signOut(t, "--provider", "woocommerce", "--consumer-secret-only", "http://shop.example/wc-api/v2/products")
	require.Equal(t, exitOK, out.code, out.stderr)
	assert.Contains(t, out.stdout, "&oauth_signature="+sigEnc(handSig(sha256.New, "cs", legacy))+"&")
	assert.NotContains(t, out.stdout, sigEnc(handSig(sha256.New, "cs&", legacy)))

	// --explain says what the key is, without the secret.
	out = signOut(t, "--provider", "woocommerce", "--consumer-secret-only", "--explain", "http://shop.example/wc-api/v2/products")
	require.Equal(t, exitOK, out.code, out.stderr)
	assert.Contains(t, out.stdout, `Signing key:      <consumer secret, 2 bytes encoded>   (alone, no "&": --consumer-secret-only;`)
	assert.Contains(t, out.stdout, "Signature:        "+handSig(sha256.New, "cs", legacy)+"\n")

	// Without a provider, the flag alone does the same to any HMAC method.
	sha1Base := strings.Replace(legacy, "HMAC-SHA256", "HMAC-SHA1", 1)
	out = signOut(t, "--consumer-secret-only", "--explain", "http://shop.example/wc-api/v2/products")
	require.Equal(t, exitOK, out.code, out.stderr)
	assert.Contains(t, out.stdout, "Signature:        "+handSig(sha1.New, "cs", sha1Base)+"\n")

	// An explicit --signature-method overrides the preset's.
	out = signOut(t, "--provider", "woocommerce", "--signature-method", "HMAC-SHA1", "http://shop.example/wc-api/v2/products")
	require.Equal(t, exitOK, out.code, out.stderr)
	assert.Contains(t, out.stdout, "&oauth_signature="+sigEnc(handSig(sha1.New, "cs&", sha1Base))+"&")
}

func TestSignProviderETrade(t *testing.T) {
	const u = "https://api.etrade.com/v1/accounts/list"
	// E*TRADE's published examples carry no oauth_version: the preset
	// neither sends nor signs it.
	base := "GET&https%3A%2F%2Fapi.etrade.com%2Fv1%2Faccounts%2Flist&" +
		"oauth_consumer_key%3Dck%26oauth_nonce%3Dn0nce%26oauth_signature_method%3DHMAC-SHA1%26oauth_timestamp%3D1700000000%26oauth_token%3Dtk"
	header := `oauth_consumer_key="ck", oauth_nonce="n0nce", oauth_signature="` + sigEnc(handSig(sha1.New, "cs&ts", base)) +
		`", oauth_signature_method="HMAC-SHA1", oauth_timestamp="1700000000", oauth_token="tk"` + "\n"
	withVersion := base + "%26oauth_version%3D1.0"
	headerVersion := `oauth_consumer_key="ck", oauth_nonce="n0nce", oauth_signature="` + sigEnc(handSig(sha1.New, "cs&ts", withVersion)) +
		`", oauth_signature_method="HMAC-SHA1", oauth_timestamp="1700000000", oauth_token="tk", oauth_version="1.0"` + "\n"
	tok := []string{"--token", "tk", "--token-secret", "ts"}

	out := signOut(t, append([]string{"--provider", "etrade", u}, tok...)...)
	require.Equal(t, exitOK, out.code, out.stderr)
	assert.Equal(t, `Authorization: OAuth realm="", `+header, out.stdout)

	// The flag alone (with oauth_version, as without a provider), and the
	// flag turning the preset's off.
	out = signOut(t, append([]string{"--send-empty-realm", u}, tok...)...)
	require.Equal(t, exitOK, out.code, out.stderr)
	assert.Equal(t, `Authorization: OAuth realm="", `+headerVersion, out.stdout)
	out = signOut(t, append([]string{"--provider", "etrade", "--send-empty-realm=false", u}, tok...)...)
	require.Equal(t, exitOK, out.code, out.stderr)
	assert.Equal(t, `Authorization: OAuth `+header, out.stdout)

	// The request token request: oauth_callback=oob, as the library's
	// preset and Config.RequestToken send it, unless --callback says otherwise.
	const rt = "https://api.etrade.com/oauth/request_token"
	rtBase := "GET&https%3A%2F%2Fapi.etrade.com%2Foauth%2Frequest_token&" +
		"oauth_callback%3Doob%26oauth_consumer_key%3Dck%26oauth_nonce%3Dn0nce%26oauth_signature_method%3DHMAC-SHA1%26oauth_timestamp%3D1700000000"
	out = signOut(t, "--provider", "etrade", rt)
	require.Equal(t, exitOK, out.code, out.stderr)
	assert.Equal(t, `Authorization: OAuth realm="", oauth_callback="oob", oauth_consumer_key="ck", oauth_nonce="n0nce", oauth_signature="`+
		sigEnc(handSig(sha1.New, "cs&", rtBase))+`", oauth_signature_method="HMAC-SHA1", oauth_timestamp="1700000000"`+"\n", out.stdout)
	out = signOut(t, "--provider", "etrade", "--callback", "https://app.example/cb", rt)
	require.Equal(t, exitOK, out.code, out.stderr)
	assert.Contains(t, out.stdout, `oauth_callback="https%3A%2F%2Fapp.example%2Fcb"`)
	assert.NotContains(t, out.stdout, "oob")
	// The sandbox's request token URL is one too.
	const sbRT = "https://apisb.etrade.com/oauth/request_token"
	sbBase := strings.Replace(rtBase, "api.etrade.com", "apisb.etrade.com", 1)
	out = signOut(t, "--provider", "etrade", sbRT)
	require.Equal(t, exitOK, out.code, out.stderr)
	assert.Equal(t, `Authorization: OAuth realm="", oauth_callback="oob", oauth_consumer_key="ck", oauth_nonce="n0nce", oauth_signature="`+
		sigEnc(handSig(sha1.New, "cs&", sbBase))+`", oauth_signature_method="HMAC-SHA1", oauth_timestamp="1700000000"`+"\n", out.stdout)
	// Another provider's request token URL, or none named: no callback added.
	out = signOut(t, rt)
	require.Equal(t, exitOK, out.code, out.stderr)
	assert.NotContains(t, out.stdout, "oauth_callback")

	// realm="" exists only in the header.
	out = signOut(t, append([]string{"--provider", "etrade", "--query", u}, tok...)...)
	assert.Equal(t, exitUsage, out.code)
	assert.Contains(t, out.stderr, `--send-empty-realm (send_empty_realm) sends realm="" in the Authorization header`)
}

func TestSignProviderSchoology(t *testing.T) {
	const u = "https://api.schoology.com/v1/users/me"
	base := "GET&https%3A%2F%2Fapi.schoology.com%2Fv1%2Fusers%2Fme&" +
		"oauth_consumer_key%3Dck%26oauth_nonce%3Dn0nce%26oauth_signature_method%3DHMAC-SHA1%26oauth_timestamp%3D1700000000%26oauth_token%3D%26oauth_version%3D1.0"
	header := `oauth_consumer_key="ck", oauth_nonce="n0nce", oauth_signature="` + sigEnc(handSig(sha1.New, "cs&", base)) +
		`", oauth_signature_method="HMAC-SHA1", oauth_timestamp="1700000000", oauth_token="", oauth_version="1.0"` + "\n"

	out := signOut(t, "--provider", "schoology", u)
	require.Equal(t, exitOK, out.code, out.stderr)
	assert.Equal(t, `Authorization: OAuth realm="Schoology API", `+header, out.stdout)

	out = signOut(t, "--send-empty-token", u)
	require.Equal(t, exitOK, out.code, out.stderr)
	assert.Equal(t, `Authorization: OAuth `+header, out.stdout)

	out = signOut(t, "--provider", "schoology", "--send-empty-token=false", u)
	require.Equal(t, exitOK, out.code, out.stderr)
	assert.NotContains(t, out.stdout, "oauth_token")
}

// The errors of --provider and of the quirk flags: exit status 2, and a
// message naming the flag to give or the combination refused.
func TestSignProviderErrors(t *testing.T) {
	const u = "https://api.example/x"
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"--provider", "netsuite"}, "--provider netsuite needs --account-id (account_id in batch mode), or --realm (realm)"},
		{[]string{"--provider", "netsuite", "--account-id", "123 4"}, `--account-id "123 4" is not a NetSuite account id`},
		{[]string{"--provider", "nope"}, `unknown provider "nope" (want x, netsuite, etrade, garmin, flickr, tumblr, trello, discogs, jira, magento, woocommerce, lti, schoology; --provider list describes them)`},
		{[]string{"--account-id", "1234567"}, "--account-id (account_id) is NetSuite's: give --provider netsuite"},
		{[]string{"--provider", "x", "--account-id", "1234567"}, "--account-id (account_id) is NetSuite's, not X (Twitter)'s"},
		{[]string{"--base-url", "https://jira.example"}, "--base-url (base_url) is Jira's and Magento's"},
		{[]string{"--provider", "magento", "--base-url", "shop.example"}, `--base-url "shop.example" is not an absolute http or https URL`},
		{[]string{"--provider", "jira"}, "RSA-SHA1 needs a private key (--key-file, or private_key_pem in batch mode)"},
		{[]string{"--consumer-secret-only", "--token", "tk", "--token-secret", "ts"}, "--consumer-secret-only (consumer_secret_only) signs with the consumer secret alone, for requests without a token (WooCommerce's legacy v1 and v2 API); a token secret is given too"},
		{[]string{"--provider", "woocommerce", "--consumer-secret-only", "--signature-method", "RSA-SHA256", "--key-file", "../../testdata/keys/rsa2048-pkcs1.pem"}, "--consumer-secret-only (consumer_secret_only) keys an HMAC method; RSA-SHA256 does not"},
		{[]string{"--send-empty-token=maybe"}, `invalid boolean value "maybe" for -send-empty-token`},
	} {
		out := signOut(t, append(c.args, u)...)
		assert.Equal(t, exitUsage, out.code, "%v: %s", c.args, out.stdout)
		assert.Contains(t, out.stderr, c.want, c.args)
		assert.Empty(t, out.stdout, c.args)
		assert.NotContains(t, out.stderr, "cs", "no secret in an error")
	}
}

func TestProvidersList(t *testing.T) {
	for _, args := range [][]string{{"help", "providers"}, {"sign", "--provider", "list"}} {
		out := runCmd(t, nil, "", args...)
		require.Equal(t, exitOK, out.code, args)
		for _, name := range sign.ProviderNames() {
			assert.Regexp(t, `\n  `+name+` +`, out.stdout, args)
		}
		assert.Regexp(t, `\n  woocommerce +WooCommerce +HMAC-SHA256, query `, out.stdout)
		assert.Regexp(t, `\n  schoology +Schoology +HMAC-SHA1, header, realm "Schoology API", empty token `, out.stdout)
	}
	assert.Contains(t, runCmd(t, nil, "", "help").stdout, `"oauth1 help providers"`)
}

// Batch mode: provider, account_id and the quirk fields, each line on its
// own; a flag's default signature method does not override a line's provider.
func TestBatchProvider(t *testing.T) {
	in := `{"url":"https://api.schoology.com/v1/users/me","provider":"schoology"}` + "\n" +
		`{"url":"https://api.schoology.com/v1/users/me","send_empty_token":true}` + "\n" +
		`{"url":"http://shop.example/wc-api/v2/products","provider":"woocommerce","consumer_secret_only":true}` + "\n" +
		`{"url":"http://shop.example/wc-api/v2/products","consumer_secret_only":true,"token_secret":"ts"}` + "\n" +
		`{"url":"https://a.example/","provider":"netsuite"}` + "\n" +
		`{"url":"https://a.example/","provider":"netsuite","account_id":"1_SB1","send_empty_realm":true}` + "\n"
	out := runCmd(t, map[string]string{"OAUTH1_CONSUMER_KEY": "ck", "OAUTH1_CONSUMER_SECRET": "cs"}, in,
		"sign", "--json", "--nonce", "n0nce", "--timestamp", "1700000000")
	assert.Equal(t, exitFailure, out.code, "lines 4 and 5 fail")
	var res []sign.Result
	for _, l := range strings.Split(strings.TrimSpace(out.stdout), "\n") {
		var r sign.Result
		require.NoError(t, json.Unmarshal([]byte(l), &r))
		res = append(res, r)
	}
	require.Len(t, res, 6)

	schoology := "GET&https%3A%2F%2Fapi.schoology.com%2Fv1%2Fusers%2Fme&" +
		"oauth_consumer_key%3Dck%26oauth_nonce%3Dn0nce%26oauth_signature_method%3DHMAC-SHA1%26oauth_timestamp%3D1700000000%26oauth_token%3D%26oauth_version%3D1.0"
	assert.Equal(t, schoology, res[0].BaseString)
	assert.Equal(t, handSig(sha1.New, "cs&", schoology), res[0].Signature)
	assert.True(t, strings.HasPrefix(res[0].Authorization, `OAuth realm="Schoology API", `), res[0].Authorization)
	assert.Equal(t, schoology, res[1].BaseString, "send_empty_token alone")
	assert.True(t, strings.HasPrefix(res[1].Authorization, `OAuth oauth_consumer_key=`), "no realm without the provider")

	woo := "GET&http%3A%2F%2Fshop.example%2Fwc-api%2Fv2%2Fproducts&" +
		"oauth_consumer_key%3Dck%26oauth_nonce%3Dn0nce%26oauth_signature_method%3DHMAC-SHA256%26oauth_timestamp%3D1700000000%26oauth_version%3D1.0"
	assert.Equal(t, woo, res[2].BaseString, "the provider's method, not the flag's default")
	assert.Equal(t, handSig(sha256.New, "cs", woo), res[2].Signature)
	assert.Contains(t, res[2].URL, "&oauth_signature="+sigEnc(res[2].Signature)+"&")

	assert.Contains(t, res[3].Error, "--consumer-secret-only (consumer_secret_only) signs with the consumer secret alone")
	assert.Contains(t, res[4].Error, "--provider netsuite needs --account-id (account_id in batch mode)")
	assert.True(t, strings.HasPrefix(res[5].Authorization, `OAuth realm="1_SB1", `), res[5].Authorization)
}

// A batch line's quirk field does not leak into the next line, whose
// default is the flag's.
func TestBatchQuirkDefaults(t *testing.T) {
	in := `{"url":"https://a.example/","send_empty_token":false}` + "\n" + `{"url":"https://a.example/"}` + "\n"
	out := runCmd(t, map[string]string{"OAUTH1_CONSUMER_KEY": "ck", "OAUTH1_CONSUMER_SECRET": "cs"}, in,
		"sign", "--json", "--send-empty-token")
	require.Equal(t, exitOK, out.code, out.stdout)
	lines := strings.Split(strings.TrimSpace(out.stdout), "\n")
	require.Len(t, lines, 2)
	assert.NotContains(t, lines[0], `oauth_token`)
	assert.Contains(t, lines[1], `oauth_token%3D%26`)
}

func TestSignProviderLTI(t *testing.T) {
	const u = "https://lms.example/outcomes"
	const xml = `<?xml version="1.0"?><imsx_POXEnvelopeRequest/>`
	digest := sha1.Sum([]byte(xml))
	bodyHash := base64.StdEncoding.EncodeToString(digest[:])
	base := "POST&https%3A%2F%2Flms.example%2Foutcomes&" +
		"oauth_body_hash%3D" + url.QueryEscape(url.QueryEscape(bodyHash)) +
		"%26oauth_consumer_key%3Dck%26oauth_nonce%3Dn0nce%26oauth_signature_method%3DHMAC-SHA1%26oauth_timestamp%3D1700000000%26oauth_version%3D1.0"
	out := signOut(t, "--provider", "lti", "--data-raw", xml, "-H", "Content-Type: application/xml", "--explain", u)
	require.Equal(t, exitOK, out.code, out.stderr)
	assert.Contains(t, out.stdout, "\nSignature base string:\n"+base+"\n")
	assert.Contains(t, out.stdout, "Signature:        "+handSig(sha1.New, "cs&", base)+"\n")

	// --body-hash none leaves the preset's out.
	out = signOut(t, "--provider", "lti", "--body-hash", "none", "--data-raw", xml, "-H", "Content-Type: application/xml", u)
	require.Equal(t, exitOK, out.code, out.stderr)
	assert.NotContains(t, out.stdout, "oauth_body_hash")
}

// --consumer-secret-only keys without the token secret, so a token without
// one draws no warning about it; an empty consumer secret still does.
func TestConsumerSecretOnlyWarnings(t *testing.T) {
	out := signOut(t, "--consumer-secret-only", "--token", "tk", "http://shop.example/wc-api/v1/products")
	require.Equal(t, exitOK, out.code, out.stderr)
	assert.NotContains(t, out.stderr, "no token secret")
	out = runCmd(t, nil, "", "sign", "--consumer-key", "ck", "--consumer-secret-only", "http://shop.example/wc-api/v1/products")
	require.Equal(t, exitOK, out.code, out.stderr)
	assert.Contains(t, out.stderr, "the consumer secret is empty")
}
