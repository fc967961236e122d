package migrate

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"os"
	"os/signal"
	"strings"
	"sync"
	"time"

	"github.com/countersign/countersign/cmd/oauth1/internal/terminal"
	"github.com/countersign/countersign/oauth1/exchange"
)

// requestTimeout bounds one exchange.
const requestTimeout = time.Minute

// A Run exchanges the lines of oauth1 migrate's input and writes each
// result as soon as it has it. Set its fields, then call Open, Exchange
// and Summary.
type Run struct {
	Exchanger Exchanger
	Limiter   *Limiter
	// Retries is how many times a token is tried again after a 429.
	Retries int
	// Keep are the fields of an answer written with the token (Extras and
	// the user's own).
	Keep []string
	// ConsumerKey is written with each failure of the signed shape.
	ConsumerKey string
	// Stdout receives the results when there is no --out file; Stderr the
	// failures, the progress bar and the summary.
	Stdout, Stderr io.Writer

	out     string
	file    *os.File // the --out file, or nil for stdout
	fails   *os.File // the --failures file, or nil
	w       io.Writer
	done    map[string]bool // tokens the --out file holds
	start   time.Time
	tty     bool
	stopBar chan struct{}
	barDone chan struct{}
	hard    context.Context // ended by a second Ctrl-C: abandon what is in flight

	mu                                 sync.Mutex
	total, exchanged, failed, skipped  int
	repeated, notAttempted, barPrinted int
	inFlight, abandoned                int
}

// Open readies the output: stdout, or the --out file, whose tokens are
// skipped. A last line without its newline (a crash while writing it) is
// cut off: its token is exchanged again. failures, if not "", is created
// anew for the failures of this run.
func (m *Run) Open(path, failures string) error {
	m.done = map[string]bool{}
	m.out = path
	if failures != "" {
		f, err := os.OpenFile(failures, os.O_WRONLY|os.O_CREATE|os.O_TRUNC, 0o600)
		if err != nil {
			return err
		}
		m.fails = f
	}
	if path == "" {
		m.w = m.Stdout
		return nil
	}
	// Results hold OAuth 2.0 tokens: readable by their owner only.
	f, err := os.OpenFile(path, os.O_RDWR|os.O_CREATE, 0o600)
	if err != nil {
		return err
	}
	b, err := io.ReadAll(f)
	if err != nil {
		f.Close()
		return err
	}
	if i := bytes.LastIndexByte(b, '\n'); len(b) > 0 && i != len(b)-1 {
		if err := f.Truncate(int64(i + 1)); err != nil {
			f.Close()
			return err
		}
		fmt.Fprintf(m.Stderr, "oauth1: migrate: %s ended in a partial line (an interrupted write), cut off; its token is exchanged again\n", path)
		b = b[:i+1]
	}
	for _, line := range bytes.Split(b, []byte("\n")) {
		var t struct{ Token string }
		if json.Unmarshal(line, &t) == nil && t.Token != "" {
			m.done[t.Token] = true
		}
	}
	if _, err := f.Seek(0, io.SeekEnd); err != nil {
		f.Close()
		return err
	}
	m.file, m.w = f, f
	return nil
}

// Close closes the files Open opened.
func (m *Run) Close() {
	if m.file != nil {
		m.file.Close()
	}
	if m.fails != nil {
		m.fails.Close()
	}
}

// Interrupts makes Ctrl-C stop the migration in two steps. The first ends
// the context returned: no exchange starts after it, and those in flight
// finish and are written, since the provider may already have revoked their
// 1.0a tokens. A second abandons those too (m.hard); a third kills.
func (m *Run) Interrupts() (context.Context, func()) {
	sig := make(chan os.Signal, 1)
	signal.Notify(sig, os.Interrupt)
	soft, interrupt := context.WithCancel(context.Background())
	hard, abandon := context.WithCancel(context.Background())
	m.hard = hard
	quit, done := make(chan struct{}), make(chan struct{})
	go func() {
		defer close(done)
		defer signal.Stop(sig)
		select {
		case <-sig:
		case <-quit:
			return
		}
		interrupt() // before saying so: nothing starts once it is said
		m.mu.Lock()
		m.clearBar()
		msg := "oauth1 migrate: interrupted: no exchange starts"
		if m.inFlight > 0 {
			msg += fmt.Sprintf("; waiting for the %d in flight (up to %s), whose answers are written; Ctrl-C again abandons them", m.inFlight, requestTimeout)
		}
		fmt.Fprintln(m.Stderr, msg)
		m.mu.Unlock()
		select {
		case <-sig:
		case <-quit:
			return
		}
		abandon()
	}()
	return soft, func() {
		close(quit)
		<-done
		interrupt()
		abandon()
	}
}

