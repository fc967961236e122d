// Command oauth1 signs HTTP requests with OAuth 1.0a (RFC 5849) exactly as
// package [github.com/countersign/countersign/oauth1] does, and helps find
// out why a provider answers "invalid signature".
//
// Install it with
//
//	go install github.com/countersign/countersign/cmd/oauth1@latest
//
// Usage:
//
//	oauth1 sign [flags] URL        print the Authorization header (--explain, --curl)
//	oauth1 sign --json             batch mode: one JSON request per stdin line
//	oauth1 explain BASE_STRING     break a signature base string into its parts
//	oauth1 diff WANT GOT           compare two base strings and explain each difference
//	oauth1 verify [flags] [FILE]   check the signature of a raw HTTP request
//	oauth1 verify --json [FILE]    the same report as one JSON object (its fields: README)
//	oauth1 response [FILE]         read a provider's raw response (curl -i): its problem report and the Deprecation and Sunset it announces
//	oauth1 lti1p1 sign|verify      sign or check an LTI 1.3 id_token's LTI 1.1 migration claim
//	oauth1 migrate [flags] [FILE]  exchange stored OAuth 1.0a tokens (JSON lines) for OAuth 2.0 tokens
//	oauth1 store migrate --db DSN  apply sqlstore's schema migrations (--dry-run: print the SQL); runs oauth1-store
//	oauth1 version                 print the module version (also --version)
//	oauth1 help COMMAND            print the usage and flags of a command (as COMMAND -h)
//	oauth1 help providers          list the providers of sign --provider
//
// sign --provider NAME starts from the settings of a service in package
// [github.com/countersign/countersign/oauth1/providers] (NetSuite, which
// takes --account-id, WooCommerce, E*TRADE, Schoology, ...); the other
// flags override them. The providers' quirks have flags of their own:
// --consumer-secret-only (WooCommerce's legacy REST API v1 and v2),
// --send-empty-token (Schoology) and --send-empty-realm (E*TRADE).
//
// Each "method" flag means one thing: -X (or --request) is the HTTP method,
// --signature-method the signature method (HMAC-SHA1 by default); in batch
// mode the fields are http_method and signature_method. The URL must be
// http or https.
//
// Credentials come from flags or, so that secrets stay out of shell
// history, from the environment variables OAUTH1_CONSUMER_KEY,
// OAUTH1_CONSUMER_SECRET, OAUTH1_TOKEN, OAUTH1_TOKEN_SECRET and
// OAUTH1_KEY_PASSWORD. Secrets never appear in the output unless
// --show-secrets is given.
//
// A usage error (a missing URL, an unknown flag, an extra argument) is
// reported in one line that points to the command's -h.
//
// Exit status: 0 on success, 1 when a signature is invalid, base strings
// differ or a batch line failed, 2 on usage and input errors. migrate exits
// 1 when its run ended with some tokens failed (--failures writes them as
// JSON lines, --only re-runs just those), and 130 when Ctrl-C left tokens
// undone; Ctrl-C waits for the exchanges in flight, so with --out no token
// is exchanged twice, but a process killed outright (kill -9) cannot, and
// its re-run sends those requests again.
//
// The manual, README.md in this directory, lists the flags of sign and the
// JSON fields of batch mode (sign --json), and shows explain, diff and
// verify taking apart an invalid signature of the X API's published example
// request. Its console blocks are run by the tests, so the output it shows
// is the output the command gives.
package main
