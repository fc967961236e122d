package migrate

import (
	"errors"
	"fmt"
	"os"
	"strings"

	"github.com/countersign/countersign/cmd/oauth1/internal/sign"
	"github.com/countersign/countersign/oauth1"
	"github.com/countersign/countersign/oauth1/exchange"
)

// Settings are the flags of oauth1 migrate that describe the exchange, with
// the environment's defaults filled in.
type Settings struct {
	Provider                         string // x or signed
	ClientID, ClientSecret, TokenURL string
	Scope                            string // space-separated
	Rate                             string // N/DURATION; "" for the provider's
	Concurrency                      int
	// The signed shape.
	ConsumerKey, ConsumerSecret, Method, KeyFile, KeyPassword string
	Body, HTTPMethod, IDField, SecretField, ScopeField        string
	Fields                                                    []string // name=value
}

// Exchanger builds the exchange the settings describe, its rate, and the
// secrets a dry run redacts.
func (o *Settings) Exchanger() (Exchanger, *Limiter, []string, error) {
	switch o.Provider {
	case "x", "signed":
	case "":
		return nil, nil, nil, errors.New("no --provider (x or signed)")
	default:
		return nil, nil, nil, fmt.Errorf("unknown --provider %q (x or signed)", o.Provider)
	}
	if o.ClientID == "" {
		return nil, nil, nil, errors.New("no --client-id (the OAuth 2.0 client's; or $OAUTH2_CLIENT_ID)")
	}
	if o.Concurrency < 1 || o.Concurrency > 256 {
		return nil, nil, nil, fmt.Errorf("--concurrency %d: want 1 to 256", o.Concurrency)
	}
	var scopes []string
	if s := strings.Fields(o.Scope); len(s) > 0 {
		scopes = s
	}
	switch o.Provider {
	case "x":
		lim, err := ParseRate(o.Rate, "10000/15m")
		if err != nil {
			return nil, nil, nil, err
		}
		e := exchange.X(o.ClientID, o.ClientSecret)
		if o.TokenURL != "" {
			e.TokenURL = o.TokenURL
		}
		e.Scopes = scopes
		return e, lim, []string{o.ClientSecret}, nil
	case "signed":
		lim, err := ParseRate(o.Rate, "600/1m")
		if err != nil {
			return nil, nil, nil, err
		}
		if o.TokenURL == "" {
			return nil, nil, nil, errors.New("--provider signed needs --token-url, the migration endpoint")
		}
		if o.ConsumerKey == "" {
			return nil, nil, nil, errors.New("no --consumer-key (or $OAUTH1_CONSUMER_KEY)")
		}
		j := &sign.Job{SignatureMethod: o.Method, KeyPassword: o.KeyPassword}
		if o.KeyFile != "" {
			b, err := os.ReadFile(o.KeyFile)
			if err != nil {
				return nil, nil, nil, err
			}
			j.PrivateKeyPEM = string(b)
		}
		signer, err := j.Signer("")
		if err != nil {
			return nil, nil, nil, err
		}
		s := &exchange.Signed{
			Config:   &oauth1.Config{ConsumerKey: o.ConsumerKey, ConsumerSecret: o.ConsumerSecret, Signer: signer},
			URL:      o.TokenURL,
			Method:   o.HTTPMethod,
			ClientID: o.ClientID, ClientSecret: o.ClientSecret, Scopes: scopes,
			Names: exchange.Names{ClientID: o.IDField, ClientSecret: o.SecretField, Scope: o.ScopeField},
		}
		switch o.Body {
		case "json":
		case "form":
			s.Body = exchange.Form
		default:
			return nil, nil, nil, fmt.Errorf("--body %q: want json or form", o.Body)
		}
		for _, f := range o.Fields {
			k, v, ok := strings.Cut(f, "=")
			if !ok || k == "" {
				return nil, nil, nil, fmt.Errorf("--field %q: want name=value", f)
			}
			if s.Extra == nil {
				s.Extra = map[string]string{}
			}
			s.Extra[k] = v
		}
		return s, lim, []string{o.ClientSecret, o.ConsumerSecret}, nil
	}
	return nil, nil, nil, fmt.Errorf("unknown --provider %q (x or signed)", o.Provider)
}