// Exchange exchanges lines with n workers, at the limiter's rate, until they
// are done or ctx ends.
func (m *Run) Exchange(ctx context.Context, lines []Line, n int) {
	m.start = time.Now()
	seen := map[string]bool{}
	var todo []Line
	for _, l := range lines {
		switch {
		case m.done[l.Cred.Token]:
			m.skipped++
		case seen[l.Cred.Token]:
			m.repeated++ // exchanging it twice would invalidate the first pair
		default:
			seen[l.Cred.Token] = true
			todo = append(todo, l)
		}
	}
	m.total = len(todo)
	if f, ok := m.Stderr.(*os.File); ok {
		if fi, err := f.Stat(); err == nil && fi.Mode()&os.ModeCharDevice != 0 {
			m.tty = true
			m.stopBar, m.barDone = make(chan struct{}), make(chan struct{})
			go m.drawBar()
		}
	}
	ch := make(chan Line)
	var wg sync.WaitGroup
	for range n {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for l := range ch {
				m.one(ctx, l)
			}
		}()
	}
	sent := 0
feed:
	for _, l := range todo {
		select {
		case ch <- l:
			sent++
		case <-ctx.Done():
			break feed
		}
	}
	close(ch)
	wg.Wait()
	m.mu.Lock()
	m.notAttempted += len(todo) - sent
	m.mu.Unlock()
	if m.tty {
		close(m.stopBar)
		<-m.barDone
	}
}

// one exchanges one line, waiting out 429s.
func (m *Run) one(ctx context.Context, l Line) {
	for attempt := 0; ; attempt++ {
		ok := m.Limiter.wait(ctx)
		m.mu.Lock()
		if !ok || ctx.Err() != nil { // wait may pick its timer over a done ctx
			m.notAttempted++
			m.mu.Unlock()
			return
		}
		m.inFlight++
		m.mu.Unlock()
		// An interrupt stops what has not started, not a request in
		// flight: its answer may be the only valid pair for the user.
		rctx, cancel := context.WithTimeout(m.hard, requestTimeout)
		tok, err := m.Exchanger.Exchange(rctx, l.Cred)
		cancel()
		m.mu.Lock()
		m.inFlight--
		m.mu.Unlock()
		if err != nil && m.hard.Err() != nil {
			m.abandon(l)
			return
		}
		if err == nil {
			b, err := l.result(tok, m.Keep)
			if err == nil {
				err = m.write(b)
			}
			if err != nil {
				m.fail(newFailure(l, failUnwritten, fmt.Errorf("exchanged, but the result was not written (%v); a re-run exchanges it again", err)))
				return
			}
			m.count(&m.exchanged)
			return
		}
		var e *exchange.Error
		if errors.As(err, &e) && e.StatusCode == http.StatusTooManyRequests && attempt < m.Retries {
			wait := e.RetryAfter
			if wait <= 0 {
				wait = time.Minute
			}
			m.Limiter.pause(min(wait, 15*time.Minute))
			continue
		}
		m.fail(newFailure(l, "", err))
		return
	}
}

func (m *Run) count(n *int) {
	m.mu.Lock()
	*n++
	m.mu.Unlock()
}

// write appends one result line and, to a file, syncs it: a line is in the
// file only once its token is exchanged, and stays there through a crash.
func (m *Run) write(b []byte) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.clearBar()
	if _, err := m.w.Write(append(b, '\n')); err != nil {
		return err
	}
	if m.file != nil {
		return m.file.Sync()
	}
	return nil
}

// abandon reports an exchange cut off in flight by a second Ctrl-C: the
// provider may have made it and revoked the 1.0a token.
func (m *Run) abandon(l Line) {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.abandoned++
	m.clearBar()
	msg := "abandoned in flight: the provider may have exchanged it, and then refuses it to a re-run (that user authorizes again)"
	fmt.Fprintf(m.Stderr, "oauth1 migrate: line %d (token %s): %s\n", l.N, terminal.Safe(l.Cred.Token), msg)
	m.writeFailure(newFailure(l, failAbandoned, errors.New(msg)))
}

