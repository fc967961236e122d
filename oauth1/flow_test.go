package oauth1_test

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/countersign/countersign/oauth1"
)

// The credentials of the RFC 5849 §1.2 example (photos.example.net).
var (
	rfcClient   = oauth1.Credentials{Token: "dpf43f3p2l4k3l03", Secret: "kd94hf93k423kf44"}
	rfcTemp     = oauth1.Credentials{Token: "hh5s93j4hdidpola", Secret: "hdhd0244k9j7ao03"}
	rfcVerifier = "hfdp7dh39dks9884"
	rfcToken    = oauth1.Credentials{Token: "nnch734d00sl2jdk", Secret: "pfkkdhi9sl3r4s00"}
	rfcCallback = "http://printer.example.com/ready"
)

// photosProvider is the RFC 5849 §1.2 provider: it checks every signature
// itself and answers as the RFC shows, plus the user_id and screen_name
// that X adds to its token response. wantMethod is the method of the token
// requests.
func photosProvider(t *testing.T, wantMethod string) *httptest.Server {
	mux := http.NewServeMux()
	fail := func(w http.ResponseWriter, msg string) {
		t.Errorf("provider: %s", msg)
		http.Error(w, "oauth_problem=parameter_rejected", http.StatusUnauthorized)
	}
	mux.HandleFunc("/initiate", func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		p, err := checkHMAC(r, body, rfcClient, "")
		switch {
		case err != nil:
			fail(w, err.Error())
		case r.Method != wantMethod:
			fail(w, "method "+r.Method)
		case p["oauth_callback"] != rfcCallback || p["oauth_token"] != "" || p["oauth_version"] != "":
			fail(w, "unexpected parameters: "+r.Header.Get("Authorization"))
		default:
			w.Header().Set("Content-Type", "application/x-www-form-urlencoded")
			io.WriteString(w, "oauth_token="+rfcTemp.Token+"&oauth_token_secret="+rfcTemp.Secret+"&oauth_callback_confirmed=true")
		}
	})
	mux.HandleFunc("/authorize", func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Query().Get("oauth_token") != rfcTemp.Token {
			fail(w, "authorize: "+r.URL.RawQuery)
			return
		}
		http.Redirect(w, r, rfcCallback+"?oauth_token="+rfcTemp.Token+"&oauth_verifier="+rfcVerifier, http.StatusFound)
	})
	mux.HandleFunc("/token", func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		p, err := checkHMAC(r, body, rfcClient, rfcTemp.Secret)
		switch {
		case err != nil:
			fail(w, err.Error())
		case r.Method != wantMethod:
			fail(w, "method "+r.Method)
		case p["oauth_token"] != rfcTemp.Token || p["oauth_verifier"] != rfcVerifier:
			// The verifier must be in the Authorization header.
			fail(w, "unexpected parameters: "+r.Header.Get("Authorization"))
		default:
			io.WriteString(w, "oauth_token="+rfcToken.Token+"&oauth_token_secret="+rfcToken.Secret+"&user_id=6253282&screen_name=Jane%20Doe")
		}
	})
	srv := httptest.NewServer(mux)
	t.Cleanup(srv.Close)
	return srv
}

func rfcConfig(base string) *oauth1.Config {
	return &oauth1.Config{
		ConsumerKey: rfcClient.Token, ConsumerSecret: rfcClient.Secret,
		OmitVersion: true, // as in the RFC's examples
		Callback:    rfcCallback,
		Endpoint: oauth1.Endpoint{
			RequestTokenURL: base + "/initiate",
			AuthorizeURL:    base + "/authorize",
			AccessTokenURL:  base + "/token",
		},
	}
}

