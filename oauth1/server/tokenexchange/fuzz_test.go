package tokenexchange

import (
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
)

// FuzzHandler sends the Handler any body, content type and Authorization
// header: it answers each with RFC 6749 JSON, a status of the protocol,
// Cache-Control no-store, and no secret of the fixture, never a panic.
func FuzzHandler(f *testing.F) {
	f.Add(secretForm().Encode(), "application/x-www-form-urlencoded", "Basic Y2xpZW50LTE6Y2wtU0VDUkVULWNsaWVudC0x")
	f.Add(secretForm("scope", "read read read").Encode(), "application/x-www-form-urlencoded; charset=utf-8", "")
	f.Add("grant_type=urn%3Aietf%3Aparams%3Aoauth%3Agrant-type%3Atoken-exchange&grant_type=x", "application/x-www-form-urlencoded", "Basic %%%")
	f.Add(`{"grant_type":"urn:ietf:params:oauth:grant-type:token-exchange","client_id":"client-1"}`, "application/json", `OAuth oauth_consumer_key="ck-1", oauth_token="tok-1", oauth_signature="x"`)
	f.Add("subject_token=tok-1&oauth_token_secret=ts-SECRET-token-1&client_id=public-1", "text/plain", "Bearer x")
	f.Fuzz(func(t *testing.T, body, contentType, auth string) {
		fx := newFixture(t)
		r := httptest.NewRequest(http.MethodPost, endpoint, strings.NewReader(body))
		r.Header.Set("Content-Type", contentType)
		if auth != "" {
			r.Header.Set("Authorization", auth)
		}
		a := serve(t, fx.h, r)
		switch a.status {
		case http.StatusOK, http.StatusBadRequest, http.StatusUnauthorized, http.StatusRequestEntityTooLarge, http.StatusUnsupportedMediaType:
		default:
			t.Fatalf("status %d for body %q, content type %q, Authorization %q: %s", a.status, body, contentType, auth, a.body)
		}
		if a.status == http.StatusOK && fx.issued.Load() != 1 {
			t.Fatalf("200 with %d tokens issued", fx.issued.Load())
		}
		for _, s := range secrets {
			if strings.Contains(body+contentType+auth, s) {
				return // the request holds it: only the fixture's own secrets are checked
			}
		}
		fx.noSecret(t, a)
	})
}
