package server

import (
	"context"
	"crypto/rand"
	"encoding/binary"
	"errors"
	"fmt"
	"strconv"
	"strings"

	"github.com/countersign/countersign/oauth1"
	"github.com/countersign/countersign/oauth1/internal/wire"
)

// The calls of the provider's own pages and operators: the consent page's
// (RFC 5849 §2.2) and revocation.

// maxTokenLen bounds the tokens the consent page and an operator pass on
// to the stores: a Provider issues tokens of 26 characters.
const maxTokenLen = 256

// checkToken refuses, as unknown, a token no Provider issues: longer than
// maxTokenLen, with a control character or not UTF-8 (the Verifier's rule
// for the keys and tokens it looks up), so that a store over SQL never
// gets one. The error does not quote it.
func checkToken(token string) error {
	if len(token) > maxTokenLen || !lookupable(token) {
		return fmt.Errorf("%w: a token longer than %d bytes, with a control character or not UTF-8", ErrNotFound, maxTokenLen)
	}
	return nil
}

// Pending returns the temporary credentials token, issued and awaiting the
// resource owner's approval (§2.2), on the Provider's clock: what the
// consent page shows before the owner approves or denies, the client
// asking (ConsumerKey, to look up in Consumers) and where the owner goes
// next (Callback). Their Secret is empty: it is the client's, and no page
// may show it. Unknown or expired temporary credentials are an error
// wrapping [ErrNotFound]; those already approved, denied or exchanged,
// [ErrTokenUsed], and the page should not offer to approve them. A token
// no Provider issues, longer than 256 bytes, with a control character or
// not UTF-8, is refused as unknown by Pending, Authorize, Deny and Revoke
// before Temporary or Tokens is asked: the consent page may pass on what
// the query held.
func (p *Provider) Pending(ctx context.Context, token string) (TemporaryCredentials, error) {
	if err := checkToken(token); err != nil {
		return TemporaryCredentials{}, err
	}
	if p.Temporary == nil {
		return TemporaryCredentials{}, errNoTemporary
	}
	t, err := p.Temporary.Temporary(ctx, token, p.now())
	if err != nil {
		return TemporaryCredentials{}, err
	}
	if t.VerificationCode != "" {
		return TemporaryCredentials{}, fmt.Errorf("%w: temporary token %q is already authorized", ErrTokenUsed, token)
	}
	t.Secret = ""
	return t, nil
}

// An Approval is the resource owner's consent to a client's request for
// access (RFC 5849 §2.2), which the provider's consent page passes to
// [Provider.Authorize]. Token and User are required.
type Approval struct {
	// Token is the temporary credentials' oauth_token, as the
	// authorization request carried it.
	Token string

	// User is the resource owner who approved: the signed-in user of the
	// consent page, whom the token credentials will act for.
	User string

	// Scope is what the owner approved; empty means what the client asked
	// for, the Scope [Provider.Pending] returned. The consent page sets it
	// when the owner approves less than that.
	Scope string
}

// Authorize records that a.User approved the temporary credentials
// a.Token (§2.2), for a.Scope, once, and makes their verification code.
// The provider's consent page calls it when the resource owner approves,
// and sends them to redirect: the callback URL with oauth_token and
// oauth_verifier added to its query. When the callback is "oob", redirect
// is empty and the page shows the code, then eight digits, for the user
// to type into the client.
//
// The consent page finds who is asking with [Provider.Pending], and must
// make sure that the approval comes from the signed-in user: a form
// protected against cross-site request forgery, never a plain link, or any
// site could approve in their name. An unknown or expired token is an
// error wrapping [ErrNotFound]; one already approved or exchanged,
// [ErrTokenUsed]. An Approval without User, or with a Scope longer than
// 1024 bytes, with a control character or not UTF-8, is an error, and
// records nothing.
func (p *Provider) Authorize(ctx context.Context, a Approval) (redirect, code string, err error) {
	if err := checkToken(a.Token); err != nil {
		return "", "", err
	}
	if a.User == "" {
		return "", "", errors.New("oauth1: Provider.Authorize: the Approval names no User")
	}
	if len(a.Scope) > maxScopeLen || !lookupable(a.Scope) {
		return "", "", fmt.Errorf("oauth1: Provider.Authorize: a Scope longer than %d bytes, with a control character or not UTF-8", maxScopeLen)
	}
	if p.Temporary == nil {
		return "", "", errNoTemporary
	}
	now := p.now()
	t, err := p.Temporary.Temporary(ctx, a.Token, now)
	if err != nil {
		return "", "", err
	}
	if t.Callback == "oob" {
		code = pin()
	} else {
		code = rand.Text()
	}
	scope := t.Scope
	if a.Scope != "" {
		scope = a.Scope
	}
	if err := p.Temporary.Authorize(ctx, TemporaryCredentials{Token: a.Token, User: a.User, VerificationCode: code, Scope: scope}, now); err != nil {
		return "", "", err
	}
	if t.Callback == "oob" {
		return "", code, nil
	}
	return appendQuery(t.Callback, oauth1.Param{Name: "oauth_token", Value: a.Token}, oauth1.Param{Name: "oauth_verifier", Value: code}), code, nil
}

