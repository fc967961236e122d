// Command three-legged is a small web application that runs the OAuth 1.0a
// three-legged flow (RFC 5849 §2) against a provider given by flags, and
// shows the token credentials it obtains.
//
// With -demo it needs nothing: it starts a local provider (which checks
// every signature) playing the RFC 5849 §1.2 example, runs the flow through
// the web application with an HTTP client standing in for the browser, and
// prints the result.
//
// Against a real provider it needs the application's credentials, in
// OAUTH1_CONSUMER_KEY and OAUTH1_CONSUMER_SECRET (or -rsa-key for RSA-SHA1,
// as Jira uses, with OAUTH1_KEY_PASSWORD for an encrypted key), the names the
// oauth1 command reads too, and a callback URL the provider accepts: by
// default http://127.0.0.1:8080/callback. For example, for X:
//
//	go run ./examples/three-legged -provider x
//
// then open http://127.0.0.1:8080/ in a browser.
package main

import (
	"crypto"
	"crypto/hmac"
	"crypto/rsa"
	"crypto/sha1"
	"encoding/base64"
	"errors"
	"flag"
	"fmt"
	"html/template"
	"io"
	"log"
	"net"
	"net/http"
	"net/http/cookiejar"
	"net/http/httptest"
	"os"
	"sort"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/countersign/countersign/oauth1"
	"github.com/countersign/countersign/oauth1/rsakey"
	"github.com/countersign/countersign/percent"
)

func main() {
	provider := flag.String("provider", "", `provider: "x" or "x-authenticate" (sets the three URLs)`)
	flag.StringVar(provider, "preset", "", "deprecated: the former name of -provider")
	requestURL := flag.String("request-token-url", "", "temporary credential request URL")
	authorizeURL := flag.String("authorize-url", "", "resource owner authorization URL")
	accessURL := flag.String("access-token-url", "", "token request URL")
	tokenMethod := flag.String("token-method", "", "HTTP method of the token requests (default POST; E*TRADE: GET)")
	rsaKey := flag.String("rsa-key", "", "sign with RSA-SHA1 and this private key file instead of HMAC-SHA1")
	addr := flag.String("addr", "127.0.0.1:8080", "address to listen on")
	demo := flag.Bool("demo", false, "run the whole flow against a built-in local provider and exit")
	flag.Parse()
	log.SetFlags(0)
	flag.Visit(func(f *flag.Flag) {
		if f.Name == "preset" {
			log.Print("warning: -preset is deprecated; use -provider")
		}
	})

	cfg := &oauth1.Config{
		ConsumerKey: getenv(os.Getenv, os.Stderr, "OAUTH1_CONSUMER_KEY"), ConsumerSecret: getenv(os.Getenv, os.Stderr, "OAUTH1_CONSUMER_SECRET"),
		Endpoint: oauth1.Endpoint{
			RequestTokenURL: *requestURL,
			AuthorizeURL:    *authorizeURL,
			AccessTokenURL:  *accessURL,
			TokenMethod:     *tokenMethod,
		},
		HTTPClient: &http.Client{Timeout: 30 * time.Second},
	}
	switch *provider {
	case "":
	case "x":
		cfg.Endpoint = xEndpoint
	case "x-authenticate":
		cfg.Endpoint = xEndpoint
		cfg.Endpoint.AuthorizeURL = "https://api.x.com/oauth/authenticate"
	default:
		log.Fatalf("unknown -provider %q (want x or x-authenticate)", *provider)
	}
	if *rsaKey != "" {
		data, err := os.ReadFile(*rsaKey)
		if err != nil {
			log.Fatal(err)
		}
		key, err := rsakey.Parse(data, getenv(os.Getenv, os.Stderr, "OAUTH1_KEY_PASSWORD"))
		if err != nil {
			log.Fatalf("%s: %v", *rsaKey, err)
		}
		cfg.Signer = oauth1.RSA{Key: key}
	}

	if *demo {
		// Port 0: the demo must not collide with anything already running.
		*addr = "127.0.0.1:0"
		p := startDemoProvider(cfg)
		defer p.Close()
		cfg.ConsumerKey, cfg.ConsumerSecret = demoClient.Token, demoClient.Secret
		cfg.Endpoint = oauth1.Endpoint{
			RequestTokenURL: p.URL + "/initiate",
			AuthorizeURL:    p.URL + "/authorize",
			AccessTokenURL:  p.URL + "/token",
			TokenMethod:     *tokenMethod,
		}
	}
	if cfg.ConsumerKey == "" {
		log.Fatal("OAUTH1_CONSUMER_KEY is not set (real credentials are needed; try -demo)")
	}
	if cfg.Endpoint.RequestTokenURL == "" || cfg.Endpoint.AuthorizeURL == "" || cfg.Endpoint.AccessTokenURL == "" {
		log.Fatal("give -provider, or -request-token-url, -authorize-url and -access-token-url")
	}
	ln, err := net.Listen("tcp", *addr)
	if err != nil {
		log.Fatal(err)
	}
	base := "http://" + ln.Addr().String()
	cfg.Callback = base + "/callback"

	srv := newServer(newApp(cfg))
	go srv.Serve(ln)
	if !*demo {
		fmt.Printf("Open %s/ in a browser (callback URL: %s)\n", base, cfg.Callback)
		select {}
	}
	defer srv.Close()
	// The browser: follow the redirects from /login to the provider's
	// authorization page, which approves at once, and back to /callback.
	jar, _ := cookiejar.New(nil)
	browser := &http.Client{Jar: jar}
	resp, err := browser.Get(base + "/login")
	if err != nil {
		log.Fatal(err)
	}
	defer resp.Body.Close()
	page, _ := io.ReadAll(resp.Body)
	fmt.Println(resp.Status)
	fmt.Println(strings.TrimSpace(string(page)))
}

