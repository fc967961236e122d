package tokenexchange

import (
	"bytes"
	"context"
	"errors"
	"io"
	"net/http"
	"sync"
	"sync/atomic"
	"time"

	"golang.org/x/oauth2"

	"github.com/countersign/countersign/oauth1/server"
)

// A Grant is what a 1.0a token credential proves, handed to the [Issuer]:
// the client it was issued to, the resource owner who approved it, and
// the scope asked for, never wider than the one approved. A [Store]
// records its ConsumerKey, User and Token, to revoke the token when due.
type Grant struct {
	ConsumerKey string // the 1.0a client (oauth_consumer_key)
	ClientID    string // the OAuth 2.0 client that authenticated, if one did
	User        string // the resource owner, as the TokenStore's record says
	Scope       string // the scope asked for, or the grant's (space-delimited, RFC 6749 §3.3)
	Token       string // the 1.0a token exchanged; never its secret

	// Repeat is set, for Observe only, on an answer repeated from an
	// earlier exchange of the grant within the Handler's RepeatWindow: count
	// exchanges where it is false.
	Repeat bool
}

// An Issuer is the provider's own OAuth 2.0 authorization server, which
// mints the token for a grant: AccessToken, and optionally TokenType
// ("Bearer" when empty), RefreshToken, an expiry (ExpiresIn or Expiry)
// and, as the "scope" of its Extra, a scope other than the Grant's. It is
// called once per grant, with a context that ends before the claim of the
// exchange expires (30 s). An [*Error] it returns is sent to the client
// (invalid_scope, say); any other error is answered server_error.
type Issuer interface {
	Issue(ctx context.Context, g Grant) (*oauth2.Token, error)
}

// IssuerFunc is a function that is an [Issuer].
type IssuerFunc func(ctx context.Context, g Grant) (*oauth2.Token, error)

// Issue returns f(ctx, g).
func (f IssuerFunc) Issue(ctx context.Context, g Grant) (*oauth2.Token, error) { return f(ctx, g) }

// A Client is an OAuth 2.0 client registration, and the 1.0a client it
// succeeds: the provider's mapping between the two.
type Client struct {
	ID          string
	Secret      string `json:"-"` // empty for a public client (RFC 6749 §2.1)
	ConsumerKey string // the 1.0a consumer key whose grants it may exchange
}

// A ClientStore finds OAuth 2.0 clients by client_id, for client
// authentication (RFC 6749 §2.3.1): an unknown id is an error wrapping
// [server.ErrNotFound], a store that cannot be reached one wrapping
// [server.ErrStoreUnavailable]. It must be safe for concurrent use.
type ClientStore interface {
	Client(ctx context.Context, clientID string) (Client, error)
}

// Defaults and bounds of a Handler.
const (
	defaultWindow = time.Minute
	lease         = 30 * time.Second // a claim's life: an Issuer's time
	maxWait       = 10 * time.Second // waiting for a concurrent exchange
	maxBody       = 64 << 10         // bytes of a request body
	issuedType    = "urn:ietf:params:oauth:token-type:access_token"
	accessType    = "urn:ietf:params:oauth:token-type:access_token"
	realmFallback = `Basic realm="token"`
)

// GrantType is the grant_type of a token exchange (RFC 8693 §2.1), and
// OAuth1TokenType the subject_token_type of a 1.0a token in X's shape.
const (
	GrantType       = "urn:ietf:params:oauth:grant-type:token-exchange"
	OAuth1TokenType = "urn:x:params:oauth:token-type:oauth1_token"
)

// Handler is the token-exchange endpoint (RFC 8693 §2) of a provider
// retiring OAuth 1.0a: see the package documentation. Tokens and Issuer
// are required, Consumers for signed requests and Clients for requests
// that carry the token secret. It is safe for concurrent use, and must not
// be copied after first use.
type Handler struct {
	// Consumers finds the 1.0a clients, to verify signed requests; nil
	// refuses them.
	Consumers server.ConsumerStore

	// Tokens holds the 1.0a token credentials: the grants to exchange.
	// Each token exchanged is revoked with it (Revoke) once Grace, or
	// RepeatWindow if longer, has passed (see RevokeDue).
	Tokens server.TokenStore

	// Settings verify signed requests, as a [server.Verifier]'s, and Now
	// is the Handler's clock. Instances that share a Store must share
	// Settings.Nonces too (such as redisstore's NonceStore): a signed
	// exchange replayed to another instance would get the answer kept for
	// repeats. A Handler whose Store is not a *MemoryStore refuses signed
	// exchanges with server_error while Nonces is nil or a
	// *server.MemoryNonceStore.
	Settings server.Settings

	// Clients authenticates OAuth 2.0 clients (RFC 6749 §2.3); nil
	// refuses exchanges that carry the token secret (X's shape).
	Clients ClientStore

	// Issuer mints the OAuth 2.0 token of each grant.
	Issuer Issuer

	// Store records the grants exchanged and the 1.0a tokens to revoke;
	// nil means a MemoryStore of the Handler's own, for a single process.
	// Several instances share one, such as redisstore's ExchangeStore,
	// and then share Settings.Nonces too.
	Store Store

	// RepeatWindow is how long a repeated exchange of a grant is answered
	// with the same token (an idempotent retry); later ones are refused
	// with invalid_grant. Zero means one minute.
	RepeatWindow time.Duration

	// Grace is how long the 1.0a token keeps working after its exchange,
	// for the client to switch over; it is revoked then, or when
	// RepeatWindow ends if that is later. Zero means at the end of
	// RepeatWindow.
	Grace time.Duration

	// Observe, if set, is called once for every request, when its answer
	// is known: g is the grant (as far as it was found), err why the
	// exchange was refused, nil if it was not. Errors are answered with a
	// fixed sentence and no detail: log them here. It is also called, with
	// a nil r, when a revocation due after an exchange fails (g names
	// the token), or the Store cannot list them (g is zero). A provider
	// counts exchanges here, with sunset.Usage.RecordExchange, when err
	// is nil and g.Repeat is false.
	Observe func(r *http.Request, g Grant, err error)

	once   sync.Once
	memory *MemoryStore
	swept  atomic.Int64 // when revocations due were last looked for (Unix ns, Handler's clock)
}

