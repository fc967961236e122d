// Command lti-tool is an LTI 1.1 tool provider: a learning tool that a
// learning management system (LMS: Moodle, Canvas, Blackboard…) launches,
// and that sends a grade back. LTI 1.1 is OAuth 1.0a without tokens, as
// two-legged OAuth: the LMS signs a launch, an HTML form that the
// learner's browser POSTs to the tool, with HMAC-SHA1 and the consumer
// key and secret it shares with the tool, and oauth_callback=about:blank.
// The tool verifies the launch and only then reads its parameters (user_id,
// roles, resource_link_id, lis_outcome_service_url, lis_result_sourcedid…).
// To grade, it POSTs a replaceResult envelope (POX XML) to
// lis_outcome_service_url, signed with the same credentials and an
// oauth_body_hash of the XML (SHA-1), since an XML body is not signed
// otherwise.
//
// With -demo it runs offline: it starts a fake LMS and the tool on
// loopback, launches the tool as a learner's browser would, submits a
// score, shows the LMS verifying and recording the grade, and shows a
// replayed and a tampered launch refused:
//
//	go run ./examples/lti-tool -demo
//
// Without -demo it serves the tool on -addr for a real LMS, configured
// with the launch URL http://HOST/launch and the credentials in
// OAUTH1_CONSUMER_KEY and OAUTH1_CONSUMER_SECRET (formerly LTI_CONSUMER_KEY
// and LTI_CONSUMER_SECRET, which still work); grades are sent only to the
// outcome service host LTI_OUTCOME_HOST (such as lms.example.edu).
package main

import (
	"bytes"
	"context"
	"crypto"
	"crypto/rand"
	"errors"
	"flag"
	"fmt"
	"html/template"
	"io"
	"log"
	"net/http"
	"net/url"
	"os"
	"strconv"
	"sync"
	"time"

	"github.com/countersign/countersign/oauth1"
	"github.com/countersign/countersign/oauth1/server"
)

func main() {
	demo := flag.Bool("demo", false, "run a fake LMS and the tool on loopback, launch, grade, and exit")
	addr := flag.String("addr", "127.0.0.1:8080", "address to serve the tool on")
	flag.Parse()
	log.SetFlags(0)
	if *demo {
		if _, err := runDemo(os.Stdout); err != nil {
			log.Fatal(err)
		}
		return
	}
	key, secret, host := getenv(os.Getenv, os.Stderr, "OAUTH1_CONSUMER_KEY"), getenv(os.Getenv, os.Stderr, "OAUTH1_CONSUMER_SECRET"), os.Getenv("LTI_OUTCOME_HOST")
	if key == "" || secret == "" || host == "" {
		log.Fatal("set OAUTH1_CONSUMER_KEY, OAUTH1_CONSUMER_SECRET and LTI_OUTCOME_HOST, or run with -demo")
	}
	t := newTool(map[string]consumer{key: {Secret: secret, OutcomeHost: host}}, os.Stderr)
	log.Printf("LTI tool: launch URL http://%s/launch", *addr)
	log.Fatal(newServer(*addr, t).ListenAndServe())
}

// newServer returns the tool's server, with timeouts: without them, a
// client that sends headers, or a body, a byte at a time (or never) holds
// a connection, and the memory behind it, for as long as it likes.
// WriteTimeout leaves room for a grade sent to the LMS (10 s).
func newServer(addr string, h http.Handler) *http.Server {
	return &http.Server{
		Addr:              addr,
		Handler:           h,
		ReadHeaderTimeout: 10 * time.Second,
		ReadTimeout:       30 * time.Second, // the headers and the body
		WriteTimeout:      30 * time.Second,
		IdleTimeout:       2 * time.Minute,
	}
}

// A consumer is an LMS registered with the tool: the shared secret, and
// the host its outcome service is on. The launch names the outcome service
// URL, and the tool POSTs grades there; checking its host keeps an LMS (or
// whoever holds its secret) from making the tool send requests elsewhere.
type consumer struct {
	Secret      string
	OutcomeHost string // host[:port] of lis_outcome_service_url
}

// A launch is what the tool keeps of a verified launch for the learner's
// session.
type launch struct {
	ConsumerKey    string
	UserID, Name   string
	Roles          string
	ResourceLinkID string
	OutcomeURL     string // lis_outcome_service_url; empty if the LMS takes no grade
	SourcedID      string // lis_result_sourcedid
}

