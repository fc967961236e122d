package sunset_test

import (
	"context"
	"errors"
	"net/http"
	"net/http/httptest"
	"strconv"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/countersign/countersign/oauth1"
	"github.com/countersign/countersign/oauth1/server"
	"github.com/countersign/countersign/oauth1/sunset"
)

// Counts and last-seen times under concurrency: run with -race.
func TestUsageConcurrent(t *testing.T) {
	var u sunset.Usage
	base := time.Date(2026, time.June, 1, 0, 0, 0, 0, time.UTC)
	const workers, each, keys = 8, 500, 7
	var wg sync.WaitGroup
	for w := range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range each {
				// Times arrive out of order: the latest must win.
				u.Record("key"+strconv.Itoa(i%keys), base.Add(time.Duration(w*each+i)*time.Second))
			}
		}()
	}
	wg.Wait()
	got := u.Clients()
	require.Len(t, got, keys)
	var total int64
	for _, c := range got {
		k, err := strconv.Atoi(c.ConsumerKey[len("key"):])
		require.NoError(t, err)
		// Worker w records key k at i = k, k+7, ...: (each-k+keys-1)/keys times.
		assert.Equal(t, int64(workers*((each-k+keys-1)/keys)), c.Requests, c.ConsumerKey)
		// The last time a key was seen is by the last worker at its
		// largest i with i%keys == k.
		last := (each - 1) - ((each-1-k)%keys+keys)%keys
		assert.Equal(t, base.Add(time.Duration((workers-1)*each+last)*time.Second), c.LastSeen, c.ConsumerKey)
		total += c.Requests
	}
	assert.Equal(t, int64(workers*each), total)
	for i := 1; i < len(got); i++ {
		assert.GreaterOrEqual(t, got[i-1].Requests, got[i].Requests, "most requests first")
	}
}

func TestUsageMaxClients(t *testing.T) {
	u := sunset.Usage{MaxClients: 3}
	now := time.Date(2026, time.June, 1, 0, 0, 0, 0, time.UTC)
	var wg sync.WaitGroup
	for i := range 50 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			u.Record("k"+strconv.Itoa(i), now)
			u.Record("k"+strconv.Itoa(i), now)
		}()
	}
	wg.Wait()
	got := u.Clients()
	require.Len(t, got, 3)
	for _, c := range got {
		assert.Equal(t, int64(2), c.Requests, c.ConsumerKey)
	}
	u.Record("", now)
	assert.Len(t, u.Clients(), 3)
}

// signedRequest returns a GET signed by consumer key with secret at now.
func signedRequest(t testing.TB, key, secret string, now time.Time, nonce string) *http.Request {
	r := httptest.NewRequest("GET", "http://api.example.com/v1/me", nil)
	c := &oauth1.Config{ConsumerKey: key, ConsumerSecret: secret}
	require.NoError(t, c.SignAt(r, nil, now, nonce))
	return r
}

// A flood of requests with unknown consumer keys, or a known key and a
// wrong signature, does not grow a Usage: only verified requests count.
func TestUsageFloodOfUnknownKeys(t *testing.T) {
	now := time.Date(2026, time.June, 1, 0, 0, 0, 0, time.UTC)
	var u sunset.Usage
	v := &server.Verifier{Store: server.Consumers{"garmin-connect-iq": {Secret: "s3cret"}}, Observe: observeAt(&u, now), Settings: server.Settings{Now: func() time.Time { return now }}}
	h := v.Middleware(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {}))
	for i := range 2000 {
		w := httptest.NewRecorder()
		h.ServeHTTP(w, signedRequest(t, "flood-"+strconv.Itoa(i), "s3cret", now, "n"+strconv.Itoa(i)))
		require.Equal(t, http.StatusUnauthorized, w.Code)
		w = httptest.NewRecorder()
		h.ServeHTTP(w, signedRequest(t, "garmin-connect-iq", "wrong", now, "m"+strconv.Itoa(i)))
		require.Equal(t, http.StatusUnauthorized, w.Code)
	}
	assert.Empty(t, u.Clients())
	for i := range 3 {
		w := httptest.NewRecorder()
		h.ServeHTTP(w, signedRequest(t, "garmin-connect-iq", "s3cret", now, "ok"+strconv.Itoa(i)))
		require.Equal(t, http.StatusOK, w.Code)
	}
	assert.Equal(t, []sunset.Client{{ConsumerKey: "garmin-connect-iq", Requests: 3, LastSeen: now}}, u.Clients())
}

