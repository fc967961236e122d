package oauth1

import (
	"crypto"
	"net/http"
	"strconv"
	"time"

	"github.com/countersign/countersign/oauth1/internal/wire"
)

// Credentials is a token and shared-secret pair: the client credentials
// (consumer key and secret), temporary credentials or token credentials of
// RFC 5849 §1.1.
//
// fmt, under every verb, and slog print a Credentials with Secret redacted.
// JSON is its faithful serialization, Secret included, since storing a token
// is what it is for: json.Unmarshal of what json.Marshal wrote gives the same
// value. slog's JSON handler encodes a struct or slice that holds a
// Credentials with encoding/json, and so writes its secret: log the
// Credentials itself, or a Config.
type Credentials struct {
	Token  string
	Secret string
}

// Delivery says where the protocol parameters travel (RFC 5849 §3.5).
type Delivery int

const (
	// AuthHeader sends them in the Authorization header (§3.5.1), the
	// default and what nearly every provider expects.
	AuthHeader Delivery = iota
	// QueryString appends them to the request URI's query (§3.5.3), as
	// WooCommerce requires over plain HTTP.
	QueryString
	// FormBody appends them to an application/x-www-form-urlencoded body
	// (§3.5.2). A request without a body gets one.
	FormBody
)

// text names d in descriptions and errors.
func (d Delivery) text() string {
	switch d {
	case AuthHeader:
		return "header"
	case QueryString:
		return "query"
	case FormBody:
		return "body"
	}
	return "Delivery(" + strconv.Itoa(int(d)) + ")"
}

// ErrBodyTooLarge is returned (wrapped, with the limit) when a body that
// signing must read is larger than the limit. A request is never signed over
// a truncated body.
var ErrBodyTooLarge = wire.ErrBodyTooLarge

// Config holds a client's credentials, its signature method and how
// requests are signed. A Config is never modified by this package and is
// safe for concurrent use, as long as the caller does not change it; it may
// be copied.
//
// fmt, under every verb, and slog print a Config with the consumer secret
// redacted and the signature method named without its key. JSON is its
// faithful serialization, the consumer secret included, of every field but
// Signer, HTTPClient, Now and Nonce, which hold code or keys and are left
// out: json.Unmarshal of what json.Marshal wrote gives the same Config with
// those four nil. A Config read from JSON needs its Signer set again unless
// it is HMAC-SHA1.
type Config struct {
	// ConsumerKey and ConsumerSecret are the client credentials (RFC 5849
	// §1.1), which the provider issued to this client.
	ConsumerKey, ConsumerSecret string

	// Signer is the signature method. Nil means HMAC{}, that is HMAC-SHA1.
	// It is not written to JSON: an RSA key has no place there.
	Signer Signer `json:"-"`

	// Realm, if set, is sent as the realm parameter of the Authorization
	// header (NetSuite wants the account id). It is never signed
	// (§3.4.1.3.1), and is written as a quoted-string, not percent-encoded
	// (§3.5.1, RFC 2617 §1.2); a realm holding a control character, such as
	// CR or LF, is refused.
	Realm string

	// SendEmptyRealm sends realm="" in the Authorization header when Realm
	// is empty, as E*TRADE's documentation shows its requests; by default an
	// empty realm is left out. Like any realm it is never signed, and only
	// the Authorization header carries it.
	SendEmptyRealm bool

	// Delivery says where the protocol parameters go; the zero value is
	// the Authorization header.
	Delivery Delivery

	// OmitVersion leaves out oauth_version=1.0, which RFC 5849 §3.1 makes
	// optional. It is sent by default because providers such as the X API
	// include it in their examples; the RFC's own examples omit it.
	OmitVersion bool

	// SendEmptyToken sends and signs oauth_token="" on requests that have
	// no token (a nil token, or one whose Token is empty), as Schoology
	// expects of two-legged requests; by default oauth_token is left out
	// then, as §3.1 says. It applies to every such request, temporary
	// credential requests included.
	SendEmptyToken bool

	// BodyHash, if nonzero, adds an oauth_body_hash parameter (the OAuth
	// Request Body Hash extension) computed with this hash over the body of
	// every request whose body is not form-encoded; an absent body hashes as
	// the empty string. crypto.SHA1 is what LTI 1.1 uses, crypto.SHA256 what
	// Mastercard uses. The hash is chosen apart from the signature method.
	BodyHash crypto.Hash

	// AllowInsecurePlaintext lets the PLAINTEXT method sign requests whose
	// URL is not https. RFC 5849 §3.4.4 requires a secure channel, so
	// by default such requests are refused.
	AllowInsecurePlaintext bool

	// MaxBodyBytes limits how much of a body signing reads (form bodies,
	// to collect their parameters, and with BodyHash other bodies, to hash
	// them); zero means 4 MiB, and no limit goes above 256 MiB. A larger
	// body is an error wrapping ErrBodyTooLarge.
	MaxBodyBytes int64

	// Endpoint holds the provider's URLs for the three-legged flow
	// (RFC 5849 §2); see [Config.RequestToken].
	Endpoint Endpoint

	// Callback is the URL the provider sends the resource owner back to
	// (oauth_callback, §2.1). Empty means "oob", the out-of-band (PIN) flow.
	Callback string

	// HTTPClient sends the token requests of the flow and is the base of
	// [Config.Client]. Nil means http.DefaultClient.
	HTTPClient *http.Client `json:"-"`

	// Now, if set, is the clock that Sign, the Transport and the token
	// requests read for oauth_timestamp; nil means time.Now. With Nonce,
	// it makes every request a Config signs reproducible in tests (see
	// [github.com/countersign/countersign/oauth1/oauth1test.NewClock]).
	Now func() time.Time `json:"-"`

	// Nonce, if set, returns the oauth_nonce for Sign, the Transport and
	// the token requests; nil means 26 random characters from crypto/rand.
	// A provider refuses a nonce it has seen with the same timestamp, so
	// outside tests the values must not repeat. It must be safe for
	// concurrent use when the Transport is.
	Nonce func() string `json:"-"`

	// Params are protocol parameters added to every request signed with
	// this Config, by Sign, SignAt, BaseString, the Transport and the token
	// requests, such as a provider's xoauth_* parameter. They travel and are
	// signed with the others, in the Authorization header by default. A name
	// must not repeat one the Config supplies (oauth_nonce and the like),
	// nor be realm or oauth_signature.
	Params []Param
}

// A Param is a name and value pair, unencoded. Extra protocol parameters,
// in [Config.Params] or given to [Config.SignAt], are sent with the ones the
// Config supplies.
type Param struct {
	Name, Value string
}