func TestFlow(t *testing.T) {
	for _, method := range []string{"", "GET"} {
		t.Run("method="+method, func(t *testing.T) {
			wantMethod := method
			if wantMethod == "" {
				wantMethod = "POST"
			}
			srv := photosProvider(t, wantMethod)
			cfg := rfcConfig(srv.URL)
			cfg.Endpoint.TokenMethod = method
			ctx := context.Background()

			res, err := cfg.RequestToken(ctx)
			if err != nil {
				t.Fatal(err)
			}
			temp, v := res.Credentials, res.Values
			if *temp != rfcTemp || v.Get("oauth_callback_confirmed") != "true" {
				t.Fatalf("RequestToken() = %#v, %v; want %#v", temp, v, rfcTemp)
			}
			noSecrets(t, "RequestToken", v)

			// The browser's part: the provider redirects to the callback.
			noFollow := &http.Client{CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
			resp, err := noFollow.Get(cfg.AuthorizationURL(temp))
			if err != nil {
				t.Fatal(err)
			}
			resp.Body.Close()
			callback := httptest.NewRequest("GET", resp.Header.Get("Location"), nil)
			token, code, err := oauth1.ParseCallback(callback, temp)
			if err != nil || token != rfcTemp.Token || code != rfcVerifier {
				t.Fatalf("ParseCallback(%q) = %q, %q, %v; want %q, %q", resp.Header.Get("Location"), token, code, err, rfcTemp.Token, rfcVerifier)
			}

			res, err = cfg.AccessToken(ctx, temp, code)
			if err != nil {
				t.Fatal(err)
			}
			tok, v := res.Credentials, res.Values
			if *tok != rfcToken {
				t.Errorf("AccessToken() = %#v, want %#v", tok, rfcToken)
			}
			if v.Get("user_id") != "6253282" || v.Get("screen_name") != "Jane Doe" {
				t.Errorf("AccessToken() values = %v, want user_id and screen_name", v)
			}
			noSecrets(t, "AccessToken", v)
			// The response prints without the secret, under every verb.
			for _, verb := range []string{"%v", "%+v", "%#v", "%s"} {
				if out := fmt.Sprintf(verb, res) + fmt.Sprintf(verb, *res); strings.Contains(out, rfcToken.Secret) {
					t.Errorf("fmt %s of the TokenResponse prints the token secret: %s", verb, out)
				}
			}
		})
	}
}

// noSecrets fails unless v, the values a token request returns besides the
// Credentials, has neither the token nor its secret: callers pass them on
// and log them with less care than Credentials, which print redacted.
func noSecrets(t *testing.T, what string, v url.Values) {
	t.Helper()
	for _, k := range []string{"oauth_token", "oauth_token_secret"} {
		if v.Has(k) {
			t.Errorf("%s() values hold %s", what, k)
		}
	}
	for _, s := range []string{rfcTemp.Token, rfcTemp.Secret, rfcToken.Token, rfcToken.Secret} {
		if strings.Contains(v.Encode(), url.QueryEscape(s)) {
			t.Errorf("%s() values %v hold %q", what, v, s)
		}
	}
}

// answeringProvider returns a server that answers every request with status, content
// type and body.
func answeringProvider(t *testing.T, status int, ctype, body string) *oauth1.Config {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", ctype)
		w.WriteHeader(status)
		io.WriteString(w, body)
	}))
	t.Cleanup(srv.Close)
	return rfcConfig(srv.URL)
}

