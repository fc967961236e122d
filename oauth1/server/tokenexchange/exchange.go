package tokenexchange

import (
	"context"
	"crypto/aes"
	"crypto/cipher"
	"crypto/hkdf"
	"crypto/rand"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"time"

	"github.com/countersign/countersign/oauth1/server"
)

// answer is the token of an exchange, as stored (sealed) for repeats.
type answer struct {
	AccessToken  string `json:"a"`
	TokenType    string `json:"t"`
	RefreshToken string `json:"r,omitempty"`
	Expiry       int64  `json:"e,omitempty"` // Unix seconds; 0 for none
	Scope        string `json:"s,omitempty"`
}

// render is the RFC 8693 §2.2.1 response of a, at now.
func (a *answer) render(now time.Time) []byte {
	type wire struct {
		AccessToken     string `json:"access_token"`
		IssuedTokenType string `json:"issued_token_type"`
		TokenType       string `json:"token_type"`
		ExpiresIn       int64  `json:"expires_in,omitempty"`
		Scope           string `json:"scope,omitempty"`
		RefreshToken    string `json:"refresh_token,omitempty"`
	}
	out := wire{AccessToken: a.AccessToken, IssuedTokenType: issuedType, TokenType: a.TokenType, Scope: a.Scope, RefreshToken: a.RefreshToken}
	if a.Expiry != 0 {
		out.ExpiresIn = max(a.Expiry-now.Unix(), 1)
	}
	b, _ := json.Marshal(out)
	return b
}

// sealer is the AEAD that seals the answer of one grant: AES-256-GCM,
// keyed by HKDF-SHA256 of the 1.0a token secret, so that the store holds
// nothing usable without it. The token and consumer key are its
// additional data.
type sealer struct {
	aead cipher.AEAD
	ad   []byte
}

func newSealer(secret, token, consumerKey string) (*sealer, error) {
	key, err := hkdf.Key(sha256.New, []byte(secret), nil, "countersign tokenexchange v1 answer", 32)
	if err != nil {
		return nil, err
	}
	block, err := aes.NewCipher(key)
	if err != nil {
		return nil, err
	}
	aead, err := cipher.NewGCM(block)
	if err != nil {
		return nil, err
	}
	ad := fmt.Appendf(nil, "%d:%s%s", len(token), token, consumerKey)
	return &sealer{aead, ad}, nil
}

func (s *sealer) seal(a *answer) []byte {
	plain, _ := json.Marshal(a)
	nonce := make([]byte, s.aead.NonceSize(), s.aead.NonceSize()+len(plain)+s.aead.Overhead())
	rand.Read(nonce)
	out := s.aead.Seal(nonce, nonce, plain, s.ad)
	clear(plain)
	return out
}

func (s *sealer) open(sealed []byte) (*answer, error) {
	n := s.aead.NonceSize()
	if len(sealed) < n {
		return nil, errors.New("tokenexchange: a stored answer too short")
	}
	plain, err := s.aead.Open(nil, sealed[:n], sealed[n:], s.ad)
	if err != nil {
		return nil, errors.New("tokenexchange: a stored answer does not open with this grant's secret")
	}
	var a answer
	err = json.Unmarshal(plain, &a)
	clear(plain)
	return &a, err
}

