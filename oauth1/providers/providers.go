// Package providers holds the settings of the services that still run
// OAuth 1.0a: each function returns an [oauth1.Config] template with the
// provider's endpoints, signature method, delivery and realm rules, and
// without credentials, which the caller fills in:
//
//	cfg := providers.NetSuite("1234567_SB1")
//	cfg.ConsumerKey, cfg.ConsumerSecret = key, secret
//	client := cfg.Client(&oauth1.Credentials{Token: tokenID, Secret: tokenSecret})
//
// Each template is a fresh value; changing it changes nothing here.
//
// The tests sign each provider's published example where the provider
// publishes one; elsewhere they sign a request built by hand and check it
// against crypto/hmac:
//
//	Provider         Method       Delivery  Example the tests sign
//	X                HMAC-SHA1    header    published: "Creating a signature" (statuses/update)
//	NetSuite         HMAC-SHA256  header    published: TBA Step One base string (role signed); signature hand-verified
//	E*TRADE          HMAC-SHA1    header    none published with its secrets; hand-verified (realm="", no oauth_version)
//	Garmin           HMAC-SHA1    header    none published; hand-verified
//	Flickr           HMAC-SHA1    header    none reproducible (its example omits the secret); hand-verified
//	Tumblr           HMAC-SHA1    header    none published; hand-verified
//	Trello           HMAC-SHA1    header    none published; hand-verified
//	Discogs          PLAINTEXT    header    published form: the signature is "secret&token secret"
//	Jira, Atlassian  RSA-SHA1     header    none published; testdata/vectors/jira-rsa-sha1.txt (OpenSSL)
//	Magento          HMAC-SHA256  header    none published; hand-verified
//	WooCommerce      HMAC-SHA256  query     none published; hand-verified, legacy v1/v2 key too
//	LTI 1.1          HMAC-SHA1    header    none published; hand-verified (oauth_body_hash)
//	Schoology        HMAC-SHA1    header    none published; hand-verified (oauth_token="")
package providers

import (
	"crypto"
	"net/http"
	"strings"

	"github.com/countersign/countersign/oauth1"
)

// X returns the settings of the X API (formerly Twitter): HMAC-SHA1, the
// Authorization header, and the three-legged flow on api.x.com. Its
// AuthorizeURL asks the user every time; "Sign in with X" uses
// https://api.x.com/oauth/authenticate instead.
func X() oauth1.Config {
	return oauth1.Config{Endpoint: oauth1.Endpoint{
		RequestTokenURL: "https://api.x.com/oauth/request_token",
		AuthorizeURL:    "https://api.x.com/oauth/authorize",
		AccessTokenURL:  "https://api.x.com/oauth/access_token",
	}}
}

// NetSuite returns the settings of NetSuite token-based authentication
// (TBA) for the account accountID, such as "1234567" or "1234567_SB1" for
// its first sandbox: HMAC-SHA256, and the realm [NetSuiteRealm] makes of
// the account id. The flow's endpoints are the account's own. API calls
// go to https://ACCOUNT.suitetalk.api.netsuite.com (REST and SOAP web
// services) or https://ACCOUNT.restlets.api.netsuite.com (RESTlets), with
// ACCOUNT from [NetSuiteHost].
//
// NetSuite takes an optional role parameter on the request token step
// (Step One) only, in the Authorization header and signed, as its own
// example shows. Config.Params go on every request, so give role to a copy
// of the Config that makes that one request, and keep the Config of the
// access token step and the API calls without it:
//
//	step1 := cfg // a copy: role goes on the request token only
//	step1.Params = append(slices.Clip(cfg.Params), oauth1.Param{Name: "role", Value: roleID})
//	temp, err := step1.RequestToken(ctx)
//	...
//	tok, err := cfg.AccessToken(ctx, temp.Credentials, verifier)
func NetSuite(accountID string) oauth1.Config {
	host := NetSuiteHost(accountID)
	return oauth1.Config{
		Signer: oauth1.HMAC{Hash: crypto.SHA256},
		Realm:  NetSuiteRealm(accountID),
		Endpoint: oauth1.Endpoint{
			RequestTokenURL: "https://" + host + ".restlets.api.netsuite.com/rest/requesttoken",
			AuthorizeURL:    "https://" + host + ".app.netsuite.com/app/login/secure/authorizetoken.nl",
			AccessTokenURL:  "https://" + host + ".restlets.api.netsuite.com/rest/accesstoken",
		},
	}
}

