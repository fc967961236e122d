package oauth1

import (
	"bytes"
	"errors"
	"io"
	"net/http"
	"net/url"
	"strconv"
	"strings"

	"github.com/countersign/countersign/oauth1/internal/notice"
	"github.com/countersign/countersign/oauth1/internal/redact"
)

// A ResponseError reports a provider's answer with a status other than 2xx,
// from a token endpoint or, through [CheckResponse], from any request. Its
// ProblemReport holds the parameters of the OAuth Problem Reporting
// extension, read from a form-encoded body or a WWW-Authenticate: OAuth
// challenge, when there are any: the fields a server.ProblemError sends,
// under the same names.
//
// Error names the token endpoint that answered, for the flow's token
// requests ("temporary credential request" or "token request", and its URL
// without oauth_* query parameters or a password), and notes a request
// signed with an empty consumer secret, or with a token and an empty token
// secret (never the secrets themselves): a key that is usually a missing
// variable, and that a provider which issued secrets refuses. What the
// provider chose is printed on one line of bounded size: the problem code
// and at most 8 parameter names of each list, each cut to 64 bytes and
// quoted, control characters escaped, unless made of letters, digits and
// "-._~:/"; at most 256 bytes of Advice, quoted likewise when it holds a
// control character or invalid UTF-8. Body is never printed. When the
// provider announced the retirement of its API, with the Deprecation (RFC
// 9745) or Sunset (RFC 8594) header and a Link to its migration guide, as
// providers retiring OAuth 1.0a do, Error names the dates and the link
// (package [github.com/countersign/countersign/oauth1/sunset] reads them
// from any response).
type ResponseError struct {
	StatusCode int

	// ProblemReport holds oauth_problem, oauth_parameters_absent,
	// oauth_parameters_rejected, oauth_acceptable_timestamps and
	// oauth_problem_advice.
	ProblemReport

	// Body is the start of the body, at most 1 KiB. It is empty when the
	// body mentions oauth_token_secret. In other bodies, which may echo
	// the refused request, the value of any oauth_signature parameter
	// and, for the flow's token requests and the requests a [Transport]
	// signed, the consumer and token secrets (and, for token requests, the
	// signature and an xAuth password) that were sent, in the spellings
	// an echo uses (as they are; percent-encoded up to three times, with
	// "+" or "%20" for a space; in JSON's \u0026 escapes or HTML's &amp;
	// entities, nested in one another; in base64), are replaced with
	// "REDACTED". A PLAINTEXT signature, whose value holds an "&", is
	// redacted whole, also when a page writes a space for the "&". Every
	// field of ProblemReport, from a body or a WWW-Authenticate challenge,
	// is scrubbed the same way.
	Body []byte

	// BaseString is the signature base string the provider computed, when
	// it sends it back with a signature_invalid problem as the parameter
	// oauth_signature_base_string of a form-encoded body (a sandbox's
	// server.Verifier does, with SendBaseString). It is read from the
	// whole body, not from Body. A base string is made of the method, the
	// URL and the parameters of the request, as the client's own is: it
	// never holds oauth_signature or a secret, and one that names
	// oauth_signature or oauth_token_secret, or holds the consumer or
	// token secret the request was signed with, is left out. Like the
	// request, it holds every signed parameter (an xAuth x_auth_password
	// in the body is one; a token request leaves such a base string out).
	//
	// When the request was signed by a [Transport] (as [Config.Client]'s
	// are) or is a token request of the flow, Error compares the two base
	// strings, as package
	// [github.com/countersign/countersign/oauth1/basestring]'s Diff does,
	// and names the first difference and its likely cause: a scheme that
	// a proxy terminating TLS changed, a form body that was not signed, a
	// value encoded twice, and the like; or, when they are equal, says
	// that the key differs.
	BaseString string

	diagnosis string // how BaseString differs from the base string signed
	endpoint  string // the token endpoint that answered, and its URL
	emptyKey  string // the empty secrets the request was signed with
	retiring  string // the Deprecation and Sunset the provider announced
}

func (e *ResponseError) Error() string {
	msg := "oauth1: "
	if e.endpoint != "" {
		msg += e.endpoint + ": "
	}
	msg += "provider answered " + strconv.Itoa(e.StatusCode)
	if t := http.StatusText(e.StatusCode); t != "" {
		msg += " " + t
	}
	if e.Problem != "" {
		msg += ": oauth_problem=" + redact.Name(string(e.Problem))
	}
	for _, ps := range [...][]string{e.ParamsAbsent, e.ParamsRejected} {
		if len(ps) > 0 {
			msg += " (" + redact.Names(ps) + ")"
		}
	}
	if e.MinTimestamp != 0 || e.MaxTimestamp != 0 {
		msg += " (acceptable " + strconv.FormatInt(e.MinTimestamp, 10) + "-" + strconv.FormatInt(e.MaxTimestamp, 10) + ")"
	}
	if e.Advice != "" {
		msg += " (" + redact.Printable(e.Advice, redact.MaxTextLen) + ")"
	}
	if e.emptyKey != "" {
		msg += " (the request was signed with " + e.emptyKey + ")"
	}
	if e.diagnosis != "" {
		// It quotes names and values of the provider's base string.
		msg += " (" + redact.Printable(e.diagnosis, redact.MaxErrLen) + ")"
	}
	if e.retiring != "" {
		msg += " (" + e.retiring + ")"
	}
	return msg
}

