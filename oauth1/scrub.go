package oauth1

import "github.com/countersign/countersign/oauth1/internal/echo"

// scrubEcho returns text with every oauth_signature and oauth_token_secret
// value, and every occurrence of each non-empty secret in any encoding a
// provider may echo it in, replaced with REDACTED; see [echo.Scrub].
func scrubEcho(text []byte, secrets ...string) []byte { return echo.Scrub(text, secrets...) }

// scrubCut redacts the end of a text cut short by a read limit where the
// parameter it cuts could be the start of a secret; see [echo.ScrubCut].
func scrubCut(text []byte, secrets ...string) []byte { return echo.ScrubCut(text, secrets...) }
