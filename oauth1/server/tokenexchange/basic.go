package tokenexchange

import (
	"errors"
	"net/url"
)

// basicCredentials are the client credentials of an HTTP Basic header,
// form-decoded as RFC 6749 §2.3.1 says, and as sent: Python's requests
// and Authlib's client_secret_basic send them raw, so that a secret with
// '+', '%' or ':' is not the one registered once decoded.
type basicCredentials struct {
	id, secret       string // form-decoded, or as sent when that fails
	rawID, rawSecret string // as sent
}

func formDecoded(id, secret string) basicCredentials {
	c := basicCredentials{id: id, secret: secret, rawID: id, rawSecret: secret}
	if d, err := url.QueryUnescape(id); err == nil {
		c.id = d
	}
	if d, err := url.QueryUnescape(secret); err == nil {
		c.secret = d
	}
	return c
}

// matches reports whether the secret, form-decoded or as sent, is want.
// Both are compared, in constant time, whichever matches: the time
// taken says neither whether one did nor which.
func (c basicCredentials) matches(want string) bool {
	decoded := equalSecret(c.secret, want)
	raw := equalSecret(c.rawSecret, want)
	return decoded || raw
}

// clientFailed is the description of a client that failed to
// authenticate: the same for an unknown client and a wrong secret, so
// that it tells nothing of which clients exist. For Basic it names the
// two forms tried, the mistake a client most often makes.
func clientFailed(basic bool) string {
	if basic {
		return "client authentication failed: the client is unknown, or its secret matches neither form-decoded (RFC 6749 section 2.3.1) nor as sent"
	}
	return "client authentication failed: the client is unknown or its secret wrong"
}

// errSecretMismatch is the cause, for Observe, of a client secret that
// matched in no form: it tells a wrong secret from an unknown client.
var errSecretMismatch = errors.New("the client secret does not match")
