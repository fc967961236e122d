package server_test

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"regexp"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/countersign/countersign/oauth1"
	"github.com/countersign/countersign/oauth1/server"
)

// countingTokens counts the token credentials a TokenStore stores, and
// those revoked one by one.
type countingTokens struct {
	server.TokenStore
	issued, revoked atomic.Int64
}

func (c *countingTokens) Revoke(ctx context.Context, token string, now time.Time) error {
	c.revoked.Add(1)
	return c.TokenStore.Revoke(ctx, token, now)
}

func (c *countingTokens) PutToken(ctx context.Context, t server.TokenCredentials, now time.Time) error {
	err := c.TokenStore.PutToken(ctx, t, now)
	if err == nil {
		c.issued.Add(1)
	}
	return err
}

// testProvider is a provider on a loopback server: the Provider's
// endpoints, a consent page that approves for "alice" (or denies with
// ?deny=1) and an API that answers the user of the token.
type testProvider struct {
	*server.Provider
	srv    *httptest.Server
	tokens *countingTokens
	offset atomic.Int64 // added to the real clock, for expiry

	mu       sync.Mutex
	observed []error
}

func (tp *testProvider) now() time.Time { return time.Now().Add(time.Duration(tp.offset.Load())) }

func newTestProvider(t *testing.T) *testProvider {
	tp := &testProvider{}
	tp.tokens = &countingTokens{TokenStore: new(server.MemoryTokenStore)}
	tp.Provider = &server.Provider{
		Consumers: server.Consumers{
			"key":   {Secret: "secret", CallbackSchemes: []string{"com.example.app"}},
			"other": {Secret: "other-secret"},
		},
		Temporary:    new(server.MemoryTemporaryStore),
		Tokens:       tp.tokens,
		TemporaryTTL: time.Minute,
		TokenValues: func(_ context.Context, t server.TokenCredentials) (url.Values, error) {
			return url.Values{"user_id": {t.User}, "screen_name": {"Alice A."}}, nil
		},
		Observe: func(_ *http.Request, _ *server.Verification, err error) {
			tp.mu.Lock()
			tp.observed = append(tp.observed, err)
			tp.mu.Unlock()
		},
	}
	tp.Now = tp.now
	mux := http.NewServeMux()
	mux.Handle("POST /request_token", tp.RequestTokenHandler())
	mux.Handle("POST /access_token", tp.AccessTokenHandler())
	mux.HandleFunc("GET /authorize", func(w http.ResponseWriter, r *http.Request) {
		token := r.URL.Query().Get("oauth_token")
		if r.URL.Query().Get("deny") != "" {
			redirect, err := tp.Deny(r.Context(), token)
			if err != nil {
				http.Error(w, err.Error(), http.StatusBadRequest)
				return
			}
			http.Redirect(w, r, redirect, http.StatusFound)
			return
		}
		redirect, pin, err := tp.Authorize(r.Context(), server.Approval{Token: token, User: "alice"})
		switch {
		case err != nil:
			http.Error(w, err.Error(), http.StatusBadRequest)
		case redirect == "":
			fmt.Fprintf(w, "PIN: %s", pin)
		default:
			http.Redirect(w, r, redirect, http.StatusFound)
		}
	})
	mux.Handle("/api/", tp.Middleware(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		v, _ := server.FromContext(r.Context())
		if v.Token == "" {
			http.Error(w, "no token", http.StatusUnauthorized)
			return
		}
		fmt.Fprintf(w, "hello %s via %s", v.User, v.ConsumerKey)
	})))
	tp.srv = httptest.NewServer(mux)
	t.Cleanup(tp.srv.Close)
	return tp
}

func (tp *testProvider) config(key, secret, callback string) *oauth1.Config {
	return &oauth1.Config{
		ConsumerKey: key, ConsumerSecret: secret,
		Callback: callback,
		Endpoint: oauth1.Endpoint{
			RequestTokenURL: tp.srv.URL + "/request_token",
			AuthorizeURL:    tp.srv.URL + "/authorize",
			AccessTokenURL:  tp.srv.URL + "/access_token",
		},
		HTTPClient: tp.srv.Client(),
	}
}