func TestTokenEndpointErrors(t *testing.T) {
	html := "<!DOCTYPE html><html><body>" + strings.Repeat("Service unavailable. ", 200) + "</body></html>"
	tests := []struct {
		name                string
		status              int
		ctype, body         string
		wantProblem, advice string
		wantBody            string
	}{
		{"signature_invalid", 401, "application/x-www-form-urlencoded",
			"oauth_problem=signature_invalid&oauth_problem_advice=check%20the%20base%20string", "signature_invalid", "check the base string",
			"oauth_problem=signature_invalid&oauth_problem_advice=check%20the%20base%20string"},
		{"text/plain problem", 400, "text/plain", "oauth_problem=timestamp_refused&oauth_acceptable_timestamps=1-2", "timestamp_refused", "",
			"oauth_problem=timestamp_refused&oauth_acceptable_timestamps=1-2"},
		{"HTML", 503, "text/html", html, "", "", html[:1024]},
		{"secret in error body", 500, "text/plain", "oauth_token=a&oauth_token_secret=LEAK", "", "", ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			cfg := answeringProvider(t, tt.status, tt.ctype, tt.body)
			for _, call := range []func() error{
				func() error { _, err := cfg.RequestToken(context.Background()); return err },
				func() error { _, err := cfg.AccessToken(context.Background(), &rfcTemp, rfcVerifier); return err },
			} {
				err := call()
				var re *oauth1.ResponseError
				if !errors.As(err, &re) {
					t.Fatalf("error = %v, want a *ResponseError", err)
				}
				if re.StatusCode != tt.status || re.Problem != oauth1.Problem(tt.wantProblem) || re.Advice != tt.advice || string(re.Body) != tt.wantBody {
					t.Errorf("ResponseError = {%d %q %q %q}, want {%d %q %q %q}",
						re.StatusCode, re.Problem, re.Advice, re.Body, tt.status, tt.wantProblem, tt.advice, tt.wantBody)
				}
				if strings.Contains(err.Error(), "LEAK") || strings.Contains(err.Error(), rfcClient.Secret) || strings.Contains(err.Error(), rfcTemp.Secret) {
					t.Errorf("error %q reveals a secret", err)
				}
			}
		})
	}
	cfg := answeringProvider(t, 401, "text/plain", "oauth_problem=signature_invalid")
	_, err := cfg.RequestToken(context.Background())
	if want := "oauth1: temporary credential request to " + cfg.Endpoint.RequestTokenURL + ": provider answered 401 Unauthorized: oauth_problem=signature_invalid"; err == nil || err.Error() != want {
		t.Errorf("RequestToken() error = %v, want %q", err, want)
	}
}

func TestTokenEndpointBadAnswers(t *testing.T) {
	const secret = "s3cr3t-value"
	tests := []struct {
		name, body string
		access     bool
		wantErr    string
	}{
		{"no oauth_callback_confirmed", "oauth_token=a&oauth_token_secret=" + secret, false, "oauth_callback_confirmed"},
		{"oauth_callback_confirmed=false", "oauth_token=a&oauth_token_secret=" + secret + "&oauth_callback_confirmed=false", false, "oauth_callback_confirmed"},
		{"no secret", "oauth_token=a&oauth_callback_confirmed=true", false, `lacks oauth_token or oauth_token_secret (it has "oauth_callback_confirmed", "oauth_token")`},
		{"HTML with 200", "<html>Sorry</html>", true, "lacks oauth_token"},
		{"malformed", "oauth_token=a&oauth_token_secret=" + secret + "%zz", true, "malformed response"},
		{"too large", "oauth_token=a&oauth_token_secret=" + secret + "&pad=" + strings.Repeat("x", 70<<10), true, "larger than"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			cfg := answeringProvider(t, 200, "application/x-www-form-urlencoded", tt.body)
			var err error
			if tt.access {
				_, err = cfg.AccessToken(context.Background(), &rfcTemp, rfcVerifier)
			} else {
				_, err = cfg.RequestToken(context.Background())
			}
			if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
				t.Fatalf("error = %v, want one mentioning %q", err, tt.wantErr)
			}
			// The request is named as RFC 5849 §2.1 and §2.3 name it.
			want := "oauth1: temporary credential request: "
			if tt.access {
				want = "oauth1: token request: "
			}
			if !strings.HasPrefix(err.Error(), want) {
				t.Errorf("error = %v, want one starting %q", err, want)
			}
			if strings.Contains(err.Error(), secret) {
				t.Errorf("error %q reveals the token secret", err)
			}
		})
	}
}

func TestTokenRequestContext(t *testing.T) {
	release := make(chan struct{})
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		select {
		case <-r.Context().Done():
		case <-release:
		}
	}))
	defer srv.Close()
	defer close(release)
	cfg := rfcConfig(srv.URL)
	ctx, cancel := context.WithTimeout(context.Background(), 50*time.Millisecond)
	defer cancel()
	start := time.Now()
	_, err := cfg.RequestToken(ctx)
	if !errors.Is(err, context.DeadlineExceeded) {
		t.Errorf("RequestToken(expiring ctx) error = %v, want context.DeadlineExceeded", err)
	}
	if d := time.Since(start); d > 5*time.Second {
		t.Errorf("RequestToken returned after %v", d)
	}
}

