package main

import (
	"crypto"
	"crypto/rand"
	"encoding/xml"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/countersign/countersign/oauth1"
	"github.com/countersign/countersign/oauth1/server"
	"github.com/countersign/countersign/percent"
)

// lms is the fake learning management system of the demo: it signs
// launches as an LMS does, and runs an LTI 1.1 outcome service that
// verifies replaceResult requests, oauth_body_hash included, before it
// records a grade.
type lms struct {
	config   *oauth1.Config // the tool's consumer key and secret, as registered in the LMS
	verifier *server.Verifier
	log      io.Writer

	mu      sync.Mutex
	results map[string]string  // lis_result_sourcedid → user_id, for the launches made
	grades  map[string]float64 // lis_result_sourcedid → score
}

func newLMS(key, secret string, logw io.Writer) *lms {
	return &lms{
		config: &oauth1.Config{ConsumerKey: key, ConsumerSecret: secret, Delivery: oauth1.FormBody},
		// The outcome service requires oauth_body_hash, with SHA-1, on the
		// XML it receives.
		verifier: &server.Verifier{Store: server.Consumers{key: {Secret: secret}}, Settings: server.Settings{SignatureMethods: []string{"HMAC-SHA1"}, BodyHash: crypto.SHA1}},
		log:      logw,
		results:  map[string]string{},
		grades:   map[string]float64{},
	}
}

// launchForm returns the signed body of a basic launch of toolURL for
// userID, which the LMS puts in an auto-submitting HTML form for the
// learner's browser to POST. The protocol parameters go in the body with
// the others (Delivery: FormBody), as LMSs send them.
func (l *lms) launchForm(toolURL, outcomeURL, userID, roles string) (string, error) {
	sourcedID := "course-42:quiz-7:" + userID
	l.mu.Lock()
	l.results[sourcedID] = userID
	l.mu.Unlock()
	params := [][2]string{
		{"lti_message_type", "basic-lti-launch-request"},
		{"lti_version", "LTI-1p0"},
		{"resource_link_id", "quiz-7"},
		{"resource_link_title", "Weekly quiz"},
		{"user_id", userID},
		{"roles", roles},
		{"lis_person_name_full", "Jane Q. Public"},
		{"context_id", "course-42"},
		{"lis_outcome_service_url", outcomeURL},
		{"lis_result_sourcedid", sourcedID},
	}
	var b strings.Builder
	for i, p := range params {
		if i > 0 {
			b.WriteByte('&')
		}
		b.WriteString(percent.Encode(p[0]) + "=" + percent.Encode(p[1]))
	}
	r, err := http.NewRequest("POST", toolURL, strings.NewReader(b.String()))
	if err != nil {
		return "", err
	}
	r.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	// LTI 1.1 launches carry oauth_callback=about:blank (there is no
	// callback: OAuth's three-legged flow is not used).
	err = l.config.SignAt(r, nil, time.Now(), rand.Text(), oauth1.Param{Name: "oauth_callback", Value: "about:blank"})
	if err != nil {
		return "", err
	}
	body, err := io.ReadAll(r.Body)
	return string(body), err
}

// ServeHTTP is the outcome service.
func (l *lms) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if r.Method != "POST" {
		http.Error(w, "POST only", http.StatusMethodNotAllowed)
		return
	}
	v, err := l.verifier.Verify(r)
	if err != nil {
		fmt.Fprintf(l.log, "lms:     outcome request refused: %v\n", err)
		l.verifier.WriteError(w, err)
		return
	}
	var req poxRequest
	if err := decodePOX(r.Body, &req); err != nil {
		l.answer(w, req.MessageID, "", "failure", "malformed POX request")
		return
	}
	rr := req.Body.ReplaceResult
	if rr == nil {
		l.answer(w, req.MessageID, "", "unsupported", "only replaceResult is supported")
		return
	}
	score, err := parseScore(rr.Score)
	if err != nil {
		l.answer(w, req.MessageID, "replaceResult", "failure", err.Error())
		return
	}
	l.mu.Lock()
	user, known := l.results[rr.SourcedID]
	if known {
		l.grades[rr.SourcedID] = score
	}
	l.mu.Unlock()
	if !known {
		l.answer(w, req.MessageID, "replaceResult", "failure", "unknown sourcedId")
		return
	}
	fmt.Fprintf(l.log, "lms:     gradebook: user_id=%s quiz-7 = %v (from %s; signature and oauth_body_hash verified)\n", user, score, v.ConsumerKey)
	l.answer(w, req.MessageID, "replaceResult", "success", "Score for "+rr.SourcedID+" is now "+rr.Score)
}

// parseScore reads a resultScore textString: a decimal from 0.0 to 1.0.
func parseScore(s string) (float64, error) {
	f, err := strconv.ParseFloat(strings.TrimSpace(s), 64)
	if err != nil || !(f >= 0 && f <= 1) {
		return 0, errors.New("the score is not a number from 0.0 to 1.0")
	}
	return f, nil
}

// answer writes a POX response envelope.
func (l *lms) answer(w http.ResponseWriter, messageRef, operation, codeMajor, description string) {
	resp := poxResponse{Version: "V1.0", MessageID: rand.Text()}
	resp.Status = poxStatus{
		CodeMajor: codeMajor, Severity: "status", Description: description,
		MessageRef: messageRef, OperationRef: operation,
	}
	if codeMajor != "success" {
		resp.Status.Severity = "error"
	} else {
		resp.ReplaceBody = &struct{}{}
	}
	b, err := xml.MarshalIndent(resp, "", "  ")
	if err != nil {
		http.Error(w, "internal error", http.StatusInternalServerError)
		return
	}
	w.Header().Set("Content-Type", "application/xml")
	w.Write([]byte(xml.Header))
	w.Write(b)
}

// grade returns the score recorded for sourcedID.
func (l *lms) grade(sourcedID string) (float64, bool) {
	l.mu.Lock()
	defer l.mu.Unlock()
	g, ok := l.grades[sourcedID]
	return g, ok
}