// consent visits the authorization URL as the resource owner and returns
// the redirect it got, not followed, or the PIN page.
func (tp *testProvider) consent(t *testing.T, authURL string) (location, page string) {
	t.Helper()
	c := *tp.srv.Client()
	c.CheckRedirect = func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }
	resp, err := c.Get(authURL)
	require.NoError(t, err)
	defer resp.Body.Close()
	body, _ := io.ReadAll(resp.Body)
	return resp.Header.Get("Location"), string(body)
}

// approve runs §2.1 and §2.2 for cfg and returns the temporary credentials
// and the verifier.
func (tp *testProvider) approve(t *testing.T, cfg *oauth1.Config) (*oauth1.Credentials, string) {
	t.Helper()
	res, err := cfg.RequestToken(context.Background())
	require.NoError(t, err, "RequestToken")
	temp := res.Credentials
	loc, page := tp.consent(t, cfg.AuthorizationURL(temp))
	if loc == "" {
		pin, ok := strings.CutPrefix(page, "PIN: ")
		if !ok {
			t.Fatalf("consent page: %q", page)
		}
		return temp, pin
	}
	u, err := url.Parse(loc)
	require.NoError(t, err)
	_, verifier, err := oauth1.ParseCallback(&http.Request{URL: u}, temp)
	if err != nil {
		t.Fatalf("ParseCallback(%q): %v", loc, err)
	}
	return temp, verifier
}

func wantProblem(t *testing.T, what string, err error, status int, problem oauth1.Problem) {
	t.Helper()
	var re *oauth1.ResponseError
	if !errors.As(err, &re) || re.StatusCode != status || re.Problem != problem {
		t.Errorf("%s: %v, want %d %s", what, err, status, problem)
	}
}

func TestProviderFlow(t *testing.T) {
	for _, callback := range []string{"https://client.example/cb?state=a%20b", "oob"} {
		t.Run(callback, func(t *testing.T) {
			tp := newTestProvider(t)
			ctx := context.Background()
			cfg := tp.config("key", "secret", callback)
			res, err := cfg.RequestToken(ctx)
			require.NoError(t, err, "RequestToken")
			temp, vals := res.Credentials, res.Values
			stored, err := tp.Temporary.Temporary(ctx, temp.Token, tp.now())
			if err != nil || stored.Secret != temp.Secret || stored.ConsumerKey != "key" || stored.Callback != callback ||
				stored.Expires.Sub(tp.now()) > time.Minute || stored.Expires.Sub(tp.now()) < 50*time.Second {
				t.Errorf("stored temporary credentials %v, %v; response %v", stored, err, vals)
			}

			loc, page := tp.consent(t, cfg.AuthorizationURL(temp))
			var verifier string
			if callback == "oob" {
				if loc != "" || !regexp.MustCompile(`^PIN: [0-9]{8}$`).MatchString(page) {
					t.Fatalf("oob consent: Location %q, page %q; want an 8-digit PIN", loc, page)
				}
				verifier = strings.TrimPrefix(page, "PIN: ")
			} else {
				// The callback keeps its query.
				re := regexp.MustCompile(`^https://client\.example/cb\?state=a%20b&oauth_token=([A-Z2-7]{26})&oauth_verifier=([A-Z2-7]{26})$`)
				m := re.FindStringSubmatch(loc)
				if m == nil || m[1] != temp.Token {
					t.Fatalf("redirect to %q, want the callback with oauth_token %s and a verifier", loc, temp.Token)
				}
				verifier = m[2]
			}

			// Temporary credentials do not open the API.
			resp, err := cfg.Client(temp).Get(tp.srv.URL + "/api/me")
			require.NoError(t, err)
			body, _ := io.ReadAll(resp.Body)
			resp.Body.Close()
			if resp.StatusCode != 401 || string(body) != "oauth_problem=token_rejected" {
				t.Errorf("API with temporary credentials: %s %q, want 401 token_rejected", resp.Status, body)
			}

			res, err = cfg.AccessToken(ctx, temp, verifier)
			require.NoError(t, err, "AccessToken")
			tok, vals := res.Credentials, res.Values
			if vals.Get("user_id") != "alice" || vals.Get("screen_name") != "Alice A." {
				t.Errorf("AccessToken values %v, want user_id alice and screen_name", vals)
			}
			_, err = cfg.AccessToken(ctx, temp, verifier)
			wantProblem(t, "second AccessToken", err, 401, oauth1.ProblemTokenUsed)

			c := cfg.Client(tok)
			c.Transport.(*oauth1.Transport).Base = tp.srv.Client().Transport
			resp, err = c.Get(tp.srv.URL + "/api/me")
			require.NoError(t, err)
			body, _ = io.ReadAll(resp.Body)
			resp.Body.Close()
			if resp.StatusCode != 200 || string(body) != "hello alice via key" {
				t.Errorf("API: %s %q, want 200 %q", resp.Status, body, "hello alice via key")
			}
			if n := tp.tokens.issued.Load(); n != 1 {
				t.Errorf("%d token credentials issued, want 1", n)
			}
			tp.mu.Lock()
			defer tp.mu.Unlock()
			// request token, API (refused), access token, access token (refused), API
			if len(tp.observed) != 5 || tp.observed[0] != nil || tp.observed[1] == nil || tp.observed[2] != nil || tp.observed[3] == nil || tp.observed[4] != nil {
				t.Errorf("Observe saw %v, want nil, refusal, nil, refusal, nil", tp.observed)
			}
		})
	}
}