// tool is the tool provider: POST /launch receives launches, POST /submit
// grades the learner of the session.
type tool struct {
	consumers map[string]consumer
	verifier  *server.Verifier
	client    *http.Client // for the outcome service; signing is per consumer
	log       io.Writer
	mux       *http.ServeMux

	mu       sync.Mutex
	sessions map[string]launch
}

func newTool(consumers map[string]consumer, logw io.Writer) *tool {
	regs := server.Consumers{}
	for k, c := range consumers {
		regs[k] = server.Registration{Secret: c.Secret}
	}
	t := &tool{
		consumers: consumers,
		// A launch carries no token: server.Consumers refuses any. LTI 1.1
		// signs with HMAC-SHA1 only. Behind a proxy that terminates TLS, set
		// Scheme or SchemeHeader (see server.Verifier); with several
		// instances, share Nonces through package redisstore.
		verifier: &server.Verifier{Store: regs, Settings: server.Settings{SignatureMethods: []string{"HMAC-SHA1"}}},
		client:   &http.Client{Timeout: 10 * time.Second},
		log:      logw,
		mux:      http.NewServeMux(),
		sessions: map[string]launch{},
	}
	t.mux.HandleFunc("POST /launch", t.launch)
	t.mux.HandleFunc("POST /submit", t.submit)
	return t
}

func (t *tool) ServeHTTP(w http.ResponseWriter, r *http.Request) { t.mux.ServeHTTP(w, r) }

var page = template.Must(template.New("page").Parse(`<!doctype html>
<title>Weekly quiz</title>
<p>Hello {{.Name}} ({{.Roles}}), this is the quiz of {{.ResourceLinkID}}.
{{if .OutcomeURL}}<form method="post" action="/submit">
<label>Your score, 0 to 1: <input name="score"></label> <button>Submit</button>
</form>{{else}}<p>This LMS takes no grades for this link.{{end}}
`))

// launch verifies a basic launch request and starts a session for it.
func (t *tool) launch(w http.ResponseWriter, r *http.Request) {
	v, err := t.verifier.Verify(r)
	if err != nil {
		fmt.Fprintf(t.log, "tool:    launch refused: %v\n", err)
		t.verifier.WriteError(w, err)
		return
	}
	// Verify left the body readable; only now are its parameters trusted.
	if err := r.ParseForm(); err != nil {
		http.Error(w, "malformed form", http.StatusBadRequest)
		return
	}
	f := r.PostForm
	if f.Get("lti_message_type") != "basic-lti-launch-request" || f.Get("lti_version") != "LTI-1p0" || f.Get("resource_link_id") == "" {
		http.Error(w, "not an LTI 1.1 basic launch", http.StatusBadRequest)
		return
	}
	l := launch{
		ConsumerKey: v.ConsumerKey, UserID: f.Get("user_id"), Name: f.Get("lis_person_name_full"),
		Roles: f.Get("roles"), ResourceLinkID: f.Get("resource_link_id"),
		OutcomeURL: f.Get("lis_outcome_service_url"), SourcedID: f.Get("lis_result_sourcedid"),
	}
	if l.OutcomeURL != "" {
		if err := t.checkOutcomeURL(l.ConsumerKey, l.OutcomeURL); err != nil {
			http.Error(w, err.Error(), http.StatusBadRequest)
			return
		}
	}
	fmt.Fprintf(t.log, "tool:    launch verified: consumer=%s user_id=%s roles=%s resource_link_id=%s\n",
		l.ConsumerKey, l.UserID, l.Roles, l.ResourceLinkID)
	fmt.Fprintf(t.log, "tool:    outcome service %s, lis_result_sourcedid=%s\n", l.OutcomeURL, l.SourcedID)

	id := rand.Text()
	t.mu.Lock()
	t.sessions[id] = l
	t.mu.Unlock()
	// In an LMS the tool runs in an iframe, a third-party context: a real
	// deployment serves https and sets SameSite=None with Secure.
	http.SetCookie(w, &http.Cookie{Name: "session", Value: id, Path: "/", HttpOnly: true, Secure: r.TLS != nil, SameSite: http.SameSiteLaxMode})
	w.Header().Set("Content-Type", "text/html; charset=utf-8")
	page.Execute(w, l)
}