func TestTokenRequestUsesHTTPClient(t *testing.T) {
	srv := photosProvider(t, "POST")
	rec := &recordingTransport{base: http.DefaultTransport}
	cfg := rfcConfig(srv.URL)
	cfg.HTTPClient = &http.Client{Transport: rec}
	if _, err := cfg.RequestToken(context.Background()); err != nil {
		t.Fatal(err)
	}
	if !rec.used.Load() {
		t.Error("RequestToken did not use Config.HTTPClient")
	}
}

func TestAuthorizationURL(t *testing.T) {
	temp := &oauth1.Credentials{Token: "a b+c", Secret: "never shown"}
	tests := []struct {
		authorize string
		extra     []oauth1.Param
		want      string
	}{
		{"https://p.example/authorize", nil, "https://p.example/authorize?oauth_token=a%20b%2Bc"},
		{"https://p.example/authorize?", nil, "https://p.example/authorize?oauth_token=a%20b%2Bc"},
		{"https://p.example/authorize?lang=fr", nil, "https://p.example/authorize?lang=fr&oauth_token=a%20b%2Bc"},
		{"https://p.example/authorize?lang=fr&", nil, "https://p.example/authorize?lang=fr&oauth_token=a%20b%2Bc"},
		{"https://p.example/authorize#top", nil, "https://p.example/authorize?oauth_token=a%20b%2Bc#top"},
		{"https://p.example/authorize", []oauth1.Param{{Name: "Permissions", Value: "Modify"}, {Name: "Access", Value: "Full"}},
			"https://p.example/authorize?oauth_token=a%20b%2Bc&Permissions=Modify&Access=Full"},
		{"https://p.example/authorize", []oauth1.Param{{Name: "a b", Value: "x&y=z"}, {Name: "a b", Value: ""}},
			"https://p.example/authorize?oauth_token=a%20b%2Bc&a%20b=x%26y%3Dz&a%20b="},
	}
	for _, tt := range tests {
		cfg := &oauth1.Config{Endpoint: oauth1.Endpoint{AuthorizeURL: tt.authorize}}
		if got := cfg.AuthorizationURL(temp, tt.extra...); got != tt.want {
			t.Errorf("AuthorizationURL(%q, %v) = %q, want %q", tt.authorize, tt.extra, got, tt.want)
		}
	}
}

// An AuthorizeURL that names the token's parameter itself, as E*TRADE's
// "?key={oauth_consumer_key}&token={oauth_token}", gets the values in place,
// percent-encoded (so that none adds a parameter), and no oauth_token.
func TestAuthorizationURLPlaceholders(t *testing.T) {
	temp := &oauth1.Credentials{Token: "a b+c&oauth_token=x", Secret: "never shown"}
	tests := []struct {
		authorize string
		extra     []oauth1.Param
		want      string
	}{
		{"https://us.etrade.com/e/t/etws/authorize?key={oauth_consumer_key}&token={oauth_token}", nil,
			"https://us.etrade.com/e/t/etws/authorize?key=c%20k%26x%3D1&token=a%20b%2Bc%26oauth_token%3Dx"},
		{"https://p.example/a?t={oauth_token}", []oauth1.Param{{Name: "perms", Value: "read"}},
			"https://p.example/a?t=a%20b%2Bc%26oauth_token%3Dx&perms=read"},
		{"https://p.example/a?t={oauth_token}&", []oauth1.Param{{Name: "perms", Value: "read"}},
			"https://p.example/a?t=a%20b%2Bc%26oauth_token%3Dx&perms=read"},
		{"https://p.example/a/{oauth_token}?{x}#{oauth_token}", nil,
			"https://p.example/a/a%20b%2Bc%26oauth_token%3Dx?{x}#{oauth_token}"},
		// Without the token's placeholder, the consumer key's is left alone.
		{"https://p.example/a?k={oauth_consumer_key}", nil,
			"https://p.example/a?k={oauth_consumer_key}&oauth_token=a%20b%2Bc%26oauth_token%3Dx"},
	}
	for _, tt := range tests {
		cfg := &oauth1.Config{ConsumerKey: "c k&x=1", ConsumerSecret: "never shown", Endpoint: oauth1.Endpoint{AuthorizeURL: tt.authorize}}
		if got := cfg.AuthorizationURL(temp, tt.extra...); got != tt.want {
			t.Errorf("AuthorizationURL(%q, %v) = %q, want %q", tt.authorize, tt.extra, got, tt.want)
		}
	}
}