// post sends a request signed by cfg with tok and extra protocol
// parameters, and returns the status and body.
// postNonces numbers the nonces of testProvider.post.
var postNonces atomic.Int64

func (tp *testProvider) post(t *testing.T, cfg *oauth1.Config, path string, tok *oauth1.Credentials, extra ...oauth1.Param) (int, string, http.Header) {
	t.Helper()
	req, _ := http.NewRequest("POST", tp.srv.URL+path, nil)
	// A counter, not the clock: js/wasm's clock can read the same twice.
	require.NoError(t, cfg.SignAt(req, tok, tp.now(), fmt.Sprint("n", postNonces.Add(1)), extra...))
	resp, err := tp.srv.Client().Do(req)
	require.NoError(t, err)
	defer resp.Body.Close()
	body, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, string(body), resp.Header
}

func TestProviderRequestTokenRefusals(t *testing.T) {
	tp := newTestProvider(t)
	tp.CheckCallback = func(_ context.Context, key, cb string) error {
		if strings.Contains(cb, "evil") {
			return errors.New("not registered")
		}
		return nil
	}
	cfg := tp.config("key", "secret", "")
	issued := oauth1.Credentials{Token: "issued-token", Secret: "issued-secret"}
	require.NoError(t, tp.Tokens.PutToken(context.Background(), server.TokenCredentials{Token: issued.Token, Secret: issued.Secret, ConsumerKey: "key"}, tp.now()))
	for _, tc := range []struct {
		name   string
		tok    *oauth1.Credentials
		extra  []oauth1.Param
		status int
		body   string
	}{
		{"no callback", nil, nil, 400, "oauth_problem=parameter_absent&oauth_parameters_absent=oauth_callback"},
		{"empty callback", nil, []oauth1.Param{{Name: "oauth_callback"}}, 400, "oauth_problem=parameter_absent&oauth_parameters_absent=oauth_callback"},
		{"relative callback", nil, []oauth1.Param{{Name: "oauth_callback", Value: "/cb"}}, 400, "oauth_problem=parameter_rejected&oauth_parameters_rejected=oauth_callback"},
		{"OOB", nil, []oauth1.Param{{Name: "oauth_callback", Value: "OOB"}}, 400, "oauth_problem=parameter_rejected&oauth_parameters_rejected=oauth_callback"},
		{"no host", nil, []oauth1.Param{{Name: "oauth_callback", Value: "https:///cb"}}, 400, "oauth_problem=parameter_rejected&oauth_parameters_rejected=oauth_callback"},
		{"script", nil, []oauth1.Param{{Name: "oauth_callback", Value: "javascript:alert(1)"}}, 400, "oauth_problem=parameter_rejected&oauth_parameters_rejected=oauth_callback"},
		{"too long", nil, []oauth1.Param{{Name: "oauth_callback", Value: "https://a.example/" + strings.Repeat("a", 2048)}}, 400, "oauth_problem=parameter_rejected&oauth_parameters_rejected=oauth_callback"},
		{"CheckCallback", nil, []oauth1.Param{{Name: "oauth_callback", Value: "https://evil.example/"}}, 400, "oauth_problem=parameter_rejected&oauth_parameters_rejected=oauth_callback"},
		{"with a token", &issued, []oauth1.Param{{Name: "oauth_callback", Value: "oob"}}, 400, "oauth_problem=parameter_rejected&oauth_parameters_rejected=oauth_token"},
		{"fragment", nil, []oauth1.Param{{Name: "oauth_callback", Value: "https://client.example/cb#top"}}, 400, "oauth_problem=parameter_rejected&oauth_parameters_rejected=oauth_callback"},
		{"unregistered scheme", nil, []oauth1.Param{{Name: "oauth_callback", Value: "com.example.other:/cb"}}, 400, "oauth_problem=parameter_rejected&oauth_parameters_rejected=oauth_callback"},
		{"native app", nil, []oauth1.Param{{Name: "oauth_callback", Value: "com.example.app:/cb"}}, 200, ""},
	} {
		status, body, h := tp.post(t, cfg, "/request_token", tc.tok, tc.extra...)
		if status != tc.status || tc.body != "" && body != tc.body {
			t.Errorf("%s: %d %q, want %d %q", tc.name, status, body, tc.status, tc.body)
		}
		if status == 200 && (h.Get("Cache-Control") != "no-store" || !strings.Contains(body, "&oauth_callback_confirmed=true")) {
			t.Errorf("%s: answer %q with Cache-Control %q", tc.name, body, h.Get("Cache-Control"))
		}
	}
	_, err := tp.config("key", "wrong", "oob").RequestToken(context.Background())
	wantProblem(t, "wrong consumer secret", err, 401, oauth1.ProblemSignatureInvalid)
	_, err = tp.config("nobody", "secret", "oob").RequestToken(context.Background())
	wantProblem(t, "unknown consumer", err, 401, oauth1.ProblemConsumerKeyUnknown)
}