// NetSuiteRealm returns the realm NetSuite expects for an account id: the
// id in uppercase with "_" for "-", such as "1234567_SB1" for the host
// 1234567-sb1.suitetalk.api.netsuite.com. A realm in the host's form
// ("1234567-sb1") is refused.
func NetSuiteRealm(accountID string) string {
	return strings.ToUpper(strings.ReplaceAll(accountID, "-", "_"))
}

// NetSuiteHost returns the first label of an account's host names: the id
// in lowercase with "-" for "_", such as "1234567-sb1" for "1234567_SB1".
func NetSuiteHost(accountID string) string {
	return strings.ToLower(strings.ReplaceAll(accountID, "_", "-"))
}

// ETrade returns the settings of the E*TRADE API: HMAC-SHA1, token requests
// sent with GET, the out-of-band callback its documentation requires, and
// realm="" and no oauth_version in the header, as its documentation's
// examples show. Its authorize page takes the consumer key and the request
// token as "key" and "token": the AuthorizeURL names them with placeholders,
// so that [oauth1.Config.AuthorizationURL] gives the URL E*TRADE wants. The
// sandbox's API host is apisb.etrade.com.
func ETrade() oauth1.Config {
	return oauth1.Config{
		SendEmptyRealm: true,
		OmitVersion:    true,
		Callback:       "oob",
		Endpoint: oauth1.Endpoint{
			RequestTokenURL: "https://api.etrade.com/oauth/request_token",
			AuthorizeURL:    "https://us.etrade.com/e/t/etws/authorize?key={oauth_consumer_key}&token={oauth_token}",
			AccessTokenURL:  "https://api.etrade.com/oauth/access_token",
			TokenMethod:     http.MethodGet,
		},
	}
}

// Garmin returns the settings of the Garmin Connect developer program
// (Health and Activity APIs): HMAC-SHA1 and the three-legged flow of
// connectapi.garmin.com.
func Garmin() oauth1.Config {
	return oauth1.Config{Endpoint: oauth1.Endpoint{
		RequestTokenURL: "https://connectapi.garmin.com/oauth-service/oauth/request_token",
		AuthorizeURL:    "https://connect.garmin.com/oauthConfirm",
		AccessTokenURL:  "https://connectapi.garmin.com/oauth-service/oauth/access_token",
	}}
}

// Flickr returns the settings of the Flickr API: HMAC-SHA1 and the flow of
// www.flickr.com/services/oauth. Its authorize page takes a perms
// parameter ("read", "write" or "delete").
func Flickr() oauth1.Config {
	return oauth1.Config{Endpoint: oauth1.Endpoint{
		RequestTokenURL: "https://www.flickr.com/services/oauth/request_token",
		AuthorizeURL:    "https://www.flickr.com/services/oauth/authorize",
		AccessTokenURL:  "https://www.flickr.com/services/oauth/access_token",
	}}
}

// Tumblr returns the settings of the Tumblr API's OAuth 1.0a: HMAC-SHA1
// and the flow of www.tumblr.com/oauth.
func Tumblr() oauth1.Config {
	return oauth1.Config{Endpoint: oauth1.Endpoint{
		RequestTokenURL: "https://www.tumblr.com/oauth/request_token",
		AuthorizeURL:    "https://www.tumblr.com/oauth/authorize",
		AccessTokenURL:  "https://www.tumblr.com/oauth/access_token",
	}}
}

