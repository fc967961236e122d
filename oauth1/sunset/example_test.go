package sunset_test

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"time"

	"github.com/countersign/countersign/oauth1"
	"github.com/countersign/countersign/oauth1/server"
	"github.com/countersign/countersign/oauth1/sunset"
)

// A provider announces that OAuth 1.0a is deprecated, and when it goes.
// The Now of the Policy stands for the clock; leave it nil in a service.
func Example() {
	p := sunset.Policy{
		Deprecation: time.Date(2026, time.June, 1, 0, 0, 0, 0, time.UTC),
		Sunset:      time.Date(2026, time.December, 31, 23, 59, 59, 0, time.UTC),
		Link:        "https://developer.example.com/oauth2-migration",
		Now:         func() time.Time { return time.Date(2026, time.July, 1, 0, 0, 0, 0, time.UTC) },
	}
	api := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { fmt.Fprint(w, "ok") })
	w := httptest.NewRecorder()
	p.Handler(api).ServeHTTP(w, httptest.NewRequest("GET", "/v1/me", nil))
	fmt.Println("Deprecation:", w.Header().Get("Deprecation"))
	fmt.Println("Sunset:", w.Header().Get("Sunset"))
	for _, l := range w.Header().Values("Link") {
		fmt.Println("Link:", l)
	}
	// A client reads them from any response.
	fmt.Println(sunset.Read(w.Header()))
	// Output:
	// Deprecation: @1780272000
	// Sunset: Thu, 31 Dec 2026 23:59:59 GMT
	// Link: <https://developer.example.com/oauth2-migration>; rel="deprecation"
	// Link: <https://developer.example.com/oauth2-migration>; rel="sunset"
	// the provider deprecates this API as of 2026-06-01 00:00:00 UTC and retires it at 2026-12-31 23:59:59 UTC (see https://developer.example.com/oauth2-migration)
}

// Garmin retires OAuth 1.0a on 2026-12-31. A provider in its place
// deprecates it months before, counts who still signs with it, browns it
// out for an hour in November so that the developers who missed the
// headers notice, and cuts it off at the end of the year. The clock here
// is a variable, to show the year go by.
func Example_retirement() {
	now := time.Date(2026, time.May, 1, 0, 0, 0, 0, time.UTC)
	clock := func() time.Time { return now }

	var usage sunset.Usage
	p := &server.Provider{
		Consumers: server.Consumers{"connect-iq-app": {Secret: "kd94hf93k423kf44"}},
		Temporary: new(server.MemoryTemporaryStore),
		Tokens:    new(server.MemoryTokenStore),
		Settings:  server.Settings{Now: clock},
		// Counts the requests whose signature was verified (v is not
		// nil), also those refused after.
		Observe: func(r *http.Request, v *server.Verification, err error) {
			if v != nil {
				usage.Record(v.ConsumerKey, clock())
			}
		},
	}
	retire := sunset.Policy{
		Deprecation: time.Date(2026, time.June, 1, 0, 0, 0, 0, time.UTC),
		Sunset:      time.Date(2026, time.December, 31, 23, 59, 59, 0, time.UTC),
		Link:        "https://developer.example.com/oauth2-migration",
		Brownouts: []sunset.Brownout{{
			Start: time.Date(2026, time.November, 3, 14, 0, 0, 0, time.UTC),
			End:   time.Date(2026, time.November, 3, 15, 0, 0, 0, time.UTC),
		}},
		Realm: "Garmin",
		Now:   clock,
	}
	mux := http.NewServeMux()
	mux.Handle("/api/", retire.Handler(p.Middleware(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		fmt.Fprint(w, "steps=8042")
	}))))
	srv := httptest.NewServer(mux)
	defer srv.Close()

	// The client's developer checks every response, the good ones too.
	c := &oauth1.Config{ConsumerKey: "connect-iq-app", ConsumerSecret: "kd94hf93k423kf44", Now: clock}
	get := func(when time.Time) {
		now = when
		resp, err := c.Client(nil).Get(srv.URL + "/api/steps")
		if err != nil {
			panic(err)
		}
		defer resp.Body.Close()
		fmt.Printf("%s: %s", when.Format(time.DateOnly), resp.Status)
		if err := oauth1.CheckResponse(resp); err != nil {
			var re *oauth1.ResponseError
			errors.As(err, &re)
			fmt.Printf(" %s\n  %s\n", re.Problem, re.Advice)
			return
		}
		body, _ := io.ReadAll(resp.Body)
		fmt.Printf(" %s\n", body)
		if n := sunset.Read(resp.Header); !n.IsZero() {
			fmt.Println("  warning:", n)
		}
	}
	get(time.Date(2026, time.May, 15, 9, 0, 0, 0, time.UTC))
	get(time.Date(2026, time.August, 15, 9, 0, 0, 0, time.UTC))
	get(time.Date(2026, time.November, 3, 14, 30, 0, 0, time.UTC))
	get(time.Date(2027, time.January, 2, 9, 0, 0, 0, time.UTC))

	// The operator sees who still uses OAuth 1.0a, and adds the counts to
	// those of the other instances (here, prints them).
	usage.Flush(context.Background(), func(_ context.Context, cs []sunset.Client) error {
		for _, c := range cs {
			fmt.Printf("%s: %d requests, last seen %s\n", c.ConsumerKey, c.Requests, c.LastSeen.Format(time.DateTime))
		}
		return nil
	})
	// Output:
	// 2026-05-15: 200 OK steps=8042
	// 2026-08-15: 200 OK steps=8042
	//   warning: the provider deprecates this API as of 2026-06-01 00:00:00 UTC and retires it at 2026-12-31 23:59:59 UTC (see https://developer.example.com/oauth2-migration)
	// 2026-11-03: 401 Unauthorized version_rejected
	//   OAuth 1.0a is deprecated and switched off until 2026-11-03 15:00:00 UTC, a brownout before its retirement at 2026-12-31 23:59:59 UTC; migrate: https://developer.example.com/oauth2-migration
	// 2027-01-02: 410 Gone version_rejected
	//   OAuth 1.0a was retired at 2026-12-31 23:59:59 UTC; migrate: https://developer.example.com/oauth2-migration
	// connect-iq-app: 2 requests, last seen 2026-08-15 09:00:00
}

// A client hears the retirement on its first successful response, with a
// Transport around the one that signs its requests.
func ExampleTransport() {
	api := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Deprecation", "@1688169599")
		w.Header().Set("Sunset", "Sun, 30 Jun 2024 23:59:59 UTC") // as RFC 9745 §4 writes it
		w.Header().Add("Link", `<https://developer.example.com/oauth2-migration>; rel="deprecation"`)
		fmt.Fprint(w, "steps=8042")
	}))
	defer api.Close()

	c := &oauth1.Config{ConsumerKey: "connect-iq-app", ConsumerSecret: "kd94hf93k423kf44"}
	client := &http.Client{Transport: &sunset.Transport{
		Base: c.Client(nil).Transport,
		Notify: func(resp *http.Response, n sunset.Notice) {
			fmt.Println("warning:", n)
		},
	}}
	resp, err := client.Get(api.URL + "/api/steps")
	if err != nil {
		panic(err)
	}
	defer resp.Body.Close()
	fmt.Println(resp.Status)
	// Output:
	// warning: the provider deprecates this API as of 2023-06-30 23:59:59 UTC and retires it at 2024-06-30 23:59:59 UTC (see https://developer.example.com/oauth2-migration)
	// 200 OK
}