func TestProviderAccessTokenRefusals(t *testing.T) {
	ctx := context.Background()
	t.Run("wrong verifier uses the credentials up", func(t *testing.T) {
		tp := newTestProvider(t)
		cfg := tp.config("key", "secret", "oob")
		temp, verifier := tp.approve(t, cfg)
		_, err := cfg.AccessToken(ctx, temp, "12345678")
		wantProblem(t, "wrong verifier", err, 400, oauth1.ProblemParameterRejected)
		_, err = cfg.AccessToken(ctx, temp, verifier)
		wantProblem(t, "right verifier after a wrong one", err, 401, oauth1.ProblemTokenUsed)
	})
	t.Run("no verifier does not", func(t *testing.T) {
		tp := newTestProvider(t)
		cfg := tp.config("key", "secret", "oob")
		temp, verifier := tp.approve(t, cfg)
		status, body, _ := tp.post(t, cfg, "/access_token", temp)
		if want := "oauth_problem=parameter_absent&oauth_parameters_absent=oauth_verifier"; status != 400 || body != want {
			t.Errorf("no verifier: %d %q, want 400 %q", status, body, want)
		}
		if _, err := cfg.AccessToken(ctx, temp, verifier); err != nil {
			t.Errorf("AccessToken after a request without verifier: %v", err)
		}
	})
	t.Run("no token", func(t *testing.T) {
		tp := newTestProvider(t)
		cfg := tp.config("key", "secret", "oob")
		status, body, _ := tp.post(t, cfg, "/access_token", nil, oauth1.Param{Name: "oauth_verifier", Value: "1"})
		if want := "oauth_problem=parameter_absent&oauth_parameters_absent=oauth_token"; status != 400 || body != want {
			t.Errorf("no token: %d %q, want 400 %q", status, body, want)
		}
	})
	t.Run("not approved", func(t *testing.T) {
		tp := newTestProvider(t)
		cfg := tp.config("key", "secret", "oob")
		res, err := cfg.RequestToken(ctx)
		require.NoError(t, err)
		temp := res.Credentials
		_, err = cfg.AccessToken(ctx, temp, "12345678")
		wantProblem(t, "before approval", err, 401, oauth1.ProblemPermissionUnknown)
	})
	t.Run("expired", func(t *testing.T) {
		tp := newTestProvider(t)
		cfg := tp.config("key", "secret", "oob")
		temp, verifier := tp.approve(t, cfg)
		tp.offset.Store(int64(61 * time.Second)) // TemporaryTTL is a minute
		_, err := cfg.AccessToken(ctx, temp, verifier)
		wantProblem(t, "expired", err, 401, oauth1.ProblemTokenRejected)
		if _, _, err := tp.Authorize(ctx, server.Approval{Token: temp.Token, User: "alice"}); !errors.Is(err, server.ErrNotFound) {
			t.Errorf("Authorize of expired credentials: %v, want ErrNotFound", err)
		}
	})
	t.Run("another client", func(t *testing.T) {
		tp := newTestProvider(t)
		cfg := tp.config("key", "secret", "oob")
		temp, verifier := tp.approve(t, cfg)
		_, err := tp.config("other", "other-secret", "oob").AccessToken(ctx, temp, verifier)
		wantProblem(t, "another client's temporary credentials", err, 401, oauth1.ProblemTokenRejected)
		if _, err := cfg.AccessToken(ctx, temp, verifier); err != nil {
			t.Errorf("the rightful client after another's attempt: %v", err)
		}
	})
	t.Run("token credentials", func(t *testing.T) {
		tp := newTestProvider(t)
		cfg := tp.config("key", "secret", "oob")
		temp, verifier := tp.approve(t, cfg)
		res, err := cfg.AccessToken(ctx, temp, verifier)
		require.NoError(t, err)
		tok := res.Credentials
		_, err = cfg.AccessToken(ctx, tok, verifier)
		wantProblem(t, "token credentials at the token endpoint", err, 401, oauth1.ProblemTokenRejected)
	})
	t.Run("TokenValues", func(t *testing.T) {
		for _, values := range []func(context.Context, server.TokenCredentials) (url.Values, error){
			func(context.Context, server.TokenCredentials) (url.Values, error) {
				return url.Values{"oauth_token_secret": {"x"}}, nil
			},
			func(context.Context, server.TokenCredentials) (url.Values, error) { return nil, errors.New("db down") },
		} {
			tp := newTestProvider(t)
			tp.TokenValues = values
			cfg := tp.config("key", "secret", "oob")
			temp, verifier := tp.approve(t, cfg)
			_, err := cfg.AccessToken(ctx, temp, verifier)
			wantProblem(t, "failing TokenValues", err, 500, "internal_error")
			if n := tp.tokens.issued.Load(); n != 0 {
				t.Errorf("%d token credentials stored after TokenValues failed", n)
			}
		}
	})
}

