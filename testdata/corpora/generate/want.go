package main

import (
	"errors"
	"net/url"
	"slices"
	"strings"

	"github.com/countersign/countersign/internal/vectors"
)

// want returns the RFC 5849 section 3.4.1 base string of the request as
// sent (method, URL, body, content type) with the protocol parameters
// oauth, from net/url and the independent encoder of internal/vectors:
// none of the code under test.
func want(method, rawURL, body, contentType string, oauth map[string]string) (string, error) {
	rawURL, _, _ = strings.Cut(rawURL, "#")
	scheme, rest, ok := strings.Cut(rawURL, "://")
	if !ok {
		return "", errors.New("no scheme")
	}
	scheme = strings.ToLower(scheme)
	i := strings.IndexAny(rest, "/?")
	if i < 0 {
		i = len(rest)
	}
	host, target := strings.ToLower(rest[:i]), rest[i:]
	if scheme == "http" && strings.HasSuffix(host, ":80") || scheme == "https" && strings.HasSuffix(host, ":443") {
		host = host[:strings.LastIndexByte(host, ':')]
	}
	path, query, _ := strings.Cut(target, "?")
	if path == "" {
		path = "/"
	}
	var ps [][2]string
	add := func(raw string) error {
		for kv := range strings.SplitSeq(raw, "&") {
			if kv == "" {
				continue
			}
			n, v, _ := strings.Cut(kv, "=")
			dn, err := url.QueryUnescape(n)
			if err != nil {
				return err
			}
			dv, err := url.QueryUnescape(v)
			if err != nil {
				return err
			}
			ps = append(ps, [2]string{vectors.Encode(dn), vectors.Encode(dv)})
		}
		return nil
	}
	if err := add(query); err != nil {
		return "", err
	}
	mt, _, _ := strings.Cut(strings.ToLower(contentType), ";")
	if strings.TrimSpace(mt) == formType {
		if err := add(body); err != nil {
			return "", err
		}
	}
	for n, v := range oauth {
		if n != "realm" && n != "oauth_signature" {
			ps = append(ps, [2]string{vectors.Encode(n), vectors.Encode(v)})
		}
	}
	slices.SortFunc(ps, func(a, b [2]string) int {
		if c := strings.Compare(a[0], b[0]); c != 0 {
			return c
		}
		return strings.Compare(a[1], b[1])
	})
	norm := make([]string, len(ps))
	for i, p := range ps {
		norm[i] = p[0] + "=" + p[1]
	}
	return strings.ToUpper(method) + "&" + vectors.Encode(scheme+"://"+host+path) + "&" + vectors.Encode(strings.Join(norm, "&")), nil
}

// protocol returns the protocol parameters of r as signed with nonce and
// timestamp (those the library chose, when it chose them).
func protocol(r request, nonce, timestamp string) map[string]string {
	p := map[string]string{
		"oauth_consumer_key":     r.ConsumerKey,
		"oauth_nonce":            nonce,
		"oauth_signature_method": "HMAC-SHA1",
		"oauth_timestamp":        timestamp,
		"oauth_version":          "1.0",
	}
	if r.Token != "" {
		p["oauth_token"] = r.Token
	}
	return p
}
