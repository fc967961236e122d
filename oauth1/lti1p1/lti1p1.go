package lti1p1

import (
	"crypto"
	"crypto/subtle"
	"encoding/base64"
	"errors"
	"strconv"
	"strings"

	"github.com/countersign/countersign/oauth1/internal/mac"
)

// ClaimName is the name of the LTI 1.1 migration claim in an id_token.
const ClaimName = "https://purl.imsglobal.org/spec/lti/claim/lti1p1"

// deploymentClaim is the LTI 1.3 deployment_id claim (Core §5.3.3).
const deploymentClaim = "https://purl.imsglobal.org/spec/lti/claim/deployment_id"

// Claim is the LTI 1.1 migration claim as it appears in the id_token's
// JSON: the identifiers the tool knew under LTI 1.1, and the sign. Every
// member is optional in the JSON; the sign needs OAuthConsumerKey.
type Claim struct {
	UserID                   string `json:"user_id,omitempty"`
	ContextID                string `json:"context_id,omitempty"`
	ResourceLinkID           string `json:"resource_link_id,omitempty"`
	ToolConsumerInstanceGUID string `json:"tool_consumer_instance_guid,omitempty"`
	OAuthConsumerKey         string `json:"oauth_consumer_key,omitempty"`
	OAuthConsumerKeySign     string `json:"oauth_consumer_key_sign,omitempty"`
}

// Signed holds the six values oauth_consumer_key_sign signs, in the order
// of the base string.
type Signed struct {
	ConsumerKey  string // the claim's oauth_consumer_key: the LTI 1.1 consumer key
	DeploymentID string // the deployment_id claim
	Issuer       string // iss
	ClientID     string // aud, or azp when aud names several audiences
	Exp          int64  // exp, in seconds since 1970, written in decimal
	Nonce        string // nonce
}

// BaseString returns the text the sign is the HMAC of: the six values
// joined by "&", as they are, without encoding. It holds no secret.
func (s Signed) BaseString() string {
	return strings.Join([]string{s.ConsumerKey, s.DeploymentID, s.Issuer, s.ClientID, strconv.FormatInt(s.Exp, 10), s.Nonce}, "&")
}

// check reports the first value the sign needs that s lacks.
func (s Signed) check() error {
	for _, f := range []struct{ v, name string }{
		{s.ConsumerKey, "oauth_consumer_key"}, {s.DeploymentID, "deployment_id"}, {s.Issuer, "iss"},
		{s.ClientID, "client_id (aud or azp)"}, {s.Nonce, "nonce"},
	} {
		if f.v == "" {
			return &FieldError{Field: f.name, Problem: "is empty"}
		}
	}
	if s.Exp <= 0 {
		return &FieldError{Field: "exp", Problem: "is " + strconv.FormatInt(s.Exp, 10) + ", not a time after 1970"}
	}
	return nil
}

// A FieldError is a value of the payload or of a [Signed] that is missing
// or of the wrong type. It never holds the value itself.
type FieldError struct {
	Field   string // "iss", "exp", "oauth_consumer_key", "lti1p1.user_id", ...
	Problem string // "is missing", "is a number, want a string", ...
}

func (e *FieldError) Error() string { return "lti1p1: " + e.Field + " " + e.Problem }

var (
	// ErrNoClaim is returned by [Launch.Verify] when the payload has no
	// LTI 1.1 migration claim, or one without oauth_consumer_key_sign.
	ErrNoClaim = errors.New("lti1p1: the id_token has no oauth_consumer_key_sign in the " + ClaimName + " claim")
	// ErrSignMismatch is returned by [Verify] and [Launch.Verify] when the
	// sign is not the HMAC of the values with the secret.
	// [Launch.Diagnose] says why.
	ErrSignMismatch = errors.New("lti1p1: oauth_consumer_key_sign does not verify: the platform signed other values or with another secret")
)

// Sign returns oauth_consumer_key_sign for s, the standard base64 of the
// HMAC-SHA256 of s's base string keyed with secret, the LTI 1.1 shared
// secret of s.ConsumerKey as it is. It fails when s lacks a value, and
// in FIPS 140-only mode for a secret shorter than 14 bytes; the error
// never holds the secret.
func Sign(secret string, s Signed) (string, error) {
	if err := s.check(); err != nil {
		return "", err
	}
	sum, err := hmacSum(crypto.SHA256, []byte(secret), s.BaseString())
	if err != nil {
		return "", err
	}
	return base64.StdEncoding.EncodeToString(sum), nil
}

// Verify reports whether sign, an oauth_consumer_key_sign as it was
// sent, is the sign of s with secret: nil if it is, [ErrSignMismatch] if
// not, a [*FieldError] if s lacks a value. When it is not, but would be
// with secret and sign swapped (the call passes them in the wrong order),
// the error says so, and errors.Is still finds ErrSignMismatch. The
// comparisons take constant time, and every mismatch computes the same two
// HMACs.
func Verify(secret string, s Signed, sign string) error {
	want, err := Sign(secret, s)
	if err != nil {
		return err
	}
	if subtle.ConstantTimeCompare([]byte(want), []byte(sign)) != 1 {
		// Sign fails here only for a key FIPS 140-only mode refuses: no
		// swap then.
		if swapped, err := Sign(sign, s); err == nil && subtle.ConstantTimeCompare([]byte(swapped), []byte(secret)) == 1 {
			return errSwapped{}
		}
		return ErrSignMismatch
	}
	return nil
}

// errSwapped is the ErrSignMismatch of a call to Verify with its secret
// and sign in each other's place. It holds neither.
type errSwapped struct{}

func (errSwapped) Error() string {
	return "lti1p1: oauth_consumer_key_sign does not verify as called, but does with the secret and the sign swapped: " +
		"Verify takes the secret first and the sign last"
}

func (errSwapped) Is(target error) bool { return target == ErrSignMismatch }

// hmacSum is the HMAC of base with h keyed with key; package mac refuses
// what FIPS 140-only mode forbids instead of panicking.
func hmacSum(h crypto.Hash, key []byte, base string) ([]byte, error) {
	m, err := mac.New(h, key)
	if err != nil {
		return nil, errors.New("lti1p1: " + strings.TrimPrefix(err.Error(), "oauth1: "))
	}
	m.Write([]byte(base))
	return m.Sum(nil), nil
}
