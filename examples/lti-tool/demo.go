package main

import (
	"crypto/rand"
	"fmt"
	"io"
	"net/http"
	"net/http/cookiejar"
	"net/http/httptest"
	"strings"
)

// demoResult is what the demo leaves, for its test.
type demoResult struct {
	lms       *lms
	sourcedID string
}

// runDemo runs a fake LMS and the tool on loopback: the LMS launches the
// tool in a browser, the learner submits a score, the tool sends it to the
// LMS's outcome service; then a replayed and a tampered launch are refused.
// It writes a transcript to out.
func runDemo(out io.Writer) (*demoResult, error) {
	const key, user = "lms.example.edu", "learner-0ae836b9"
	secret := rand.Text() // shared by the LMS and the tool; never printed

	l := newLMS(key, secret, out)
	lmsSrv := httptest.NewServer(l)
	defer lmsSrv.Close()
	outcomeURL := lmsSrv.URL + "/lti/outcomes"
	host := strings.TrimPrefix(lmsSrv.URL, "http://")

	t := newTool(map[string]consumer{key: {Secret: secret, OutcomeHost: host}}, out)
	toolSrv := httptest.NewServer(t)
	defer toolSrv.Close()
	launchURL := toolSrv.URL + "/launch"

	jar, err := cookiejar.New(nil)
	if err != nil {
		return nil, err
	}
	browser := &http.Client{Jar: jar}
	post := func(u, ctype, body string) (int, string, error) {
		resp, err := browser.Post(u, ctype, strings.NewReader(body))
		if err != nil {
			return 0, "", err
		}
		defer resp.Body.Close()
		b, err := io.ReadAll(io.LimitReader(resp.Body, 1<<16))
		return resp.StatusCode, strings.TrimSpace(string(b)), err
	}
	const form = "application/x-www-form-urlencoded"

	launch, err := l.launchForm(launchURL, outcomeURL, user, "Learner")
	if err != nil {
		return nil, err
	}
	fmt.Fprintf(out, "lms:     launch of %s for user_id=%s, signed HMAC-SHA1 with oauth_callback=about:blank\n", launchURL, user)
	status, page, err := post(launchURL, form, launch)
	if err != nil {
		return nil, err
	}
	if status != http.StatusOK {
		return nil, fmt.Errorf("launch: %d %s", status, page)
	}
	fmt.Fprintf(out, "browser: launch -> %d, the quiz page (%d bytes)\n", status, len(page))

	fmt.Fprintf(out, "browser: submit score 0.92\n")
	status, msg, err := post(toolSrv.URL+"/submit", form, "score=0.92")
	if err != nil {
		return nil, err
	}
	if status != http.StatusOK {
		return nil, fmt.Errorf("submit: %d %s", status, msg)
	}
	fmt.Fprintf(out, "browser: %d %s\n", status, msg)

	// The same launch again, as an attacker who captured it would send it.
	status, msg, err = post(launchURL, form, launch)
	if err != nil {
		return nil, err
	}
	fmt.Fprintf(out, "browser: replayed launch -> %d %s\n", status, msg)
	if status != http.StatusUnauthorized {
		return nil, fmt.Errorf("replayed launch: %d, want 401", status)
	}

	// A learner who makes themselves an instructor breaks the signature.
	launch2, err := l.launchForm(launchURL, outcomeURL, user, "Learner")
	if err != nil {
		return nil, err
	}
	tampered := strings.Replace(launch2, "roles=Learner", "roles=Instructor", 1)
	status, msg, err = post(launchURL, form, tampered)
	if err != nil {
		return nil, err
	}
	fmt.Fprintf(out, "browser: launch with roles=Instructor -> %d %s\n", status, msg)
	if status != http.StatusUnauthorized {
		return nil, fmt.Errorf("tampered launch: %d, want 401", status)
	}

	sourcedID := "course-42:quiz-7:" + user
	g, ok := l.grade(sourcedID)
	if !ok {
		return nil, fmt.Errorf("the LMS has no grade for %s", sourcedID)
	}
	fmt.Fprintf(out, "lms:     final grade for user_id=%s: %v\n", user, g)
	return &demoResult{lms: l, sourcedID: sourcedID}, nil
}