// fail reports a token that was not exchanged.
func (m *Run) fail(f Failure) {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.failed++
	m.clearBar()
	fmt.Fprintf(m.Stderr, "oauth1 migrate: line %d (token %s): %s\n", f.line, terminal.Safe(f.l.Cred.Token), terminal.Safe(f.msg))
	m.writeFailure(f)
}

// Record counts a line of the input that is not credentials, already
// reported by ReadLines, and writes it to --failures.
func (m *Run) Record(f Failure) {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.failed++
	m.writeFailure(f)
}

// writeFailure appends f to the --failures file; m.mu is held. A failure
// that cannot be written is said on stderr, once, and the run goes on: the
// same failure is on stderr already.
func (m *Run) writeFailure(f Failure) {
	if m.fails == nil {
		return
	}
	b, err := f.json(m.ConsumerKey)
	if err == nil {
		_, err = m.fails.Write(append(b, '\n'))
	}
	if err != nil {
		fmt.Fprintf(m.Stderr, "oauth1 migrate: writing %s: %v; the failures are on stderr only\n", m.fails.Name(), err)
		m.fails.Close()
		m.fails = nil
	}
}

// drawBar redraws the progress bar on the terminal until stopBar closes.
func (m *Run) drawBar() {
	defer close(m.barDone)
	t := time.NewTicker(200 * time.Millisecond)
	defer t.Stop()
	for {
		m.mu.Lock()
		fmt.Fprint(m.Stderr, "\r"+progressBar(m.exchanged+m.failed, m.total, m.exchanged, m.failed, time.Since(m.start)))
		m.barPrinted = 1
		m.mu.Unlock()
		select {
		case <-m.stopBar:
			m.mu.Lock()
			m.clearBar()
			m.mu.Unlock()
			return
		case <-t.C:
		}
	}
}

// clearBar erases the bar before a line is printed; m.mu is held.
func (m *Run) clearBar() {
	if m.barPrinted != 0 && m.w != m.Stderr {
		fmt.Fprint(m.Stderr, "\r\x1b[K")
		m.barPrinted = 0
	}
}

// progressBar is one line: a bar of 30 cells, counts and the time left.
func progressBar(done, total, ok, failed int, elapsed time.Duration) string {
	const width = 30
	cells := width
	if total > 0 {
		cells = done * width / total
	}
	eta := "?"
	if done > 0 && total >= done {
		eta = (elapsed / time.Duration(done) * time.Duration(total-done)).Round(time.Second).String()
	}
	return fmt.Sprintf("[%s%s] %d/%d  %d exchanged  %d failed  %s left",
		strings.Repeat("#", cells), strings.Repeat(".", width-cells), done, total, ok, failed, eta)
}

// An Outcome is how a run ended; the command makes it an exit status.
type Outcome int

const (
	Done        Outcome = iota // every token exchanged or already in --out
	Failed                     // the run ended, and some tokens failed
	Interrupted                // Ctrl-C left tokens abandoned or not attempted
)

// Summary prints the counts and returns the outcome: Interrupted if Ctrl-C
// left any token abandoned or not attempted (a re-run resumes), else Failed
// if any line failed, else Done.
func (m *Run) Summary() Outcome {
	m.mu.Lock()
	defer m.mu.Unlock()
	var b strings.Builder
	fmt.Fprintf(&b, "oauth1 migrate: %d exchanged, %d failed", m.exchanged, m.failed)
	if m.skipped > 0 {
		fmt.Fprintf(&b, ", %d skipped (already in %s)", m.skipped, m.out)
	}
	if m.repeated > 0 {
		fmt.Fprintf(&b, ", %d repeated in the input (exchanged once)", m.repeated)
	}
	if m.abandoned > 0 {
		fmt.Fprintf(&b, ", %d abandoned in flight (the provider may have exchanged them)", m.abandoned)
	}
	if m.notAttempted > 0 {
		fmt.Fprintf(&b, ", %d not attempted (interrupted; run again to resume)", m.notAttempted)
	}
	fmt.Fprintf(&b, " in %s", time.Since(m.start).Round(time.Millisecond))
	if m.fails != nil && (m.failed > 0 || m.abandoned > 0) {
		fmt.Fprintf(&b, "; failures in %s (--only %[1]s re-runs them)", m.fails.Name())
	}
	b.WriteString("\n")
	fmt.Fprint(m.Stderr, b.String())
	switch {
	case m.notAttempted > 0 || m.abandoned > 0:
		return Interrupted
	case m.failed > 0:
		return Failed
	}
	return Done
}