// Trello returns the settings of the Trello API's OAuth 1.0a: HMAC-SHA1 and
// the flow of trello.com/1. Its authorize page takes name, scope and
// expiration parameters.
func Trello() oauth1.Config {
	return oauth1.Config{Endpoint: oauth1.Endpoint{
		RequestTokenURL: "https://trello.com/1/OAuthGetRequestToken",
		AuthorizeURL:    "https://trello.com/1/OAuthAuthorizeToken",
		AccessTokenURL:  "https://trello.com/1/OAuthGetAccessToken",
	}}
}

// Discogs returns the settings of the Discogs API: PLAINTEXT over https, as
// its documentation signs, and the flow of api.discogs.com. Discogs also
// wants a User-Agent header of the application's own on every request.
func Discogs() oauth1.Config {
	return oauth1.Config{
		Signer: oauth1.Plaintext{},
		Endpoint: oauth1.Endpoint{
			RequestTokenURL: "https://api.discogs.com/oauth/request_token",
			AuthorizeURL:    "https://www.discogs.com/oauth/authorize",
			AccessTokenURL:  "https://api.discogs.com/oauth/access_token",
		},
	}
}

// Jira returns the settings of Jira Server and Data Center application
// links (and of the other Atlassian server products, such as Confluence,
// that share them) at baseURL, such as "https://jira.example.com":
// RSA-SHA1 with no consumer secret. The Signer's Key is nil: set it to the
// private key whose public half is registered in the application link
// (until then signing fails with an error).
func Jira(baseURL string) oauth1.Config {
	base := strings.TrimSuffix(baseURL, "/") + "/plugins/servlet/oauth/"
	return oauth1.Config{
		Signer: oauth1.RSA{},
		Endpoint: oauth1.Endpoint{
			RequestTokenURL: base + "request-token",
			AuthorizeURL:    base + "authorize",
			AccessTokenURL:  base + "access-token",
		},
	}
}

// Magento returns the settings of a Magento 2 (Adobe Commerce) store's
// integrations at baseURL, such as "https://shop.example": HMAC-SHA256
// and the token endpoints of its OAuth handshake. The store posts the
// consumer key and secret and a verifier to the integration's callback when
// the merchant activates it; there is no user authorization page.
func Magento(baseURL string) oauth1.Config {
	base := strings.TrimSuffix(baseURL, "/")
	return oauth1.Config{
		Signer: oauth1.HMAC{Hash: crypto.SHA256},
		Endpoint: oauth1.Endpoint{
			RequestTokenURL: base + "/oauth/token/request",
			AccessTokenURL:  base + "/oauth/token/access",
		},
	}
}

// WooCommerce returns the settings of the WooCommerce REST API over plain
// HTTP (over HTTPS it takes Basic auth): two-legged HMAC-SHA256 with the
// parameters in the query string. The legacy REST API v1 and v2
// (/wc-api/v1, /wc-api/v2) key the HMAC with the consumer secret alone:
// for them set Signer to oauth1.HMAC{Hash: crypto.SHA256,
// ConsumerSecretOnly: true}.
func WooCommerce() oauth1.Config {
	return oauth1.Config{
		Signer:   oauth1.HMAC{Hash: crypto.SHA256},
		Delivery: oauth1.QueryString,
	}
}

// LTI returns the settings of a tool's calls to an LTI 1.1 platform, such as
// the Basic Outcomes service that takes a grade: two-legged HMAC-SHA1 with
// the oauth_body_hash (SHA-1) of the XML body, in the Authorization header.
//
// It is not the setting of a launch. A launch is a form POST that the
// platform signs and the browser carries, so its protocol parameters travel
// in the form body, which is signed and not hashed: a platform (or a test
// of a tool) signs one with this Config and Delivery set to
// oauth1.FormBody, and a tool verifies it with the oauth1/server package.
func LTI() oauth1.Config {
	return oauth1.Config{BodyHash: crypto.SHA1}
}

// Schoology returns the settings of the Schoology API's two-legged
// requests: HMAC-SHA1, realm "Schoology API", and oauth_token="" sent and
// signed when there is no token, as Schoology expects.
func Schoology() oauth1.Config {
	return oauth1.Config{Realm: "Schoology API", SendEmptyToken: true}
}
