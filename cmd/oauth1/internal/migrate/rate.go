package migrate

import (
	"context"
	"fmt"
	"strconv"
	"strings"
	"sync"
	"time"
)

// A Limiter spaces requests so that at most n go in any window, and
// holds them all while the provider asked to wait.
type Limiter struct {
	every time.Duration
	mu    sync.Mutex
	next  time.Time
}

// ParseRate reads a --rate, N/DURATION, or def when s is "".
func ParseRate(s, def string) (*Limiter, error) {
	if s == "" {
		s = def
	}
	ns, ds, ok := strings.Cut(s, "/")
	n, err := strconv.Atoi(ns)
	d, derr := time.ParseDuration(ds)
	if !ok || err != nil || derr != nil || n < 1 || d <= 0 {
		return nil, fmt.Errorf("--rate %q: want N/DURATION, such as 10000/15m", s)
	}
	return &Limiter{every: d / time.Duration(n)}, nil
}

// wait returns when the next request may go, or false when ctx ends.
func (l *Limiter) wait(ctx context.Context) bool {
	l.mu.Lock()
	t := time.Now()
	if l.next.After(t) {
		t = l.next
	}
	l.next = t.Add(l.every)
	l.mu.Unlock()
	select {
	case <-ctx.Done():
		return false
	case <-time.After(time.Until(t)):
		return true
	}
}

// pause holds every request for d.
func (l *Limiter) pause(d time.Duration) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if t := time.Now().Add(d); t.After(l.next) {
		l.next = t
	}
}
