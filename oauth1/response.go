package oauth1

import (
	"bytes"
	"errors"
	"io"
	"net/http"
	"net/url"
	"strconv"
	"strings"
)

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
	if rec := sentOf(resp); rec != nil {
		signed, secrets = rec.base, []string{rec.c.ConsumerSecret, rec.tok.secret()}
	}
	e := newResponseError(resp.StatusCode, body, secrets...)
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
				e.setProblem(v)
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

// setProblem reads the parameters of the OAuth Problem Reporting extension.
func (e *ResponseError) setProblem(v url.Values) {
	e.Problem, e.Advice = Problem(v.Get("oauth_problem")), v.Get("oauth_problem_advice")
	e.Params = nil
	for _, name := range []string{"oauth_parameters_absent", "oauth_parameters_rejected"} {
		if list := v.Get(name); list != "" {
			e.Params = strings.Split(list, "&")
			break
		}
	}
	// "min-max", both Unix times; a malformed range is left out.
	a, b, ok := strings.Cut(v.Get("oauth_acceptable_timestamps"), "-")
	lo, err1 := strconv.ParseInt(a, 10, 64)
	hi, err2 := strconv.ParseInt(b, 10, 64)
	if ok && err1 == nil && err2 == nil {
		e.MinTimestamp, e.MaxTimestamp = lo, hi
	}
}
