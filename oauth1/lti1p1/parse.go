package lti1p1

import (
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"math"
	"strconv"
	"strings"
)

// MaxPayload is the largest id_token payload [Parse] reads, in bytes: an
// LTI 1.3 launch with its custom claims, roles and service endpoints
// holds a few kilobytes, so 1 MiB leaves room to spare, and a caller can
// bound its own read of a launch by it.
//
// Its value is a promise of v1: every v1.x reads payloads of up to 1 MiB
// and refuses larger ones. Only a major version may change it.
const MaxPayload = 1 << 20

// A Launch is what [Parse] takes out of a decoded id_token's payload.
type Launch struct {
	Claim  *Claim // the LTI 1.1 migration claim; nil when the payload has none
	Signed Signed // the values the sign covers, from the claim and the payload

	// Audience is aud as sent, one or several; AuthorizedParty is azp.
	// [Launch.Diagnose] tries the other audiences as client_id.
	Audience        []string
	AuthorizedParty string
}

// Parse reads the JSON payload of an id_token (the middle part of the JWT,
// base64url-decoded, after the tool verified the JWT): iss, aud, azp, exp,
// nonce, the deployment_id claim and the LTI 1.1 migration claim. Names
// are matched exactly, as JSON Web Token claims are (RFC 7519 §4); a name
// Parse reads given twice, a member of the wrong type, a payload over
// [MaxPayload] bytes or that is not one JSON object is an error. Members
// missing from the payload leave their field empty: [Launch.Verify] says
// which the sign needs. exp must be a whole number of seconds; 1.7e9 and
// 1700000000.0 are read as 1700000000.
//
// Client_id is aud when aud is one audience (a string, or an array of
// one), and azp when aud is several; several without azp is an error.
func Parse(payload []byte) (*Launch, error) {
	if len(payload) > MaxPayload {
		return nil, errors.New("lti1p1: the payload has " + strconv.Itoa(len(payload)) + " bytes, over the " + strconv.Itoa(MaxPayload) + " Parse reads")
	}
	top, err := members(payload, "payload", map[string]bool{"iss": true, "aud": true, "azp": true, "exp": true, "nonce": true, deploymentClaim: true, ClaimName: true})
	if err != nil {
		return nil, err
	}
	l := &Launch{}
	s := &l.Signed
	for _, f := range []struct {
		name string
		dst  *string
	}{{"iss", &s.Issuer}, {"nonce", &s.Nonce}, {deploymentClaim, &s.DeploymentID}, {"azp", &l.AuthorizedParty}} {
		if *f.dst, err = stringMember(top, f.name, f.name); err != nil {
			return nil, err
		}
	}
	if l.Audience, err = audience(top["aud"]); err != nil {
		return nil, err
	}
	switch {
	case len(l.Audience) == 1:
		s.ClientID = l.Audience[0]
	case len(l.Audience) > 1 && l.AuthorizedParty == "":
		return nil, &FieldError{Field: "azp", Problem: "is missing, and aud names " + strconv.Itoa(len(l.Audience)) + " audiences: client_id is azp then (OpenID Connect Core §3.1.3.7)"}
	case len(l.Audience) > 1:
		s.ClientID = l.AuthorizedParty
	}
	if s.Exp, err = exp(top["exp"]); err != nil {
		return nil, err
	}
	if raw, ok := top[ClaimName]; ok && !isNull(raw) {
		if l.Claim, err = parseClaim(raw); err != nil {
			return nil, err
		}
		s.ConsumerKey = l.Claim.OAuthConsumerKey
	}
	return l, nil
}

// claimFields are the claim's members, in the order of Claim.
var claimFields = []string{"user_id", "context_id", "resource_link_id", "tool_consumer_instance_guid", "oauth_consumer_key", "oauth_consumer_key_sign"}

func parseClaim(raw json.RawMessage) (*Claim, error) {
	want := map[string]bool{}
	for _, f := range claimFields {
		want[f] = true
	}
	m, err := members(raw, "the lti1p1 claim", want)
	if err != nil {
		return nil, err
	}
	c := &Claim{}
	for i, dst := range []*string{&c.UserID, &c.ContextID, &c.ResourceLinkID, &c.ToolConsumerInstanceGUID, &c.OAuthConsumerKey, &c.OAuthConsumerKeySign} {
		if *dst, err = stringMember(m, claimFields[i], "lti1p1."+claimFields[i]); err != nil {
			return nil, err
		}
	}
	return c, nil
}

