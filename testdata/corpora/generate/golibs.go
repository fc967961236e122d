package main

import (
	"bytes"
	"context"
	"errors"
	"io"
	"net/http"
	"net/url"
	"os"
	"runtime/debug"
	"strings"
	"sync"

	"github.com/dghubble/oauth1"
	"github.com/mrjones/oauth"
)

// version returns the version of module path in this build.
func version(path string) string {
	if bi, ok := debug.ReadBuildInfo(); ok {
		for _, d := range bi.Deps {
			if d.Path == path {
				return d.Version
			}
		}
	}
	return "unknown"
}

// capture is a transport that keeps the request it is given and sends
// nothing.
type capture struct{ req *http.Request }

func (c *capture) RoundTrip(r *http.Request) (*http.Response, error) {
	c.req = r
	return &http.Response{StatusCode: 204, Body: io.NopCloser(strings.NewReader("")), Request: r}, nil
}

func (c *capture) Do(r *http.Request) (*http.Response, error) { return c.RoundTrip(r) }

// newRequest builds r as net/http would send it.
func newRequest(r request) (*http.Request, error) {
	var body io.Reader
	if r.Body != "" {
		body = strings.NewReader(r.Body)
	}
	req, err := http.NewRequest(r.Method, r.URL, body)
	if err != nil {
		return nil, err
	}
	if r.ContentType != "" {
		req.Header.Set("Content-Type", r.ContentType)
	}
	return req, nil
}

// wire returns the URL of the request as it went on the wire.
func wire(r *http.Request) string {
	host := r.Host
	if host == "" {
		host = r.URL.Host
	}
	return r.URL.Scheme + "://" + host + r.URL.RequestURI()
}

// authParam returns the value of name in an OAuth Authorization header.
func authParam(h, name string) string {
	for p := range strings.SplitSeq(strings.TrimPrefix(h, "OAuth "), ",") {
		n, v, _ := strings.Cut(strings.TrimSpace(p), "=")
		if n == name {
			v, _ = url.PathUnescape(strings.Trim(v, `"`))
			return v
		}
	}
	return ""
}

// headerParams returns the protocol parameters of an OAuth Authorization
// header as sent, or nil if h holds none.
func headerParams(h string) map[string]string {
	rest, ok := strings.CutPrefix(h, "OAuth ")
	if !ok {
		return nil
	}
	ps := map[string]string{}
	for p := range strings.SplitSeq(rest, ",") {
		n, v, ok := strings.Cut(strings.TrimSpace(p), "=")
		if !ok {
			return nil
		}
		n, err1 := url.PathUnescape(n)
		v, err2 := url.PathUnescape(strings.Trim(v, `"`))
		if err1 != nil || err2 != nil {
			return nil
		}
		ps[n] = v
	}
	if ps["oauth_consumer_key"] == "" {
		return nil
	}
	return ps
}

// recorder is a dghubble/oauth1 Signer that keeps the message it signs.
type recorder struct {
	oauth1.HMACSigner
	message string
}

func (s *recorder) Sign(key, message string) (string, error) {
	s.message = message
	return s.HMACSigner.Sign(key, message)
}

type fixedNonce string

func (n fixedNonce) Nonce() string { return string(n) }

func dghubble(rs []request) ([]result, error) {
	v := version("github.com/dghubble/oauth1")
	res := make([]result, len(rs))
	for i, r := range rs {
		res[i] = result{ID: r.ID, Version: v}
		req, err := newRequest(r)
		if err != nil {
			res[i].Error = err.Error()
			continue
		}
		s := &recorder{HMACSigner: oauth1.HMACSigner{ConsumerSecret: r.ConsumerSecret}}
		c := &capture{}
		cfg := &oauth1.Config{ConsumerKey: r.ConsumerKey, ConsumerSecret: r.ConsumerSecret, Signer: s, Noncer: fixedNonce(r.Nonce)}
		ctx := context.WithValue(context.Background(), oauth1.HTTPClient, &http.Client{Transport: c})
		// The library signs with no token when the token is empty.
		resp, err := cfg.Client(ctx, oauth1.NewToken(r.Token, r.TokenSecret)).Do(req)
		if err != nil {
			res[i].Error = err.Error()
			continue
		}
		resp.Body.Close()
		if c.req == nil {
			res[i].Error = "nothing sent"
			continue
		}
		h := c.req.Header.Get("Authorization")
		res[i].Got, res[i].Authorization, res[i].URL = s.message, h, wire(c.req)
		res[i].Nonce, res[i].Timestamp = authParam(h, "oauth_nonce"), authParam(h, "oauth_timestamp")
	}
	return res, nil
}

// stdoutMu serializes the borrowing of os.Stdout by mrjones.
var stdoutMu sync.Mutex

// mrjones signs r with mrjones/oauth, whose signer is unexported: the
// base string is read from what its debug mode prints ("Signing: ", then
// the message, then a line "Key: " and the key).
func mrjones(rs []request) ([]result, error) {
	v := version("github.com/mrjones/oauth")
	res := make([]result, len(rs))
	for i, r := range rs {
		res[i] = result{ID: r.ID, Version: v}
		req, err := newRequest(r)
		if err != nil {
			res[i].Error = err.Error()
			continue
		}
		c := &capture{}
		cons := oauth.NewConsumer(r.ConsumerKey, r.ConsumerSecret, oauth.ServiceProvider{})
		cons.HttpClient = c
		client, err := cons.MakeHttpClient(&oauth.AccessToken{Token: r.Token, Secret: r.TokenSecret})
		if err != nil {
			return nil, err
		}
		printed, err := stdout(func() error {
			cons.Debug(true)
			resp, err := client.Do(req)
			if err == nil {
				resp.Body.Close()
			}
			return err
		})
		if err != nil {
			res[i].Error = err.Error()
			continue
		}
		key := "\nKey: " + url.QueryEscape(r.ConsumerSecret) + "&" + url.QueryEscape(r.TokenSecret) + "\n"
		_, after, ok := strings.Cut(printed, "Signing: ")
		msg, _, ok2 := strings.Cut(after, key)
		if !ok || !ok2 || c.req == nil {
			return nil, errors.New("mrjones: no base string in its debug output: " + printed)
		}
		h := c.req.Header.Get("Authorization")
		res[i].Got, res[i].Authorization, res[i].URL = msg, h, wire(c.req)
		res[i].Nonce, res[i].Timestamp = authParam(h, "oauth_nonce"), authParam(h, "oauth_timestamp")
	}
	return res, nil
}

// stdout runs f with os.Stdout read into the string it returns.
func stdout(f func() error) (string, error) {
	stdoutMu.Lock()
	defer stdoutMu.Unlock()
	rd, wr, err := os.Pipe()
	if err != nil {
		return "", err
	}
	old := os.Stdout
	os.Stdout = wr
	var buf bytes.Buffer
	done := make(chan struct{})
	go func() { io.Copy(&buf, rd); close(done) }()
	err = f()
	os.Stdout = old
	wr.Close()
	<-done
	rd.Close()
	return buf.String(), err
}