func TestProviderAuthorizeAndDeny(t *testing.T) {
	ctx := context.Background()
	tp := newTestProvider(t)
	cfg := tp.config("key", "secret", "https://client.example/cb")
	temp, _ := tp.approve(t, cfg)
	if _, _, err := tp.Authorize(ctx, server.Approval{Token: temp.Token, User: "mallory"}); !errors.Is(err, server.ErrTokenUsed) {
		t.Errorf("second Authorize: %v, want ErrTokenUsed", err)
	}
	if _, _, err := tp.Authorize(ctx, server.Approval{Token: "unknown", User: "alice"}); !errors.Is(err, server.ErrNotFound) {
		t.Errorf("Authorize of an unknown token: %v, want ErrNotFound", err)
	}

	res, err := cfg.RequestToken(ctx)
	require.NoError(t, err)
	temp = res.Credentials
	loc, _ := tp.consent(t, cfg.AuthorizationURL(temp, oauth1.Param{Name: "deny", Value: "1"}))
	want := "https://client.example/cb?oauth_token=" + temp.Token + "&oauth_problem=permission_denied"
	if loc != want {
		t.Errorf("denial redirect %q, want %q", loc, want)
	}
	u, _ := url.Parse(loc)
	if _, _, err := oauth1.ParseCallback(&http.Request{URL: u}, temp); !errors.Is(err, oauth1.ErrDenied) {
		t.Errorf("ParseCallback of the denial: %v, want ErrDenied", err)
	}
	if _, _, err := tp.Authorize(ctx, server.Approval{Token: temp.Token, User: "alice"}); !errors.Is(err, server.ErrTokenUsed) {
		t.Errorf("Authorize after Deny: %v, want ErrTokenUsed", err)
	}
	_, err = cfg.AccessToken(ctx, temp, "x")
	wantProblem(t, "AccessToken after Deny", err, 401, oauth1.ProblemTokenUsed)

	oob := tp.config("key", "secret", "oob")
	res, err = oob.RequestToken(ctx)
	require.NoError(t, err)
	temp = res.Credentials
	if redirect, err := tp.Deny(ctx, temp.Token); redirect != "" || err != nil {
		t.Errorf("Deny for oob = %q, %v; want no redirect", redirect, err)
	}
}