// app is the web application: it keeps the temporary credentials between
// /login and /callback, keyed by their token, and binds each flow to the
// browser that started it with a cookie holding that token. Without the
// binding, an attacker who approved with their own account could send the
// callback URL to a victim, whose browser would then be signed in as the
// attacker (login CSRF).
const flowCookie = "oauth1_flow"

type app struct {
	cfg     *oauth1.Config
	mu      sync.Mutex
	pending map[string]pendingAuth
}

type pendingAuth struct {
	temp    *oauth1.Credentials
	expires time.Time
}

func newApp(cfg *oauth1.Config) http.Handler {
	a := &app{cfg: cfg, pending: make(map[string]pendingAuth)}
	mux := http.NewServeMux()
	mux.HandleFunc("GET /{$}", func(w http.ResponseWriter, r *http.Request) {
		fmt.Fprintln(w, `<a href="/login">Sign in</a>`)
	})
	mux.HandleFunc("GET /login", a.login)
	mux.HandleFunc("GET /callback", a.callback)
	return mux
}

func (a *app) login(w http.ResponseWriter, r *http.Request) {
	res, err := a.cfg.RequestToken(r.Context())
	if err != nil {
		log.Printf("request token: %v", err)
		http.Error(w, "the provider refused the temporary credential request: "+err.Error(), http.StatusBadGateway)
		return
	}
	temp := res.Credentials
	a.mu.Lock()
	now := time.Now()
	for tok, p := range a.pending {
		if now.After(p.expires) {
			delete(a.pending, tok)
		}
	}
	a.pending[temp.Token] = pendingAuth{temp, now.Add(10 * time.Minute)}
	a.mu.Unlock()
	http.SetCookie(w, &http.Cookie{
		Name: flowCookie, Value: temp.Token, Path: "/callback", MaxAge: 600,
		HttpOnly: true, Secure: r.TLS != nil, SameSite: http.SameSiteLaxMode, // Lax: the provider's redirect back is a top-level GET
	})
	http.Redirect(w, r, a.cfg.AuthorizationURL(temp), http.StatusFound)
}

var result = template.Must(template.New("").Parse(`Signed in. Token credentials: {{.Token}}
Other values of the token response:{{range .Values}}
  {{.}}{{end}}
`))

