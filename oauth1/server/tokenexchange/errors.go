package tokenexchange

import (
	"encoding/json"
	"errors"
	"net/http"
)

// Error is a refusal of a token exchange, answered as RFC 6749 §5.2 says:
// a JSON object with "error" and "error_description", with status 400, or
// 401 for invalid_client, 405 for a method other than POST, 503 for
// temporarily_unavailable and 500 for server_error. An [Issuer] may
// return one to refuse a grant (invalid_scope, say); any other error from
// it is answered server_error, its text for Observe only.
//
// Description is sent to the client: it must hold no secret. Those this
// package writes are fixed sentences and never repeat what the request
// held.
type Error struct {
	Code        string // "invalid_request", "invalid_client", "invalid_grant", ...
	Description string // for the client's developer; printable ASCII, no secret
	cause       error  // for Observe only, never sent
	status      int    // the HTTP status, when the code's is not it (405)
}

func (e *Error) Error() string {
	s := "tokenexchange: " + e.Code
	if e.Description != "" {
		s += ": " + e.Description
	}
	if e.cause != nil {
		s += ": " + e.cause.Error()
	}
	return s
}

// Unwrap returns the cause, if any: a store's error, say.
func (e *Error) Unwrap() error { return e.cause }

// The error codes of RFC 6749 §5.2 and RFC 8693 §2.2.2 this package
// answers, and those of RFC 6749 §4.1.2.1 it uses at the token endpoint
// as servers commonly do (temporarily_unavailable, server_error).
const (
	codeInvalidRequest       = "invalid_request"
	codeInvalidClient        = "invalid_client"
	codeUnsupportedGrantType = "unsupported_grant_type"
	codeInvalidScope         = "invalid_scope"
	codeInvalidTarget        = "invalid_target"
	codeUnavailable          = "temporarily_unavailable"
	codeServerError          = "server_error"
)

func refuse(code, description string) *Error { return &Error{Code: code, Description: description} }

// refuseMethod refuses a request that is not a POST (RFC 6749 §3.2): 405,
// with Allow: POST (RFC 9110 §15.5.6).
func refuseMethod() *Error {
	return &Error{Code: codeInvalidRequest, Description: "the token endpoint takes POST", status: http.StatusMethodNotAllowed}
}

// refuseSubject refuses the subject_token: unknown, revoked, its secret
// wrong, another client's or exchanged already. RFC 8693 §2.2.2 says
// invalid_request for every subject_token that is invalid or refused by
// policy, where RFC 6749 would say invalid_grant.
func refuseSubject(description string, cause error) *Error {
	return refuseCause(codeInvalidRequest, description, cause)
}

func refuseCause(code, description string, cause error) *Error {
	return &Error{Code: code, Description: description, cause: cause}
}

// status is the HTTP status of an answer with code.
func status(code string) int {
	switch code {
	case codeInvalidClient:
		return http.StatusUnauthorized
	case codeUnavailable:
		return http.StatusServiceUnavailable
	case codeServerError:
		return http.StatusInternalServerError
	}
	return http.StatusBadRequest
}

// printable keeps what RFC 6749 §5.2 allows in error_description
// (%x20-21 / %x23-5B / %x5D-7E); an Issuer's text could hold anything.
func printable(s string) string {
	b := make([]byte, 0, len(s))
	for i := 0; i < len(s) && len(b) < 512; i++ {
		if c := s[i]; c >= 0x20 && c <= 0x7e && c != '"' && c != '\\' {
			b = append(b, c)
		}
	}
	return string(b)
}

// writeError answers err. scheme is the WWW-Authenticate challenge of a
// 401 (RFC 6749 §5.2: of the scheme the client tried; Basic's when
// empty); a 405 carries Allow: POST.
func writeError(w http.ResponseWriter, err error, scheme string) {
	var e *Error
	if !errors.As(err, &e) {
		e = refuse(codeServerError, "the exchange failed on the server")
	}
	code := printable(e.Code)
	if code == "" {
		code = codeServerError
	}
	st := status(code)
	if e.status != 0 {
		st = e.status
	}
	h := w.Header()
	if st == http.StatusMethodNotAllowed {
		h.Set("Allow", http.MethodPost)
	}
	if st == http.StatusUnauthorized {
		if scheme == "" {
			scheme = `Basic realm="token"`
		}
		h.Set("WWW-Authenticate", scheme)
	}
	if st == http.StatusServiceUnavailable {
		h.Set("Retry-After", retryAfter)
	}
	body, _ := json.Marshal(struct {
		Error       string `json:"error"`
		Description string `json:"error_description,omitempty"`
	}{code, printable(e.Description)})
	writeJSON(w, st, body)
}

// writeJSON answers body with status, never to be cached (RFC 6749 §5.1,
// RFC 8693 §2.2).
func writeJSON(w http.ResponseWriter, status int, body []byte) {
	h := w.Header()
	h.Set("Content-Type", "application/json;charset=UTF-8")
	h.Set("Cache-Control", "no-store")
	h.Set("Pragma", "no-cache")
	w.WriteHeader(status)
	w.Write(body)
}

// retryAfter is the Retry-After, in seconds, of a 503: the one a
// server.Verifier sends for a store that cannot answer, so that a client
// meets one policy at every endpoint of a provider.
const retryAfter = "10"