// members reads data, one JSON object, and returns the members whose
// names want holds, refusing a repeated one. Other members are skipped.
func members(data []byte, what string, want map[string]bool) (map[string]json.RawMessage, error) {
	d := json.NewDecoder(bytes.NewReader(data))
	d.UseNumber()
	if t, err := d.Token(); err != nil || t != json.Delim('{') {
		return nil, errors.New("lti1p1: " + what + " is not a JSON object" + jsonErr(err))
	}
	out := map[string]json.RawMessage{}
	for d.More() {
		t, err := d.Token()
		if err != nil {
			return nil, errors.New("lti1p1: " + what + " is not valid JSON" + jsonErr(err))
		}
		name, _ := t.(string)
		var v json.RawMessage
		if err := d.Decode(&v); err != nil {
			return nil, errors.New("lti1p1: " + what + " is not valid JSON" + jsonErr(err))
		}
		if !want[name] {
			continue
		}
		if _, dup := out[name]; dup {
			return nil, &FieldError{Field: name, Problem: "is given twice in " + what + "; a JWT's claim names are unique (RFC 7519 §4)"}
		}
		out[name] = v
	}
	if _, err := d.Token(); err != nil {
		return nil, errors.New("lti1p1: " + what + " is not valid JSON" + jsonErr(err))
	}
	if _, err := d.Token(); err != io.EOF {
		return nil, errors.New("lti1p1: " + what + " has data after its JSON object")
	}
	return out, nil
}

// jsonErr is ": " and err, or "" for no error. encoding/json's syntax
// errors name offsets and characters, never whole values.
func jsonErr(err error) string {
	if err == nil || err == io.EOF {
		return ""
	}
	return ": " + err.Error()
}

func isNull(raw json.RawMessage) bool { return string(bytes.TrimSpace(raw)) == "null" }

// kind names the JSON type of raw, for an error.
func kind(raw json.RawMessage) string {
	switch b := bytes.TrimSpace(raw); {
	case len(b) == 0:
		return "empty"
	case b[0] == '"':
		return "a string"
	case b[0] == '{':
		return "an object"
	case b[0] == '[':
		return "an array"
	case b[0] == 't' || b[0] == 'f':
		return "a boolean"
	case b[0] == 'n':
		return "null"
	}
	return "a number"
}

// stringMember returns m[name] as a string: "" when it is missing or
// null, an error naming field when it is of another type.
func stringMember(m map[string]json.RawMessage, name, field string) (string, error) {
	raw, ok := m[name]
	if !ok || isNull(raw) {
		return "", nil
	}
	var s string
	if err := json.Unmarshal(raw, &s); err != nil {
		return "", &FieldError{Field: field, Problem: "is " + kind(raw) + ", want a string"}
	}
	return s, nil
}

// audience reads aud: a string, or an array of strings.
func audience(raw json.RawMessage) ([]string, error) {
	if raw == nil || isNull(raw) {
		return nil, nil
	}
	var one string
	if json.Unmarshal(raw, &one) == nil {
		return []string{one}, nil
	}
	var many []string
	if err := json.Unmarshal(raw, &many); err != nil || len(many) == 0 {
		return nil, &FieldError{Field: "aud", Problem: "is " + kind(raw) + ", want a string or a non-empty array of strings"}
	}
	return many, nil
}

// exp reads exp, a JSON number that is a whole number of seconds.
func exp(raw json.RawMessage) (int64, error) {
	if raw == nil || isNull(raw) {
		return 0, nil
	}
	if kind(raw) != "a number" {
		return 0, &FieldError{Field: "exp", Problem: "is " + kind(raw) + ", want a number of seconds"}
	}
	var n json.Number
	if err := json.Unmarshal(raw, &n); err != nil {
		return 0, &FieldError{Field: "exp", Problem: "is not a JSON number"}
	}
	if i, err := strconv.ParseInt(n.String(), 10, 64); err == nil {
		return i, nil
	}
	f, err := strconv.ParseFloat(n.String(), 64)
	// Whole seconds only, and within the range a float64 holds exactly.
	if err != nil || f != math.Trunc(f) || math.Abs(f) > 1<<53 {
		return 0, &FieldError{Field: "exp", Problem: "is " + shorten(n.String()) + ", not a whole number of seconds: the sign covers exp as a decimal integer"}
	}
	return int64(f), nil
}

// shorten keeps an error short whatever the input: a number of a
// megabyte is cut.
func shorten(s string) string {
	if len(s) > 40 {
		return s[:40] + "..."
	}
	return strings.Clone(s)
}