// TestProviderConcurrentExchange sends one token request 64 times at once,
// each signed afresh: exactly one gets token credentials, and only its
// token credentials are kept.
func TestProviderConcurrentExchange(t *testing.T) {
	tp := newTestProvider(t)
	cfg := tp.config("key", "secret", "oob")
	temp, verifier := tp.approve(t, cfg)
	var ok, used atomic.Int64
	var wg sync.WaitGroup
	start := make(chan struct{})
	for range 64 {
		wg.Go(func() {
			<-start
			_, err := cfg.AccessToken(context.Background(), temp, verifier)
			var re *oauth1.ResponseError
			switch {
			case err == nil:
				ok.Add(1)
			case errors.As(err, &re) && re.Problem == oauth1.ProblemTokenUsed:
				used.Add(1)
			default:
				t.Errorf("AccessToken: %v", err)
			}
		})
	}
	close(start)
	wg.Wait()
	// The exchanges that lost stored no token credentials (all tried the
	// same token), or revoked what they stored: one is left.
	if live := tp.tokens.issued.Load() - tp.tokens.revoked.Load(); ok.Load() != 1 || used.Load() != 63 || live != 1 {
		t.Errorf("64 concurrent exchanges: %d succeeded, %d token_used, %d token credentials kept; want 1, 63, 1",
			ok.Load(), used.Load(), live)
	}
}

func TestCredentialHelpers(t *testing.T) {
	ctx := context.Background()
	c := server.Consumers{"key": {Secret: "secret"}}
	if r, err := c.Consumer(ctx, "key", time.Now()); err != nil || r.Secret != "secret" {
		t.Errorf("Consumers.Consumer(key) = %v, %v", r, err)
	}
	if _, err := c.Consumer(ctx, "nobody", time.Now()); !errors.Is(err, server.ErrNotFound) {
		t.Errorf("Consumers.Consumer(nobody): %v, want ErrNotFound", err)
	}
	if _, err := c.TokenCredentials(ctx, "key", "tok", time.Now()); !errors.Is(err, server.ErrNotFound) {
		t.Errorf("Consumers.TokenCredentials: %v, want ErrNotFound", err)
	}

	// A two-legged request verifies against Consumers; one with a token is
	// token_rejected.
	v := &server.Verifier{Store: c}
	cfg := &oauth1.Config{ConsumerKey: "key", ConsumerSecret: "secret"}
	for _, tok := range []*oauth1.Credentials{nil, {Token: "t", Secret: "s"}} {
		req := httptest.NewRequest("GET", "http://tool.example/launch", nil)
		require.NoError(t, cfg.Sign(req, tok))
		_, err := v.Verify(req)
		var pe *server.ProblemError
		if tok == nil && err != nil || tok != nil && (!errors.As(err, &pe) || pe.Problem != oauth1.ProblemTokenRejected) {
			t.Errorf("Verify with token %v: %v", tok, err)
		}
	}
}