// exchange exchanges g, proven with the 1.0a token secret, once: it
// claims the grant in the store, has the Issuer mint its token, and
// records the sealed answer; a repeat within the window gets that answer.
func (h *Handler) exchange(ctx context.Context, g *Grant, secret string) (*answer, error) {
	s, err := newSealer(secret, g.Token, g.ConsumerKey)
	if err != nil {
		return nil, refuseCause(codeServerError, "", err)
	}
	st := h.store()
	owner := rand.Text()
	for n := 0; ; n++ {
		now := h.now()
		c, err := st.Claim(ctx, g.Token, owner, lease, now)
		if err != nil {
			return nil, storeRefusal(err)
		}
		switch c.State {
		case Claimed:
			if err := h.stillLive(ctx, g.Token); err != nil {
				if rerr := st.Release(context.WithoutCancel(ctx), g.Token, owner, h.now()); rerr != nil {
					err = errors.Join(err, rerr)
				}
				return nil, err
			}
			return h.issue(ctx, st, s, g, owner)
		case Answered:
			a, err := s.open(c.Answer)
			if err != nil {
				return nil, refuseSubject("the grant was exchanged already", err)
			}
			g.Repeat = true
			return a, nil
		case Spent:
			var rerr error
			if !now.Before(c.Exchanged.Add(h.revokeAfter())) {
				rerr = h.revoke(ctx, st, *g) // due, and not yet revoked by any instance
			}
			return nil, refuseSubject("the grant was exchanged already", rerr)
		case Busy:
			if n*200 > int(maxWait/time.Millisecond) { // about maxWait
				return nil, refuse(codeUnavailable, "the grant is being exchanged; try again shortly")
			}
			if err := wait(ctx, n); err != nil {
				return nil, refuseCause(codeUnavailable, "try again shortly", err)
			}
		default:
			return nil, refuseCause(codeServerError, "", fmt.Errorf("tokenexchange: the store answered state %d", c.State))
		}
	}
}

// stillLive refuses the grant of token if the token was revoked after it
// was looked up: the record of an exchange is dropped once its token is
// revoked (Store.Revoked), so a request that looked the token up before
// that could otherwise claim it again.
func (h *Handler) stillLive(ctx context.Context, token string) error {
	_, err := h.Tokens.Token(ctx, token, h.now())
	switch {
	case errors.Is(err, server.ErrNotFound) || errors.Is(err, server.ErrTokenRevoked):
		return refuseSubject("the grant was exchanged already", err)
	case err != nil:
		return storeRefusal(err)
	}
	return nil
}

// issue mints the token of g, claimed by owner, and records it.
func (h *Handler) issue(ctx context.Context, st Store, s *sealer, g *Grant, owner string) (*answer, error) {
	ictx, cancel := context.WithTimeout(ctx, lease-5*time.Second)
	tok, err := h.Issuer.Issue(ictx, *g)
	cancel()
	if err == nil && (tok == nil || tok.AccessToken == "") {
		err = errors.New("tokenexchange: the Issuer returned no access token")
	}
	if err != nil {
		// The grant is not spent: a retry can claim it again.
		if rerr := st.Release(context.WithoutCancel(ctx), g.Token, owner, h.now()); rerr != nil {
			err = errors.Join(err, rerr)
		}
		var e *Error
		if errors.As(err, &e) {
			return nil, &Error{Code: e.Code, Description: e.Description, cause: err}
		}
		return nil, refuseCause(codeServerError, "", err)
	}
	now := h.now()
	a := &answer{AccessToken: tok.AccessToken, TokenType: tok.Type(), RefreshToken: tok.RefreshToken, Scope: g.Scope}
	switch {
	case tok.ExpiresIn > 0:
		a.Expiry = now.Unix() + tok.ExpiresIn
	case !tok.Expiry.IsZero():
		a.Expiry = tok.Expiry.Unix()
	}
	if sc, ok := tok.Extra("scope").(string); ok && sc != "" {
		a.Scope = sc
	}
	// The store holds the revocation due, so that any instance makes it
	// (RevokeDue), on the Handler's clock, whichever instance stops.
	if err := st.Complete(context.WithoutCancel(ctx), *g, owner, s.seal(a), h.window(), now.Add(h.revokeAfter()), now); err != nil {
		// The token minted is not handed out: without the record, a
		// second one could be.
		return nil, storeRefusal(err)
	}
	return a, nil
}

// tokenID names a token in a log line without repeating it: a hostile
// token could hold anything.
func tokenID(token string) string {
	sum := sha256.Sum256([]byte(token))
	return "sha256:" + hex.EncodeToString(sum[:6])
}