func (a *app) callback(w http.ResponseWriter, r *http.Request) {
	// The temporary credentials are those of the flow this browser started,
	// never those the callback URL names.
	c, err := r.Cookie(flowCookie)
	if err != nil {
		http.Error(w, "no sign-in started in this browser; start at /login", http.StatusBadRequest)
		return
	}
	http.SetCookie(w, &http.Cookie{Name: flowCookie, Path: "/callback", MaxAge: -1})
	a.mu.Lock()
	p, ok := a.pending[c.Value]
	delete(a.pending, c.Value)
	a.mu.Unlock()
	if !ok || time.Now().After(p.expires) {
		http.Error(w, "unknown or expired sign-in; start again at /login", http.StatusBadRequest)
		return
	}
	_, code, err := oauth1.ParseCallback(r, p.temp) // refuses a token that is not this flow's
	if errors.Is(err, oauth1.ErrDenied) {
		http.Error(w, "You declined; nothing was shared.", http.StatusForbidden)
		return
	}
	if err != nil {
		http.Error(w, err.Error(), http.StatusBadRequest)
		return
	}
	res, err := a.cfg.AccessToken(r.Context(), p.temp, code)
	if err != nil {
		log.Printf("access token: %v", err)
		http.Error(w, "the provider refused the token request: "+err.Error(), http.StatusBadGateway)
		return
	}
	tok, values := res.Credentials, res.Values
	var extra []string
	for k, vs := range values { // the extra values hold neither token nor secret
		for _, v := range vs {
			extra = append(extra, k+" = "+v)
		}
	}
	sort.Strings(extra)
	// A real application stores tok (token and secret) and signs API calls
	// with a.cfg.Client(tok); the secret is never shown.
	w.Header().Set("Content-Type", "text/plain; charset=utf-8")
	result.Execute(w, struct {
		Token  string
		Values []string
	}{fmt.Sprint(tok), extra})
}

// The demo provider plays the RFC 5849 §1.2 example (photos.example.net).
var (
	demoClient = oauth1.Credentials{Token: "dpf43f3p2l4k3l03", Secret: "kd94hf93k423kf44"}
	demoTemp   = oauth1.Credentials{Token: "hh5s93j4hdidpola", Secret: "hdhd0244k9j7ao03"}
	demoToken  = oauth1.Credentials{Token: "nnch734d00sl2jdk", Secret: "pfkkdhi9sl3r4s00"}
)

const demoCode = "hfdp7dh39dks9884"

func startDemoProvider(client *oauth1.Config) *httptest.Server {
	var mu sync.Mutex
	callback := ""
	mux := http.NewServeMux()
	mux.HandleFunc("/initiate", func(w http.ResponseWriter, r *http.Request) {
		p, err := demoCheck(r, client.Signer, demoClient, "")
		if err != nil {
			http.Error(w, "oauth_problem=signature_invalid&oauth_problem_advice="+percent.Encode(err.Error()), http.StatusUnauthorized)
			return
		}
		mu.Lock()
		callback = p["oauth_callback"]
		mu.Unlock()
		fmt.Fprintf(w, "oauth_token=%s&oauth_token_secret=%s&oauth_callback_confirmed=true", demoTemp.Token, demoTemp.Secret)
	})
	mux.HandleFunc("/authorize", func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Query().Get("oauth_token") != demoTemp.Token {
			http.Error(w, "unknown token", http.StatusBadRequest)
			return
		}
		// The resource owner approves at once.
		mu.Lock()
		cb := callback
		mu.Unlock()
		http.Redirect(w, r, cb+"?oauth_token="+demoTemp.Token+"&oauth_verifier="+demoCode, http.StatusFound)
	})
	mux.HandleFunc("/token", func(w http.ResponseWriter, r *http.Request) {
		p, err := demoCheck(r, client.Signer, demoClient, demoTemp.Secret)
		if err == nil && (p["oauth_token"] != demoTemp.Token || p["oauth_verifier"] != demoCode) {
			err = errors.New("wrong temporary token or verification code")
		}
		if err != nil {
			http.Error(w, "oauth_problem=signature_invalid&oauth_problem_advice="+percent.Encode(err.Error()), http.StatusUnauthorized)
			return
		}
		fmt.Fprintf(w, "oauth_token=%s&oauth_token_secret=%s&user_id=42&screen_name=demo-user", demoToken.Token, demoToken.Secret)
	})
	return httptest.NewServer(mux)
}

