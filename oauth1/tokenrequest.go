package oauth1

import (
	"context"
	"errors"
	"net/http"
	"strings"

	"github.com/countersign/countersign/oauth1/internal/wire"
)

// newTokenRequest returns a token request to rawURL and the protocol
// parameters to sign it with: p (unless its name is empty) and the extra
// parameters named oauth_*. The other extra parameters are request
// parameters: a form body, or the query of a GET or HEAD request.
func newTokenRequest(ctx context.Context, method, rawURL string, p Param, extra []Param) ([]Param, *http.Request, error) {
	var proto []Param
	if p.Name != "" {
		proto = append(proto, p)
	}
	var form []byte
	for _, e := range extra {
		switch {
		case e.Name == "":
			return nil, nil, errors.New("extra parameter with an empty name")
		case strings.HasPrefix(e.Name, "oauth_"):
			proto = append(proto, e)
			continue
		}
		if len(form) > 0 {
			form = append(form, '&')
		}
		form = wire.AppendPair(form, e.Name, e.Value)
	}
	inQuery := method == http.MethodGet || method == http.MethodHead
	var body *strings.Reader
	if len(form) > 0 && !inQuery {
		body = strings.NewReader(string(form))
	}
	var req *http.Request
	var err error
	if body != nil {
		req, err = http.NewRequestWithContext(ctx, method, rawURL, body)
	} else {
		req, err = http.NewRequestWithContext(ctx, method, rawURL, nil)
	}
	if err != nil {
		return nil, nil, err
	}
	switch {
	case body != nil:
		req.Header.Set("Content-Type", wire.FormType)
	case len(form) > 0:
		u := *req.URL
		if u.RawQuery != "" {
			u.RawQuery += "&"
		}
		u.RawQuery += string(form)
		req.URL = &u
	}
	return proto, req, nil
}