// from records that e answers the request what ("temporary credential
// request", "token request", ...) to rawURL, signed by c with tok, and
// returns e.
func (e *ResponseError) from(what, rawURL string, c *Config, tok *Credentials) *ResponseError {
	e.endpoint = what + " to " + stripProtocolQuery(rawURL, "")
	e.emptyKey = emptyKey(c, tok)
	return e
}

// emptyKey names the empty secrets of the key c signs with, with tok: an
// empty consumer secret, or a token without its secret. Neither counts
// for the RSA methods, whose key is the private key.
func emptyKey(c *Config, tok *Credentials) string {
	consumer, token := emptySecrets(c, tok)
	switch {
	case consumer && token:
		return "an empty consumer secret and an empty token secret"
	case consumer:
		return "an empty consumer secret"
	case token:
		return "an empty token secret"
	}
	return ""
}

// CheckResponse returns nil if resp's status is 2xx and otherwise a
// [*ResponseError] describing it, as the token requests of the flow do: the
// status, the OAuth Problem Reporting parameters (oauth_problem and its
// advice, the absent or rejected parameters and the acceptable timestamps)
// from a form-encoded body or, failing that, from a WWW-Authenticate: OAuth
// challenge, and an excerpt of the body. Use it on the answers to requests
// from [Config.Client] or signed with [Config.Sign].
//
// CheckResponse reads at most 64 KiB of the body and puts what it read back
// in front of the rest, so resp.Body can still be read from the start and
// must still be closed. A body that cannot be read is reported from what
// was read: the status is the error.
//
// When a provider answers signature_invalid with the base string it
// computed (see [ResponseError].BaseString), and resp answers a request
// that a [Transport] signed (resp.Request is the request it sent, which
// records what it signed), the error names the first difference between
// that base string and the one signed.
func CheckResponse(resp *http.Response) error {
	if resp == nil {
		return errors.New("oauth1: CheckResponse: nil response")
	}
	if resp.StatusCode >= 200 && resp.StatusCode <= 299 {
		return nil
	}
	var body []byte
	complete := true
	if resp.Body != nil && resp.Body != http.NoBody {
		body, _ = io.ReadAll(io.LimitReader(resp.Body, maxResponseBytes))
		resp.Body = readCloser{io.MultiReader(bytes.NewReader(body), resp.Body), resp.Body}
		complete = len(body) < maxResponseBytes
	}
	var secrets []string
	var signed string
	rec := sentOf(resp)
	if rec != nil {
		signed, secrets = rec.base, []string{rec.c.ConsumerSecret, rec.tok.secret()}
	}
	e := newResponseError(resp.StatusCode, body, secrets...)
	e.retiring = notice.Read(resp.Header).String()
	if rec != nil {
		e.emptyKey = emptyKey(rec.c, rec.tok)
	}
	if e.Problem == "" {
		for _, h := range resp.Header.Values("WWW-Authenticate") {
			ps, err := ParseAuthHeader(h)
			if err != nil {
				continue // another scheme, or not a well-formed challenge
			}
			v := make(url.Values, len(ps))
			for _, p := range ps {
				v.Add(p.Name, p.Value)
			}
			if v.Has("oauth_problem") {
				e.setProblem(v, "", secrets...)
				break
			}
		}
	}
	if complete {
		e.setBaseString(body, signed, secrets...)
	}
	return e
}

type readCloser struct {
	io.Reader
	io.Closer
}

// setProblem reads the parameters of the OAuth Problem Reporting extension,
// from a body or a challenge, with every value scrubbed of secrets as Body
// is (see scrubEcho): a provider may echo the refused request in any of
// them. A list is scrubbed whole, before it is split at its "&"s, so that
// a PLAINTEXT signature's two halves are found together.
//
// cut names the parameter that ran into the end of a body cut short, or is
// "": its value may end with the start of a secret, which is redacted (see
// scrubCut).
func (e *ResponseError) setProblem(v url.Values, cut string, secrets ...string) {
	get := func(name string) string {
		b := []byte(v.Get(name))
		if name == cut {
			b = scrubCut(b, secrets...)
		}
		return string(scrubEcho(b, secrets...))
	}
	e.Problem, e.Advice = Problem(get("oauth_problem")), get("oauth_problem_advice")
	e.ParamsAbsent, e.ParamsRejected = nil, nil
	if list := get("oauth_parameters_absent"); list != "" {
		e.ParamsAbsent = strings.Split(list, "&")
	}
	if list := get("oauth_parameters_rejected"); list != "" {
		e.ParamsRejected = strings.Split(list, "&")
	}
	// "min-max", both Unix times; a malformed range is left out.
	a, b, ok := strings.Cut(v.Get("oauth_acceptable_timestamps"), "-")
	lo, err1 := strconv.ParseInt(a, 10, 64)
	hi, err2 := strconv.ParseInt(b, 10, 64)
	if ok && err1 == nil && err2 == nil {
		e.MinTimestamp, e.MaxTimestamp = lo, hi
	}
}

// cutParam returns the name of the last parameter of body, a form cut
// short by a limit on reading when it is maxResponseBytes long or more, or
// "" when body is shorter.
func cutParam(body []byte) string {
	if len(body) < maxResponseBytes {
		return ""
	}
	last := body[bytes.LastIndexByte(body, '&')+1:]
	name, _, _ := bytes.Cut(last, []byte("="))
	if n, err := url.QueryUnescape(string(name)); err == nil {
		return n
	}
	return string(name)
}
