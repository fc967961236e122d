package yearsim

import (
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/countersign/countersign/oauth1"
	"github.com/countersign/countersign/oauth1/server"
)

// fail records a failure of the run: its category, counted, and the first
// example.
func (y *year) fail(category, format string, args ...any) {
	y.mu.Lock()
	defer y.mu.Unlock()
	f := y.failures[category]
	if f == nil {
		f = &yearFailure{first: fmt.Sprintf("day %d: ", y.day+1) + fmt.Sprintf(format, args...)}
		y.failures[category] = f
		y.order = append(y.order, category)
	}
	f.n++
}

// why names a refusal: its status, oauth_problem and, from the Provider's
// Observe, the store that refused.
func (y *year) why(ri *yearReq, status int, body string) string {
	q, _ := url.ParseQuery(body)
	s := strconv.Itoa(status)
	if p := q.Get("oauth_problem"); p != "" {
		s += " " + p
	}
	s += storeReason(ri.err)
	return s
}

// storeReason names the store that refused with err, if one did.
func storeReason(err error) string {
	switch {
	case err == nil:
	case errors.Is(err, server.ErrStoreFull) && strings.Contains(err.Error(), "nonce"):
		return " (nonce store full)"
	case errors.Is(err, server.ErrStoreFull) && strings.Contains(err.Error(), "temporary"):
		return " (temporary store full)"
	case errors.Is(err, server.ErrStoreFull):
		return " (token store full)"
	case errors.Is(err, server.ErrStoreUnavailable):
		return " (store unavailable)"
	}
	return ""
}

// whyErr is why for an error of the flow's requests, and its status.
func (y *year) whyErr(ri *yearReq, err error) (string, int) {
	var re *oauth1.ResponseError
	if !errors.As(err, &re) {
		return "error: " + err.Error(), 0
	}
	s := strconv.Itoa(re.StatusCode)
	if re.Problem != "" {
		s += " " + string(re.Problem)
	}
	s += storeReason(ri.err)
	return s, re.StatusCode
}

func (y *year) observed(ri *yearReq) string {
	if ri.err == nil {
		return ""
	}
	msg := ri.err.Error()
	if len(msg) > 200 {
		msg = msg[:200] + "..."
	}
	return "; the Provider saw: " + msg
}

// yearFlow is one three-legged authorization of u at c, between its
// consent and its token request.
// checkpoint measures the live heap and the stores' size.
func (y *year) checkpoint() {
	runtime.GC()
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	heap := int64(ms.HeapAlloc)
	y.peakHeap = max(y.peakHeap, heap)
	used := y.be.Size()
	y.peakSize = max(y.peakSize, used)
	tokens := 0
	for _, tn := range y.tenants {
		for _, c := range tn.clients {
			tokens += c.issued
		}
	}
	size := ""
	if used >= 0 {
		size = fmt.Sprintf(", %s %6.1f MiB", y.be.SizeName, float64(used)/(1<<20))
	}
	y.t.Logf("day %3d: live heap %6.1f MiB%s, token credentials issued %d",
		y.day+1, float64(heap)/(1<<20), size, tokens)
	if heap > yearHeapBound {
		y.fail("memory: live heap past yearHeapBound", "%d MiB, bound %d MiB", heap>>20, yearHeapBound>>20)
	}
	if used > y.be.SizeBound {
		y.fail(y.be.Name+": "+y.be.SizeName+" past its bound", "%d MiB, bound %d MiB", used>>20, y.be.SizeBound>>20)
	}
}

func (y *year) report(cpu, serverCPU, wall time.Duration) {
	var b strings.Builder
	fmt.Fprintf(&b, "simulated year, %s stores: %d users, %d days\n", y.be.Name, yearUsers/y.be.Scale, y.be.Days)
	writeCounts := func(title string, m map[string]int) {
		fmt.Fprintf(&b, "%s:\n", title)
		keys := slices.Sorted(func(yield func(string) bool) {
			for k := range m {
				if !yield(k) {
					return
				}
			}
		})
		total := 0
		for _, k := range keys {
			fmt.Fprintf(&b, "  %9d  %s\n", m[k], k)
			total += m[k]
		}
		fmt.Fprintf(&b, "  %9d  in all\n", total)
	}
	writeCounts("requests by kind", y.requests)
	writeCounts("refusals by kind and reason (replays and revoked tokens must be refused)", y.refusals)
	writeCounts("flood", y.flood)
	fmt.Fprintf(&b, "peak live heap %.1f MiB (bound %d MiB)", float64(y.peakHeap)/(1<<20), yearHeapBound>>20)
	if y.peakSize >= 0 {
		fmt.Fprintf(&b, "; peak %s %.1f MiB (bound %d MiB)", y.be.SizeName, float64(y.peakSize)/(1<<20), y.be.SizeBound>>20)
	}
	fmt.Fprintf(&b, "\nCPU during the run: %.1f s in this process", cpu.Seconds())
	if serverCPU > 0 {
		fmt.Fprintf(&b, ", %.1f s in %s", serverCPU.Seconds(), y.be.ServerName)
	}
	fmt.Fprintf(&b, " (wall %.1f s)", wall.Seconds())
	if y.trips > 0 {
		fmt.Fprintf(&b, "; %d Redis commands in %d round trips, %.1f µs of CPU a command in both processes with the requests' own work",
			y.commands, y.trips, float64((cpu+serverCPU).Microseconds())/float64(y.commands))
	}
	b.WriteString("\n")
	for _, tn := range y.tenants {
		for _, c := range tn.clients {
			if c.firstRefused > 0 {
				fmt.Fprintf(&b, "%s: first authorization refused: %d (after %d token credentials issued); of the %d authorizations after it, %d got token credentials\n",
					c, c.firstRefused, c.issuedBefore, c.auths-c.firstRefused, c.issuedAfter)
			}
		}
	}
	fmt.Fprintf(&b, "failures: %d kinds\n", len(y.order))
	for _, k := range y.order {
		fmt.Fprintf(&b, "  %7d × %s\n            first: %s\n", y.failures[k].n, k, y.failures[k].first)
	}
	y.t.Log("\n" + b.String())
	for _, k := range y.order {
		y.t.Errorf("%s: %d times; first: %s", k, y.failures[k].n, y.failures[k].first)
	}
}

// yearNonce returns the oauth_nonce of r's Authorization header.
func yearNonce(r *http.Request) string {
	_, v, _ := strings.Cut(r.Header.Get("Authorization"), `oauth_nonce="`)
	v, _, _ = strings.Cut(v, `"`)
	return v
}