// A Provider's Observe counts its token requests and protected resources.
func TestUsageProvider(t *testing.T) {
	now := time.Date(2026, time.June, 1, 0, 0, 0, 0, time.UTC)
	var u sunset.Usage
	p := &server.Provider{
		Consumers: server.Consumers{"dpf43f3p2l4k3l03": {Secret: "kd94hf93k423kf44"}},
		Temporary: new(server.MemoryTemporaryStore),
		Tokens:    new(server.MemoryTokenStore),
		Settings:  server.Settings{Now: func() time.Time { return now }},
		Observe:   observeAt(&u, now),
	}
	srv := httptest.NewServer(p.RequestTokenHandler())
	defer srv.Close()
	c := &oauth1.Config{ConsumerKey: "dpf43f3p2l4k3l03", ConsumerSecret: "kd94hf93k423kf44",
		Endpoint: oauth1.Endpoint{RequestTokenURL: srv.URL}, Now: func() time.Time { return now }}
	_, err := c.RequestToken(context.Background())
	require.NoError(t, err)
	assert.Equal(t, []sunset.Client{{ConsumerKey: "dpf43f3p2l4k3l03", Requests: 1, LastSeen: now}}, u.Clients())
}

func TestUsageFlush(t *testing.T) {
	var u sunset.Usage
	t0 := time.Date(2026, time.June, 1, 0, 0, 0, 0, time.UTC)
	var saved []sunset.Client
	add := func(_ context.Context, cs []sunset.Client) error {
		saved = append(saved, cs...)
		return nil
	}
	fail := func(context.Context, []sunset.Client) error { return errors.New("redis down") }
	calls := 0
	count := func(context.Context, []sunset.Client) error { calls++; return nil }

	require.NoError(t, u.Flush(context.Background(), count))
	assert.Equal(t, 0, calls, "nothing to add")

	u.Record("a", t0)
	u.Record("a", t0.Add(time.Second))
	u.Record("b", t0)
	require.EqualError(t, u.Flush(context.Background(), fail), "redis down")
	u.Record("a", t0.Add(2*time.Second))
	require.NoError(t, u.Flush(context.Background(), add))
	assert.Equal(t, []sunset.Client{
		{ConsumerKey: "a", Requests: 3, LastSeen: t0.Add(2 * time.Second)},
		{ConsumerKey: "b", Requests: 1, LastSeen: t0},
	}, saved, "what a failed Flush took is handed on")

	saved = nil
	u.Record("b", t0.Add(time.Minute))
	require.NoError(t, u.Flush(context.Background(), add))
	assert.Equal(t, []sunset.Client{{ConsumerKey: "b", Requests: 1, LastSeen: t0.Add(time.Minute)}}, saved)
	require.NoError(t, u.Flush(context.Background(), count))
	assert.Equal(t, 0, calls)

	// Clients keeps the totals.
	assert.Equal(t, []sunset.Client{
		{ConsumerKey: "a", Requests: 3, LastSeen: t0.Add(2 * time.Second)},
		{ConsumerKey: "b", Requests: 2, LastSeen: t0.Add(time.Minute)},
	}, u.Clients())
}

// Flush while requests are counted: every request is added exactly once.
func TestUsageFlushConcurrent(t *testing.T) {
	var u sunset.Usage
	now := time.Date(2026, time.June, 1, 0, 0, 0, 0, time.UTC)
	var mu sync.Mutex
	total := map[string]int64{}
	add := func(_ context.Context, cs []sunset.Client) error {
		mu.Lock()
		defer mu.Unlock()
		for _, c := range cs {
			total[c.ConsumerKey] += c.Requests
		}
		return nil
	}
	var wg sync.WaitGroup
	done := make(chan struct{})
	go func() {
		defer close(done)
		for range 200 {
			assert.NoError(t, u.Flush(context.Background(), add))
		}
	}()
	for w := range 4 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range 1000 {
				u.Record("k"+strconv.Itoa((w+i)%3), now)
			}
		}()
	}
	wg.Wait()
	<-done
	require.NoError(t, u.Flush(context.Background(), add))
	var sum int64
	for _, n := range total {
		sum += n
	}
	assert.Equal(t, int64(4000), sum)
}

// observeAt is observe on a fixed clock.
func observeAt(u *sunset.Usage, now time.Time) func(*http.Request, *server.Verification, error) {
	return func(r *http.Request, v *server.Verification, err error) {
		if v != nil {
			u.Record(v.ConsumerKey, now)
		}
	}
}
