// Package lticlaim is the work of oauth1 lti1p1 verify: it reads an LTI 1.3
// id_token's payload (or a whole JWT, for its payload) and checks its LTI
// 1.1 migration claim with package oauth1/lti1p1, naming the platform's
// mistake when the claim does not verify.
package lticlaim

import (
	"bytes"
	"encoding/base64"
	"errors"
	"fmt"
	"io"
	"strings"

	"github.com/countersign/countersign/oauth1/lti1p1"
)

// A Result is what Verify found.
type Result int

const (
	Verified    Result = iota // the claim verifies
	NotVerified               // it does not, or cannot be checked
	Unreadable                // the input is not an id_token payload
)

// Verify checks the migration claim of payload with secret and writes what
// it finds to w. An error says why nothing could be checked: with
// Unreadable, the input is not a payload.
func Verify(w io.Writer, payload []byte, secret string) (Result, error) {
	l, err := lti1p1.Parse(payload)
	if err != nil {
		return Unreadable, err
	}
	if l.Claim == nil || l.Claim.OAuthConsumerKeySign == "" {
		return NotVerified, fmt.Errorf("%w: the platform sent no LTI 1.1 migration claim; nothing to verify", lti1p1.ErrNoClaim)
	}
	s := l.Signed
	err = l.Verify(secret)
	var fe *lti1p1.FieldError
	switch {
	case err == nil:
		fmt.Fprintf(w, "oauth_consumer_key_sign verifies: oauth_consumer_key %q, deployment_id %q, LTI 1.1 user_id %q\n", s.ConsumerKey, s.DeploymentID, l.Claim.UserID)
		return Verified, nil
	case errors.As(err, &fe):
		return NotVerified, fmt.Errorf("cannot verify oauth_consumer_key_sign: the payload's %s", strings.TrimPrefix(err.Error(), "lti1p1: "))
	}
	fmt.Fprintln(w, "oauth_consumer_key_sign does not verify.")
	fmt.Fprintf(w, "The tool signed:  %q\n", s.BaseString())
	m, _ := l.Diagnose(secret)
	if m.Kind == lti1p1.Unknown || m.Kind == lti1p1.Unchecked {
		fmt.Fprintln(w, "Why: "+m.Cause+".")
	} else {
		fmt.Fprintln(w, "Why: the platform's mistake is "+m.String()+".")
	}
	return NotVerified, nil
}

// ReadPayload reads in, at most lti1p1.MaxPayload bytes and a JWT's worth
// more, and takes the payload out of a whole JWT, which it says on stderr.
func ReadPayload(in io.Reader, stderr io.Writer) ([]byte, error) {
	limit := int64(lti1p1.MaxPayload)*4/3 + 4096 // a JWT: base64url of the payload, header and signature
	raw, err := io.ReadAll(io.LimitReader(in, limit+1))
	if err != nil {
		return nil, fmt.Errorf("reading the payload: %w", err)
	}
	if int64(len(raw)) > limit {
		return nil, fmt.Errorf("the input is over %d bytes; an id_token payload is a few kilobytes", limit)
	}
	raw = bytes.TrimSpace(raw)
	if parts := bytes.Split(raw, []byte(".")); len(parts) == 3 && !bytes.HasPrefix(raw, []byte("{")) {
		d, err := base64.RawURLEncoding.DecodeString(string(bytes.TrimRight(parts[1], "=")))
		if err != nil {
			return nil, fmt.Errorf("the input looks like a JWT, but its payload is not base64url: %v", err)
		}
		fmt.Fprintln(stderr, "oauth1: read the payload of a JWT; its signature is not checked here, as the tool's JWT library checks it")
		return d, nil
	}
	return raw, nil
}