// demoCheck verifies a token request's signature as a provider does: it
// rebuilds the request from what arrived, computes its base string with the
// parameters of the Authorization header and checks the signature.
func demoCheck(r *http.Request, signer oauth1.Signer, consumer oauth1.Credentials, tokenSecret string) (map[string]string, error) {
	p := make(map[string]string)
	rest, ok := strings.CutPrefix(r.Header.Get("Authorization"), "OAuth ")
	if !ok {
		return nil, errors.New("no OAuth Authorization header")
	}
	for _, kv := range strings.Split(rest, ", ") {
		k, v, _ := strings.Cut(kv, "=")
		d, err := percent.Decode(strings.Trim(v, `"`))
		if err != nil {
			return nil, err
		}
		p[k] = d
	}
	ts, err := strconv.ParseInt(p["oauth_timestamp"], 10, 64)
	if err != nil || time.Since(time.Unix(ts, 0)).Abs() > 5*time.Minute {
		return nil, errors.New("bad oauth_timestamp")
	}
	rebuilt, err := http.NewRequest(r.Method, "http://"+r.Host+r.RequestURI, nil)
	if err != nil {
		return nil, err
	}
	cfg := &oauth1.Config{ConsumerKey: consumer.Token, ConsumerSecret: consumer.Secret, Signer: signer, OmitVersion: p["oauth_version"] == ""}
	var tok *oauth1.Credentials
	if p["oauth_token"] != "" {
		tok = &oauth1.Credentials{Token: p["oauth_token"]}
	}
	var extra []oauth1.Param
	for _, k := range []string{"oauth_callback", "oauth_verifier"} {
		if v, ok := p[k]; ok {
			extra = append(extra, oauth1.Param{Name: k, Value: v})
		}
	}
	base, err := cfg.BaseString(rebuilt, tok, time.Unix(ts, 0), p["oauth_nonce"], extra...)
	if err != nil {
		return nil, err
	}
	sig, err := base64.StdEncoding.DecodeString(p["oauth_signature"])
	if err != nil {
		return nil, err
	}
	switch p["oauth_signature_method"] {
	case "HMAC-SHA1":
		mac := hmac.New(sha1.New, []byte(percent.Encode(consumer.Secret)+"&"+percent.Encode(tokenSecret)))
		mac.Write([]byte(base))
		if hmac.Equal(sig, mac.Sum(nil)) {
			return p, nil
		}
	case "RSA-SHA1":
		if s, ok := signer.(oauth1.RSA); ok {
			sum := sha1.Sum([]byte(base))
			if pub, ok := s.Key.Public().(*rsa.PublicKey); ok && rsa.VerifyPKCS1v15(pub, crypto.SHA1, sum[:], sig) == nil {
				return p, nil
			}
		}
	}
	return nil, fmt.Errorf("invalid %s signature", p["oauth_signature_method"])
}

// xEndpoint is the X API's: its AuthorizeURL asks the user every time, and
// https://api.x.com/oauth/authenticate sends back at once a user who has
// authorized the application already.
var xEndpoint = oauth1.Endpoint{
	RequestTokenURL: "https://api.x.com/oauth/request_token",
	AuthorizeURL:    "https://api.x.com/oauth/authorize",
	AccessTokenURL:  "https://api.x.com/oauth/access_token",
}

// newServer returns the app's server, with timeouts: without them, a
// client that sends headers, or a body, a byte at a time (or never) holds
// a connection, and the memory behind it, for as long as it likes.
// WriteTimeout leaves room for the call to the provider that /login and
// /callback make (30 s).
func newServer(h http.Handler) *http.Server {
	return &http.Server{
		Handler:           h,
		ReadHeaderTimeout: 10 * time.Second,
		ReadTimeout:       30 * time.Second, // the headers and the body
		WriteTimeout:      45 * time.Second,
		IdleTimeout:       2 * time.Minute,
	}
}

// formerEnv maps each environment variable to the name this example read
// before all of countersign settled on the oauth1 command's OAUTH1_* names.
var formerEnv = map[string]string{
	"OAUTH1_CONSUMER_KEY":    "OAUTH_CONSUMER_KEY",
	"OAUTH1_CONSUMER_SECRET": "OAUTH_CONSUMER_SECRET",
	"OAUTH1_KEY_PASSWORD":    "KEY_PASSWORD",
}

// getenv returns the variable name, else its former name's value with a
// deprecation warning on w, so that a shell set up for the old names works.
func getenv(lookup func(string) string, w io.Writer, name string) string {
	if v := lookup(name); v != "" {
		return v
	}
	old := formerEnv[name]
	if old == "" {
		return ""
	}
	v := lookup(old)
	if v != "" {
		fmt.Fprintf(w, "warning: $%s is deprecated; set $%s instead\n", old, name)
	}
	return v
}
