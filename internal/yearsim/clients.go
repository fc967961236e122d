package yearsim

import (
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strconv"
	"sync"
	"sync/atomic"

	"github.com/countersign/countersign/oauth1/server"
)

// nonces returns the oauth_nonce maker of a client: a count within the
// second for the acme tool, which its deployments share; a count over the
// year for the others. Both are safe for concurrent use.
func (y *year) nonces(key string) func() string {
	if key == "acme" {
		var mu sync.Mutex
		var seq, last int64
		return func() string {
			mu.Lock()
			defer mu.Unlock()
			if ts := y.clock.now().Unix(); ts != last {
				last, seq = ts, 0
			}
			seq++
			return strconv.FormatInt(seq, 10)
		}
	}
	var seq atomic.Int64
	return func() string {
		return "n" + strconv.FormatInt(seq.Add(1), 36)
	}
}

// parallel runs f(0) … f(n-1) on up to yearWorkers goroutines and returns
// when all have returned. Many requests in flight at once let Redis and
// Go's netpoller serve several per system call and wake-up.
func (y *year) parallel(n int, f func(i int)) {
	workers := min(n, yearWorkers)
	if workers <= 1 {
		for i := range n {
			f(i)
		}
		return
	}
	var next atomic.Int64
	var wg sync.WaitGroup
	for range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := int(next.Add(1)) - 1; i < n; i = int(next.Add(1)) - 1 {
				f(i)
			}
		}()
	}
	wg.Wait()
}

// count adds one to m[key], under y.mu.
func (y *year) count(m map[string]int, key string) {
	y.mu.Lock()
	m[key]++
	y.mu.Unlock()
}

// yearAPI is the tenants' API: it answers the user and client the
// Verification names.
func yearAPI(w http.ResponseWriter, r *http.Request) {
	v, ok := server.FromContext(r.Context())
	if !ok {
		http.Error(w, "no verification", http.StatusInternalServerError)
		return
	}
	io.WriteString(w, v.ConsumerKey+" "+v.User)
}

// yearTransport sends the flow's token requests to the tenants' handlers,
// in process.
type yearTransport struct {
	y       *year
	tenants map[string]*yearTenant
}

func (tr yearTransport) RoundTrip(r *http.Request) (*http.Response, error) {
	tn := tr.tenants[r.URL.Host]
	if tn == nil {
		return nil, fmt.Errorf("no tenant at %s", r.URL.Host)
	}
	sr := r.Clone(r.Context())
	if sr.Body == nil {
		sr.Body = http.NoBody
	}
	sr.RequestURI = r.URL.RequestURI()
	sr.Host = r.URL.Host
	sr.RemoteAddr = "127.0.0.1:40000"
	rec := httptest.NewRecorder()
	tn.mux.ServeHTTP(rec, sr)
	if ri := yearReqOf(r.Context()); ri != nil {
		ri.retry = rec.Header().Get("Retry-After")
	}
	return rec.Result(), nil
}
