package sign

import (
	"cmp"
	"errors"
	"fmt"
	"io"
	"net/url"
	"strings"
	"text/tabwriter"

	"github.com/countersign/countersign/oauth1"
	"github.com/countersign/countersign/oauth1/providers"
)

// This file gives "oauth1 sign --provider NAME" the settings of package
// oauth1/providers: its presets are the library's, never a copy.

// A preset is one provider of package oauth1/providers, by the name that
// --provider takes.
type preset struct {
	name, title string
	input       string // "", "account_id" or "base_url": the preset's argument
	config      func(arg string) oauth1.Config
	note        string // what sign does not take from the preset, or must be added
	sandbox     string // the host of the provider's sandbox, which serves the flow's paths too
}

var presets = []preset{
	{name: "x", title: "X (Twitter)", config: func(string) oauth1.Config { return providers.X() }},
	{name: "netsuite", title: "NetSuite", input: "account_id", config: providers.NetSuite,
		note: "--header-param role=ID on the request token only"},
	{name: "etrade", title: "E*TRADE", config: func(string) oauth1.Config { return providers.ETrade() },
		note: "realm=\"\" sent; oauth_callback=oob on the request token", sandbox: "apisb.etrade.com"},
	{name: "garmin", title: "Garmin", config: func(string) oauth1.Config { return providers.Garmin() }},
	{name: "flickr", title: "Flickr", config: func(string) oauth1.Config { return providers.Flickr() }},
	{name: "tumblr", title: "Tumblr", config: func(string) oauth1.Config { return providers.Tumblr() }},
	{name: "trello", title: "Trello", config: func(string) oauth1.Config { return providers.Trello() }},
	{name: "discogs", title: "Discogs", config: func(string) oauth1.Config { return providers.Discogs() },
		note: "https only"},
	{name: "jira", title: "Jira (Atlassian servers)", input: "base_url", config: providers.Jira,
		note: "needs --key-file"},
	{name: "magento", title: "Magento", input: "base_url", config: providers.Magento},
	{name: "woocommerce", title: "WooCommerce", config: func(string) oauth1.Config { return providers.WooCommerce() },
		note: "legacy /wc-api/v1 and v2: add --consumer-secret-only"},
	{name: "lti", title: "LTI 1.1", config: func(string) oauth1.Config { return providers.LTI() },
		note: "Outcomes calls (body hash); a launch: --body"},
	{name: "schoology", title: "Schoology", config: func(string) oauth1.Config { return providers.Schoology() },
		note: "oauth_token=\"\" without a token"},
}

// ProviderNames are the names --provider takes, in the order
// PrintProviders lists them.
func ProviderNames() []string {
	names := make([]string, len(presets))
	for i, p := range presets {
		names[i] = p.name
	}
	return names
}

func presetNames() string {
	names := make([]string, len(presets))
	for i, p := range presets {
		names[i] = p.name
	}
	return strings.Join(names, ", ")
}

func findPreset(name string) (*preset, error) {
	n := strings.ToLower(strings.ReplaceAll(name, "*", ""))
	for i := range presets {
		if presets[i].name == n {
			return &presets[i], nil
		}
	}
	return nil, fmt.Errorf("unknown provider %.40q (want %s; --provider list describes them)", name, presetNames())
}

// presetConfig returns the settings of the job's provider, or the zero
// Config when it names none. The preset's argument comes from the
// account_id or base_url of the job; a base URL defaults to the origin of
// the URL signed, since only the flow's endpoints depend on it.
func (j *Job) presetConfig() (oauth1.Config, error) {
	if j.Provider == "" {
		switch {
		case j.AccountID != "":
			return oauth1.Config{}, errors.New("--account-id (account_id) is NetSuite's: give --provider netsuite (provider) with it")
		case j.BaseURL != "":
			return oauth1.Config{}, errors.New("--base-url (base_url) is Jira's and Magento's: give --provider jira or magento (provider) with it")
		}
		return oauth1.Config{}, nil
	}
	p, err := findPreset(j.Provider)
	if err != nil {
		return oauth1.Config{}, err
	}
	if p.input != "account_id" && j.AccountID != "" {
		return oauth1.Config{}, fmt.Errorf("--account-id (account_id) is NetSuite's, not %s's", p.title)
	}
	if p.input != "base_url" && j.BaseURL != "" {
		return oauth1.Config{}, fmt.Errorf("--base-url (base_url) is Jira's and Magento's, not %s's", p.title)
	}
	arg := ""
	switch p.input {
	case "account_id":
		arg = j.AccountID
		if arg == "" {
			// NetSuite's realm is the account id: a --realm alone names the account.
			arg = j.Realm
		}
		if arg == "" {
			return oauth1.Config{}, errors.New("--provider netsuite needs --account-id (account_id in batch mode), or --realm (realm): the NetSuite account id, such as 1234567 or 1234567_SB1 for a sandbox")
		}
		// With --account-id, an explicit --realm overrides the preset's.
		if j.AccountID == "" && providers.NetSuiteRealm(arg) != arg {
			return oauth1.Config{}, fmt.Errorf("--realm %.40q is not a NetSuite realm, which is the account id in uppercase with \"_\" (%.40s): give that, or --account-id", arg, providers.NetSuiteRealm(arg))
		}
		if strings.Trim(arg, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_-") != "" {
			return oauth1.Config{}, fmt.Errorf("--account-id %.40q is not a NetSuite account id (letters, digits, \"_\" and \"-\", such as 1234567_SB1)", arg)
		}
	case "base_url":
		arg = j.BaseURL
		if arg == "" {
			u, err := url.Parse(j.URL)
			if err != nil || u.Host == "" {
				return oauth1.Config{}, fmt.Errorf("--provider %s needs --base-url (base_url in batch mode), such as https://%s.example.com", p.name, p.name)
			}
			arg = u.Scheme + "://" + u.Host
		} else if u, err := url.Parse(arg); err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
			return oauth1.Config{}, fmt.Errorf("--base-url %.60q is not an absolute http or https URL, such as https://%s.example.com", arg, p.name)
		}
	}
	return p.config(arg), nil
}