func TestProviderWithoutStores(t *testing.T) {
	p := &server.Provider{Consumers: server.Consumers{"key": {Secret: "secret"}}}
	srv := httptest.NewServer(p.RequestTokenHandler())
	defer srv.Close()
	cfg := &oauth1.Config{ConsumerKey: "key", ConsumerSecret: "secret",
		Endpoint: oauth1.Endpoint{RequestTokenURL: srv.URL}}
	_, err := cfg.RequestToken(context.Background())
	wantProblem(t, "Provider without Tokens", err, 500, "internal_error")
	if _, _, err := p.Authorize(context.Background(), server.Approval{Token: "t", User: "u"}); err == nil {
		t.Error("Authorize without Tokens succeeded")
	}
}

// failingTemporary fails the methods named in fail with err, as a store
// that went wrong or away does.
type failingTemporary struct {
	server.MemoryTemporaryStore
	fail string
	err  error
}

// failingTokens fails Token with err.
type failingTokens struct {
	server.MemoryTokenStore
	err error
}

func (f *failingTokens) Token(context.Context, string, time.Time) (server.TokenCredentials, error) {
	return server.TokenCredentials{}, f.err
}

var (
	errStoreBroken = errors.New("store broken")
	errStoreDown   = fmt.Errorf("%w: dial tcp: connection refused", server.ErrStoreUnavailable)
)

func (f *failingTemporary) PutTemporary(ctx context.Context, t server.TemporaryCredentials, now time.Time) error {
	if f.fail == "PutTemporary" {
		return f.err
	}
	return f.MemoryTemporaryStore.PutTemporary(ctx, t, now)
}

func (f *failingTemporary) TakeTemporary(ctx context.Context, token string, now time.Time) (server.TemporaryCredentials, error) {
	if f.fail == "TakeTemporary" {
		return server.TemporaryCredentials{}, f.err
	}
	return f.MemoryTemporaryStore.TakeTemporary(ctx, token, now)
}

// TestProviderStoreFailure checks that a failing store fails the request
// closed, with no detail: 503 with Retry-After when the store is
// unavailable, 500 for any other error; and that Observe sees why.
func TestProviderStoreFailure(t *testing.T) {
	for _, storeErr := range []error{errStoreBroken, errStoreDown} {
		status := 500
		if storeErr == errStoreDown {
			status = 503
		}
		for _, method := range []string{"PutTemporary", "TakeTemporary", "Token"} {
			tp := newTestProvider(t)
			store := &failingTemporary{err: storeErr}
			tp.Temporary = store
			cfg := tp.config("key", "secret", "oob")
			var err error
			switch method {
			case "PutTemporary":
				store.fail = method
				_, err = cfg.RequestToken(context.Background())
			case "TakeTemporary":
				temp, verifier := tp.approve(t, cfg)
				store.fail = method
				_, err = cfg.AccessToken(context.Background(), temp, verifier)
			case "Token":
				tp.Tokens = &failingTokens{err: storeErr}
				var resp *http.Response
				resp, err = cfg.Client(&oauth1.Credentials{Token: "t", Secret: "s"}).Get(tp.srv.URL + "/api/photos")
				if err == nil {
					resp.Body.Close()
					if resp.StatusCode != status || (status == 503) != (resp.Header.Get("Retry-After") != "") {
						t.Errorf("%v: Token failing: %s, Retry-After %q; want %d, with Retry-After for 503 only", storeErr, resp.Status, resp.Header.Get("Retry-After"), status)
					}
				}
			}
			if method != "Token" {
				wantProblem(t, method+" failing", err, status, "internal_error")
			} else if err != nil {
				t.Fatal(err)
			}
			tp.mu.Lock()
			last := tp.observed[len(tp.observed)-1]
			tp.mu.Unlock()
			if !errors.Is(last, storeErr) {
				t.Errorf("%s failing: Observe saw %v, want the store's error", method, last)
			}
		}
	}
}