// Deny records that the resource owner refused the temporary credentials
// token: they are used up. The consent page sends the owner to redirect,
// the callback URL with oauth_token and oauth_problem=permission_denied
// added, which [oauth1.ParseCallback] reports as [oauth1.ErrDenied]; for
// "oob", redirect is empty. Errors are those of Authorize: temporary
// credentials already approved are refused with [ErrTokenUsed] and stay
// the client's, so that whoever reaches the consent page's deny action
// with the token cannot cancel a flow the owner approved.
func (p *Provider) Deny(ctx context.Context, token string) (redirect string, err error) {
	if err := checkToken(token); err != nil {
		return "", err
	}
	if p.Temporary == nil {
		return "", errNoTemporary
	}
	// Approving with a code nobody holds takes the one approval the store
	// allows, atomically, in every TemporaryStore: it fails with ErrTokenUsed
	// on credentials already approved, and no exchange can succeed after it.
	now := p.now()
	if err := p.Temporary.Authorize(ctx, TemporaryCredentials{Token: token, VerificationCode: rand.Text()}, now); err != nil {
		return "", err
	}
	t, err := p.Temporary.TakeTemporary(ctx, token, now)
	if err != nil {
		return "", err
	}
	if t.Callback == "oob" {
		return "", nil
	}
	return appendQuery(t.Callback, oauth1.Param{Name: "oauth_token", Value: token}, oauth1.Param{Name: "oauth_problem", Value: string(oauth1.ProblemPermissionDenied)}), nil
}

// Revoke revokes the token credentials token, at once: a request signed
// with them is refused with token_revoked from the moment Revoke returns,
// by every instance that shares the Provider's Tokens. An operator calls it
// for a token that leaked; an unknown or already revoked token is an error
// wrapping [ErrNotFound].
func (p *Provider) Revoke(ctx context.Context, token string) error {
	if err := checkToken(token); err != nil {
		return err
	}
	if p.Tokens == nil {
		return errNoTokens
	}
	return p.Tokens.Revoke(ctx, token, p.now())
}

// RevokeGrant revokes every token credential issued to the client
// consumerKey on behalf of user, and the temporary credentials user
// approved for it that are not yet exchanged, and returns how many
// credentials it revoked: what a resource owner does who withdraws an
// approval ("disconnect this app"), or an operator for a client that must
// lose a user's access. It takes effect at once, as Revoke does, for the
// credentials issued and approved before it was called: an exchange of
// temporary credentials approved earlier is refused with token_revoked.
// When no credentials matched (no such grant, or one revoked already), it
// returns 0 and an error wrapping [ErrNotFound], as Revoke does for an
// unknown token.
func (p *Provider) RevokeGrant(ctx context.Context, consumerKey, user string) (int, error) {
	if p.Temporary == nil {
		return 0, errNoTemporary
	}
	if p.Tokens == nil {
		return 0, errNoTokens
	}
	now := p.now()
	// Temporary credentials first: an exchange stores its token before it
	// takes them, so one that took them before has stored its token
	// before Tokens.RevokeGrant runs. A store that found nothing may say
	// so with ErrNotFound, or with 0 alone.
	temp, err := p.Temporary.RevokeGrant(ctx, consumerKey, user, now)
	if err != nil && !errors.Is(err, ErrNotFound) {
		return 0, fmt.Errorf("oauth1: revoking approved temporary credentials: %w", err)
	}
	n, err := p.Tokens.RevokeGrant(ctx, consumerKey, user, now)
	if err != nil && !errors.Is(err, ErrNotFound) {
		return temp + n, fmt.Errorf("oauth1: revoking token credentials: %w", err)
	}
	if temp+n == 0 {
		return 0, fmt.Errorf("%w: no credentials of client %q for user %q", ErrNotFound, consumerKey, user)
	}
	return temp + n, nil
}

// pin returns eight random decimal digits. The modulo bias, below 10^-11,
// does not matter.
func pin() string {
	var b [8]byte
	rand.Read(b[:]) // never fails since Go 1.24: it crashes the program instead
	n := binary.LittleEndian.Uint64(b[:]) % 1e8
	s := strconv.FormatUint(n, 10)
	return strings.Repeat("0", 8-len(s)) + s
}

// appendQuery adds ps to the query of rawURL, before any fragment.
func appendQuery(rawURL string, ps ...oauth1.Param) string {
	u, frag, hasFrag := strings.Cut(rawURL, "#")
	b := []byte(u)
	switch {
	case !strings.Contains(u, "?"):
		b = append(b, '?')
	case !strings.HasSuffix(u, "?") && !strings.HasSuffix(u, "&"):
		b = append(b, '&')
	}
	for i, p := range ps {
		if i > 0 {
			b = append(b, '&')
		}
		b = wire.AppendPair(b, p.Name, p.Value)
	}
	if hasFrag {
		b = append(b, '#')
		b = append(b, frag...)
	}
	return string(b)
}