// describe says what a preset sets that signing uses.
func describe(cfg oauth1.Config) string {
	method := "HMAC-SHA1"
	if cfg.Signer != nil {
		method = cfg.Signer.SignatureMethod()
	}
	parts := []string{method}
	if h, ok := cfg.Signer.(oauth1.HMAC); ok && h.ConsumerSecretOnly {
		parts = append(parts, "consumer secret only")
	}
	switch cfg.Delivery {
	case oauth1.QueryString:
		parts = append(parts, "query")
	case oauth1.FormBody:
		parts = append(parts, "body")
	default:
		parts = append(parts, "header")
	}
	switch {
	case cfg.Realm != "":
		parts = append(parts, fmt.Sprintf("realm %q", cfg.Realm))
	case cfg.SendEmptyRealm:
		parts = append(parts, `realm ""`)
	}
	if cfg.SendEmptyToken {
		parts = append(parts, "empty token")
	}
	if cfg.OmitVersion {
		parts = append(parts, "no oauth_version")
	}
	if cfg.BodyHash != 0 {
		parts = append(parts, "body hash "+cfg.BodyHash.String())
	}
	return strings.Join(parts, ", ")
}

// PrintProviders writes the table of --provider list and "oauth1 help
// providers", made from the presets themselves.
func PrintProviders(w io.Writer) {
	fmt.Fprintln(w, "Providers of sign --provider NAME (package oauth1/providers); flags given with it override its settings:")
	fmt.Fprintln(w)
	var table strings.Builder
	tw := tabwriter.NewWriter(&table, 0, 8, 2, ' ', 0)
	fmt.Fprintln(tw, "  NAME\tPROVIDER\tSETTINGS\tNOTE")
	for _, p := range presets {
		arg := ""
		switch p.input {
		case "account_id":
			arg = "1234567_SB1"
		case "base_url":
			arg = "https://example.com"
		}
		cfg := p.config(arg)
		settings := describe(cfg)
		if p.input == "account_id" {
			settings = strings.Replace(settings, fmt.Sprintf("realm %q", cfg.Realm), "realm from --account-id", 1)
		}
		fmt.Fprintf(tw, "  %s\t%s\t%s\t%s\n", p.name, p.title, settings, p.note)
	}
	tw.Flush()
	for _, l := range strings.Split(strings.TrimSuffix(table.String(), "\n"), "\n") {
		fmt.Fprintln(w, strings.TrimRight(l, " ")) // no padding after an empty NOTE
	}
	fmt.Fprintln(w)
	fmt.Fprintln(w, "netsuite needs --account-id (account_id) or --realm; jira and magento take --base-url (base_url), by default the URL's origin.")
	fmt.Fprintln(w, "sign uses the signing settings; of the flow's, only the callback: a request to the provider's request token URL")
	fmt.Fprintln(w, "signs oauth_callback (the provider's, else oob) unless --callback gives one, as the library's Config.RequestToken does.")
}

// flowParams returns the protocol parameters that the library's flow adds
// to a request to the provider's request token URL, which sign adds too
// (oauth_callback, unless the job gives one), and warnings of parameters
// the provider takes on another request only (NetSuite's role).
func (j *Job) flowParams(flow oauth1.Config, u *url.URL) (extra []oauth1.Param, warnings []string) {
	if j.Provider == "" || flow.Endpoint.RequestTokenURL == "" {
		return nil, nil
	}
	rt, err := url.Parse(flow.Endpoint.RequestTokenURL)
	sandbox := ""
	if p, err := findPreset(j.Provider); err == nil {
		sandbox = p.sandbox
	}
	isRequestToken := err == nil && (strings.EqualFold(rt.Host, u.Host) || (sandbox != "" && strings.EqualFold(sandbox, u.Host))) && rt.Path == u.Path
	if isRequestToken && j.Callback == "" {
		extra = append(extra, oauth1.Param{Name: "oauth_callback", Value: cmp.Or(flow.Callback, "oob")})
	}
	if !isRequestToken && strings.EqualFold(j.Provider, "netsuite") {
		for _, p := range j.HeaderParams {
			if p[0] == "role" {
				warnings = append(warnings, "NetSuite takes role on the request token request only ("+flow.Endpoint.RequestTokenURL+"), not on this one")
			}
		}
	}
	return extra, warnings
}