// TestProviderStoreFull checks that a full store is answered 503.
func TestProviderStoreFull(t *testing.T) {
	tp := newTestProvider(t)
	tp.Temporary = &server.MemoryTemporaryStore{MaxTemporary: 1}
	cfg := tp.config("key", "secret", "oob")
	_, err := cfg.RequestToken(context.Background())
	require.NoError(t, err)
	_, err = cfg.RequestToken(context.Background())
	wantProblem(t, "RequestToken into a full store", err, 503, "internal_error")
}

// TestProviderRevoke checks that Revoke and RevokeGrant refuse the tokens
// they revoke at once, with token_revoked (an unknown token stays
// token_rejected), and leave the others alone: another grant of the same
// user, and the grant of another user.
func TestProviderRevoke(t *testing.T) {
	tp := newTestProvider(t)
	ctx := context.Background()
	get := func(cfg *oauth1.Config, tok *oauth1.Credentials) (int, string) {
		t.Helper()
		resp, err := cfg.Client(tok).Get(tp.srv.URL + "/api/photos")
		require.NoError(t, err)
		body, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		return resp.StatusCode, string(body)
	}
	issue := func(cfg *oauth1.Config) *oauth1.Credentials {
		t.Helper()
		temp, verifier := tp.approve(t, cfg)
		res, err := cfg.AccessToken(ctx, temp, verifier)
		require.NoError(t, err)
		return res.Credentials
	}
	cfg, other := tp.config("key", "secret", "oob"), tp.config("other", "other-secret", "oob")
	leaked, first, second, elsewhere := issue(cfg), issue(cfg), issue(cfg), issue(other)
	for _, tok := range []*oauth1.Credentials{leaked, first, second} {
		if code, body := get(cfg, tok); code != 200 || body != "hello alice via key" {
			t.Fatalf("API before revocation: %d %q", code, body)
		}
	}

	require.NoError(t, tp.Revoke(ctx, leaked.Token))
	if code, body := get(cfg, leaked); code != 401 || !strings.Contains(body, "oauth_problem=token_revoked") {
		t.Errorf("API with a revoked token: %d %q, want 401 token_revoked", code, body)
	}
	if code, body := get(cfg, &oauth1.Credentials{Token: "never-issued", Secret: leaked.Secret}); code != 401 || !strings.Contains(body, "oauth_problem=token_rejected") {
		t.Errorf("API with an unknown token: %d %q, want 401 token_rejected", code, body)
	}
	if code, _ := get(cfg, first); code != 200 {
		t.Errorf("API with another token after Revoke: %d, want 200", code)
	}
	if err := tp.Revoke(ctx, leaked.Token); !errors.Is(err, server.ErrNotFound) || !errors.Is(err, server.ErrTokenRevoked) {
		t.Errorf("Revoke of a revoked token: %v, want ErrNotFound and ErrTokenRevoked", err)
	}

	// alice withdraws the grant of "key": its two other tokens go, and
	// her grant to "other" stays.
	n, err := tp.RevokeGrant(ctx, "key", "alice")
	if n != 2 || err != nil {
		t.Errorf("RevokeGrant = %d, %v; want 2, nil", n, err)
	}
	for _, tok := range []*oauth1.Credentials{first, second} {
		if code, body := get(cfg, tok); code != 401 || !strings.Contains(body, "oauth_problem=token_revoked") {
			t.Errorf("API with a token of a withdrawn grant: %d %q, want 401 token_revoked", code, body)
		}
	}
	if code, body := get(other, elsewhere); code != 200 || body != "hello alice via other" {
		t.Errorf("API with alice's grant to another client: %d %q, want 200", code, body)
	}
}