func (h *Handler) now() time.Time {
	if h.Settings.Now != nil {
		return h.Settings.Now()
	}
	return time.Now()
}

func (h *Handler) store() Store {
	if h.Store != nil {
		return h.Store
	}
	h.once.Do(func() { h.memory = new(MemoryStore) })
	return h.memory
}

func (h *Handler) window() time.Duration {
	if h.RepeatWindow > 0 {
		return h.RepeatWindow
	}
	return defaultWindow
}

// revokeAfter is how long after its exchange a 1.0a token is revoked.
func (h *Handler) revokeAfter() time.Duration { return max(h.Grace, h.window()) }

func (h *Handler) observe(r *http.Request, g Grant, err error) {
	if h.Observe != nil {
		h.Observe(r, g, err)
	}
}

// ServeHTTP answers a token exchange request.
func (h *Handler) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if h.Tokens != nil {
		h.sweep(r.Context())
	}
	a, g, scheme, err := h.serve(r)
	h.observe(r, g, err)
	if err != nil {
		if r.Method != http.MethodPost {
			w.Header().Set("Allow", http.MethodPost)
		}
		writeError(w, err, scheme)
		return
	}
	writeJSON(w, http.StatusOK, a.render(h.now()))
}

// serve checks r and exchanges its grant: the answer, the grant, and for
// a refusal of client authentication, the challenge to send.
func (h *Handler) serve(r *http.Request) (*answer, Grant, string, error) {
	if h.Tokens == nil || h.Issuer == nil {
		return nil, Grant{}, "", refuseCause(codeServerError, "", errors.New("tokenexchange: Handler.Tokens or Handler.Issuer is nil"))
	}
	if r.Method != http.MethodPost {
		// RFC 6749 §3.2: the client MUST use POST.
		return nil, Grant{}, "", refuseMethod()
	}
	body, err := io.ReadAll(http.MaxBytesReader(nil, r.Body, maxBody))
	if err != nil {
		return nil, Grant{}, "", refuseCause(codeInvalidRequest, "the request body is unreadable or over 64 KiB", err)
	}
	r.Body = io.NopCloser(bytes.NewReader(body))
	if signed(r, body) {
		if err := h.checkNonces(); err != nil {
			return nil, Grant{}, "", err
		}
		return h.serveSigned(r)
	}
	return h.serveSecret(r)
}

// errLocalNonces is the refusal of a signed exchange by a Handler whose
// Store is shared and whose nonce store is not: a replay of the exchange
// to another instance would pass its nonce check and get the answer kept
// for repeats, a live OAuth 2.0 token.
var errLocalNonces = errors.New("tokenexchange: the Handler's Store is shared (not a *MemoryStore) but Settings.Nonces is per-process (nil or a *server.MemoryNonceStore): a signed exchange replayed to another instance would get its token; set Settings.Nonces to a nonce store shared as the Store is")

// checkNonces refuses a signed exchange when the Store is shared and the
// nonce store is not.
func (h *Handler) checkNonces() error {
	if h.Store == nil || h.Consumers == nil {
		return nil
	}
	if _, local := h.Store.(*MemoryStore); local {
		return nil
	}
	switch h.Settings.Nonces.(type) {
	case nil, *server.MemoryNonceStore:
		return refuseCause(codeServerError, "the server is misconfigured: its exchange store is shared but its nonce store is not", errLocalNonces)
	}
	return nil
}

// wait is the pause before asking the store again about a grant another
// exchange holds: 10 ms, doubling up to 200 ms.
func wait(ctx context.Context, n int) error {
	d := min(10*time.Millisecond<<min(n, 5), 200*time.Millisecond)
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-ctx.Done():
		return ctx.Err()
	case <-t.C:
		return nil
	}
}

// storeRefusal is the answer to err from a store.
func storeRefusal(err error) *Error {
	if errors.Is(err, server.ErrStoreUnavailable) || errors.Is(err, server.ErrStoreFull) {
		return refuseCause(codeUnavailable, "try again shortly", err)
	}
	return refuseCause(codeServerError, "", err)
}