func TestParseCallback(t *testing.T) {
	temp := &oauth1.Credentials{Token: "tmp", Secret: "s"}
	tests := []struct {
		query      string
		temp       *oauth1.Credentials
		wantToken  string
		wantCode   string
		wantErr    string
		wantDenied bool
	}{
		{"oauth_token=tmp&oauth_verifier=v%2B1", temp, "tmp", "v+1", "", false},
		{"oauth_token=other&oauth_verifier=v", nil, "other", "v", "", false},
		{"oauth_token=other&oauth_verifier=v", temp, "", "", "is not the temporary token", false},
		{"denied=tmp", temp, "", "", "denied=tmp", true},
		{"oauth_problem=user_refused", temp, "", "", "user_refused", true},
		{"oauth_token=tmp", temp, "", "", "no oauth_verifier", false},
		{"oauth_verifier=v", temp, "", "", "no oauth_token", false},
		{"oauth_token=tmp&oauth_verifier=%zz", temp, "", "", "malformed query", false},
	}
	for _, tt := range tests {
		r := httptest.NewRequest("GET", "/callback?"+tt.query, nil)
		token, code, err := oauth1.ParseCallback(r, tt.temp)
		if token != tt.wantToken || code != tt.wantCode || (err == nil) != (tt.wantErr == "") ||
			err != nil && !strings.Contains(err.Error(), tt.wantErr) || errors.Is(err, oauth1.ErrDenied) != tt.wantDenied {
			t.Errorf("ParseCallback(%q) = %q, %q, %v; want %q, %q, error %q (denied %v)",
				tt.query, token, code, err, tt.wantToken, tt.wantCode, tt.wantErr, tt.wantDenied)
		}
	}
}

// The URL AuthorizationURL builds parses back, with the existing query kept
// and every parameter intact, whatever the bytes.
func FuzzAuthorizationURL(f *testing.F) {
	f.Add("https://p.example/authorize?lang=fr", "hh5s93j4hdidpola", "Access", "Full")
	f.Add("https://p.example/authorize#frag", "a b+c&d=e", "x;y", "%zz")
	f.Fuzz(func(t *testing.T, authorize, token, key, value string) {
		u, err := url.Parse(authorize)
		// A URL with the token's placeholder places the token itself
		// (TestAuthorizationURLPlaceholders).
		if err != nil || u.Scheme != "https" || u.Opaque != "" || strings.ContainsAny(authorize, " \\") || strings.Contains(authorize, "{oauth_token}") {
			return
		}
		before, err := url.ParseQuery(u.RawQuery)
		if err != nil || before.Has("oauth_token") || before.Has(key) || key == "oauth_token" || key == "" {
			return
		}
		cfg := &oauth1.Config{Endpoint: oauth1.Endpoint{AuthorizeURL: authorize}}
		got := cfg.AuthorizationURL(&oauth1.Credentials{Token: token}, oauth1.Param{Name: key, Value: value})
		gu, err := url.Parse(got)
		if err != nil {
			t.Fatalf("AuthorizationURL(%q) = %q, which does not parse: %v", authorize, got, err)
		}
		q, err := url.ParseQuery(gu.RawQuery)
		if err != nil {
			t.Fatalf("AuthorizationURL(%q) = %q, query does not parse: %v", authorize, got, err)
		}
		if q.Get("oauth_token") != token || q.Get(key) != value || gu.Fragment != u.Fragment || gu.Path != u.Path {
			t.Fatalf("AuthorizationURL(%q, %q, %q=%q) = %q", authorize, token, key, value, got)
		}
		for k, vs := range before {
			if !slices.Equal(q[k], vs) {
				t.Fatalf("AuthorizationURL(%q) = %q lost %s=%q", authorize, got, k, vs)
			}
		}
	})
}
