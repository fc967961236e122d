package main

import (
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
}

var presets = []preset{
	{name: "x", title: "X (Twitter)", config: func(string) oauth1.Config { return providers.X() }},
	{name: "netsuite", title: "NetSuite", input: "account_id", config: providers.NetSuite,
		note: "--header-param role=ID for the token requests"},
	{name: "etrade", title: "E*TRADE", config: func(string) oauth1.Config { return providers.ETrade() },
		note: "realm=\"\" sent; --callback oob for the request token"},
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
		note: "oauth_body_hash of a body that is not a form"},
	{name: "schoology", title: "Schoology", config: func(string) oauth1.Config { return providers.Schoology() },
		note: "oauth_token=\"\" without a token"},
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
func (j *job) presetConfig() (oauth1.Config, error) {
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
			return oauth1.Config{}, errors.New("--provider netsuite needs --account-id (account_id in batch mode): the NetSuite account id, such as 1234567 or 1234567_SB1 for a sandbox")
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
	if cfg.BodyHash != 0 {
		parts = append(parts, "body hash "+cfg.BodyHash.String())
	}
	return strings.Join(parts, ", ")
}

// printProviders writes the table of --provider list and "oauth1 help
// providers", made from the presets themselves.
func printProviders(w io.Writer) {
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
	fmt.Fprintln(w, "netsuite needs --account-id (account_id); jira and magento take --base-url (base_url), by default the URL's origin.")
	fmt.Fprintln(w, "sign uses the signing settings only: the flow's endpoints are for the library's Config.")
}
