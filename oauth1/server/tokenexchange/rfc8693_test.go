package tokenexchange

import (
	"net/http"
	"net/http/httptest"
	"testing"

	"github.com/stretchr/testify/require"
)

// TestMethodNotAllowed: the token endpoint takes POST (RFC 6749 §3.2);
// any other method is answered 405 with Allow: POST (RFC 9110 §15.5.6),
// as the Error documentation says, and still as RFC 6749 §5.2's JSON.
func TestMethodNotAllowed(t *testing.T) {
	for _, m := range []string{http.MethodGet, http.MethodHead, http.MethodPut, http.MethodDelete, http.MethodOptions} {
		t.Run(m, func(t *testing.T) {
			f := newFixture(t)
			w := httptest.NewRecorder()
			f.h.ServeHTTP(w, httptest.NewRequest(m, endpoint+"?"+secretForm().Encode(), nil))
			require.Equal(t, http.StatusMethodNotAllowed, w.Code)
			require.Equal(t, "POST", w.Header().Get("Allow"))
			require.Equal(t, "no-store", w.Header().Get("Cache-Control"))
			require.JSONEq(t, `{"error":"invalid_request","error_description":"the token endpoint takes POST"}`, w.Body.String())
			require.Zero(t, f.issued.Load())
		})
	}
}