// checkOutcomeURL accepts an outcome service URL on the consumer's
// registered host.
func (t *tool) checkOutcomeURL(consumerKey, raw string) error {
	u, err := url.Parse(raw)
	if err != nil || (u.Scheme != "https" && u.Scheme != "http") || u.Host != t.consumers[consumerKey].OutcomeHost {
		return errors.New("lis_outcome_service_url is not on the consumer's outcome service host")
	}
	return nil
}

// submit grades the learner of the session with the score in the form.
func (t *tool) submit(w http.ResponseWriter, r *http.Request) {
	c, err := r.Cookie("session")
	if err != nil {
		http.Error(w, "no session: launch the tool from the LMS", http.StatusUnauthorized)
		return
	}
	t.mu.Lock()
	l, ok := t.sessions[c.Value]
	t.mu.Unlock()
	if !ok {
		http.Error(w, "no session: launch the tool from the LMS", http.StatusUnauthorized)
		return
	}
	score, err := strconv.ParseFloat(r.PostFormValue("score"), 64)
	if err != nil || score < 0 || score > 1 {
		http.Error(w, "the score is a number from 0 to 1", http.StatusBadRequest)
		return
	}
	if l.OutcomeURL == "" || l.SourcedID == "" {
		http.Error(w, "this launch takes no grade", http.StatusBadRequest)
		return
	}
	desc, err := t.sendGrade(r.Context(), l, score)
	if err != nil {
		fmt.Fprintf(t.log, "tool:    replaceResult failed: %v\n", err)
		http.Error(w, "the LMS did not take the grade", http.StatusBadGateway)
		return
	}
	fmt.Fprintf(t.log, "tool:    replaceResult %v -> LMS: success (%s)\n", score, desc)
	fmt.Fprintf(w, "Your score of %v was sent to the LMS.\n", score)
}

// outcomeRequest returns the unsigned replaceResult request for l.
func outcomeRequest(ctx context.Context, l launch, messageID string, score float64) (*http.Request, error) {
	body, err := replaceResultXML(messageID, l.SourcedID, score)
	if err != nil {
		return nil, err
	}
	r, err := http.NewRequestWithContext(ctx, "POST", l.OutcomeURL, bytes.NewReader(body))
	if err != nil {
		return nil, err
	}
	r.Header.Set("Content-Type", "application/xml")
	return r, nil
}

// outcomeConfig signs outcome requests to the consumer's LMS: HMAC-SHA1
// with the consumer credentials, no token, and oauth_body_hash (SHA-1).
func (t *tool) outcomeConfig(consumerKey string) *oauth1.Config {
	return &oauth1.Config{
		ConsumerKey: consumerKey, ConsumerSecret: t.consumers[consumerKey].Secret,
		BodyHash:   crypto.SHA1,
		HTTPClient: t.client,
	}
}

// sendGrade sends score for l to the LMS and returns the LMS's description
// of the result.
func (t *tool) sendGrade(ctx context.Context, l launch, score float64) (string, error) {
	r, err := outcomeRequest(ctx, l, strconv.FormatInt(time.Now().UnixNano(), 10), score)
	if err != nil {
		return "", err
	}
	resp, err := t.outcomeConfig(l.ConsumerKey).Client(nil).Do(r)
	if err != nil {
		return "", err
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return "", fmt.Errorf("outcome service: %s", resp.Status)
	}
	var pr poxResponse
	if err := decodePOX(resp.Body, &pr); err != nil {
		return "", fmt.Errorf("outcome service: %w", err)
	}
	if pr.Status.CodeMajor != "success" {
		return "", fmt.Errorf("outcome service: %s: %s", pr.Status.CodeMajor, pr.Status.Description)
	}
	return pr.Status.Description, nil
}

// formerEnv maps each environment variable to the name this example read
// before all of countersign settled on the oauth1 command's OAUTH1_* names.
var formerEnv = map[string]string{
	"OAUTH1_CONSUMER_KEY":    "LTI_CONSUMER_KEY",
	"OAUTH1_CONSUMER_SECRET": "LTI_CONSUMER_SECRET",
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
