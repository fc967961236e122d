package main

import (
	"math/rand/v2"
	"net/url"
	"strconv"
	"strings"
)

// A request is what a driver is asked to sign: the request as it goes on
// the wire (method, URL with its query exactly as sent, body exactly as
// sent) and the credentials and protocol values to sign it with.
type request struct {
	ID             int    `json:"id"`
	Suite          string `json:"suite"`
	Method         string `json:"method"`
	URL            string `json:"url"`
	Body           string `json:"body"`
	ContentType    string `json:"content_type"`
	ConsumerKey    string `json:"consumer_key"`
	ConsumerSecret string `json:"consumer_secret"`
	Token          string `json:"token"`
	TokenSecret    string `json:"token_secret"`
	Nonce          string `json:"nonce"`
	Timestamp      string `json:"timestamp"`
}

// The secrets of every request: those of the shared corpus, which its
// measurement signs with.
const consumerSecret, tokenSecret = "kAcSOqF21Fu85e7zjz7ZN2U4ZRhfV3WpwPAoE3Z7kBw", "LswwdoUaIvS8ltyTt5jkRh4J50vUPVVHtR2YPi5kE"

const formType = "application/x-www-form-urlencoded"

// probes are the known tricky cases, one feature at a time.
func probes() []request {
	type p struct{ method, url, body, ct string }
	ps := []p{
		{"GET", "https://api.example.com/1.1/statuses/home_timeline.json", "", ""},
		{"GET", "https://api.example.com/search?q=hello%20world", "", ""},
		{"GET", "https://api.example.com/search?q=hello+world", "", ""},
		{"GET", "https://api.example.com/search?q=a%2Bb", "", ""},
		{"GET", "https://api.example.com/search?q=caf%C3%A9", "", ""},
		{"GET", "https://api.example.com/search?q=%E6%97%A5%E6%9C%AC", "", ""},
		{"GET", "https://api.example.com/search?q=%F0%9F%98%80", "", ""},
		{"GET", "https://api.example.com/search?q=", "", ""},
		{"GET", "https://api.example.com/search?q", "", ""},
		{"GET", "https://api.example.com/search?a=1&a=2&a=1", "", ""},
		{"GET", "https://api.example.com/search?b=2&a=3&a=1", "", ""},
		{"GET", "https://api.example.com/search?a=1&&b=2", "", ""},
		{"GET", "https://api.example.com/search?x%5B%5D=1&x%5B%5D=2", "", ""},
		{"GET", "https://api.example.com/search?x[]=1", "", ""},
		{"GET", "https://api.example.com/search?q=%21%2A%27%28%29", "", ""},
		{"GET", "https://api.example.com/search?q=!*'()", "", ""},
		{"GET", "https://api.example.com/search?q=~-._", "", ""},
		{"GET", "https://api.example.com/search?q=%7E", "", ""},
		{"GET", "https://api.example.com/search?q=a%26b%3Dc", "", ""},
		{"GET", "https://api.example.com/search?q=50%25", "", ""},
		{"GET", "https://api.example.com/search?a%20b=c", "", ""},
		{"GET", "https://api.example.com/search?=empty", "", ""},
		{"GET", "https://api.example.com/search?q=a%0Ab", "", ""},
		{"GET", "https://API.Example.COM/search?q=1", "", ""},
		{"GET", "HTTPS://api.example.com/search?q=1", "", ""},
		{"GET", "https://api.example.com:443/search?q=1", "", ""},
		{"GET", "http://api.example.com:80/search?q=1", "", ""},
		{"GET", "https://api.example.com:80/search?q=1", "", ""},
		{"GET", "http://api.example.com:443/search?q=1", "", ""},
		{"GET", "http://api.example.com:8080/search?q=1", "", ""},
		{"GET", "http://127.0.0.1:8080/search?q=1", "", ""},
		{"GET", "https://api.example.com", "", ""},
		{"GET", "https://api.example.com/", "", ""},
		{"GET", "https://api.example.com/?q=1", "", ""},
		{"GET", "https://api.example.com/a%20b/c", "", ""},
		{"GET", "https://api.example.com/a%2Fb/c", "", ""},
		{"GET", "https://api.example.com/caf%C3%A9", "", ""},
		{"GET", "https://api.example.com/users:me", "", ""},
		{"GET", "https://api.example.com/a;b/c", "", ""},
		{"GET", "https://api.example.com//double", "", ""},
		{"GET", "https://api.example.com/a/./b/../c", "", ""},
		{"GET", "https://api.example.com/~user", "", ""},
		{"GET", "https://api.example.com/%7Euser", "", ""},
		{"GET", "https://api.example.com/x#frag", "", ""},
		{"POST", "https://api.example.com/statuses/update.json", "status=Hello%20Ladies%20%2B%20Gentlemen%2C%20a%20signed%20OAuth%20request%21", formType},
		{"POST", "https://api.example.com/statuses/update.json", "status=Hello+Ladies+%2B+Gentlemen", formType},
		{"POST", "https://api.example.com/statuses/update.json?include_entities=true", "status=x&status=y", formType},
		{"POST", "https://api.example.com/statuses/update.json?a=1", "a=1", formType},
		{"POST", "https://api.example.com/statuses/update.json", "status=caf%C3%A9", formType},
		{"POST", "https://api.example.com/statuses/update.json", "empty=", formType},
		{"POST", "https://api.example.com/statuses/update.json", "status=x", formType + "; charset=UTF-8"},
		{"POST", "https://api.example.com/statuses/update.json", `{"status":"x"}`, "application/json"},
		{"POST", "https://api.example.com/statuses/update.json", "status=x", "text/plain"},
		{"POST", "https://api.example.com/statuses/update.json", "", ""},
		{"PUT", "https://api.example.com/items/1", "name=n%20v", formType},
		{"PATCH", "https://api.example.com/items/1?x=y", "", ""},
		{"DELETE", "https://api.example.com/items/1", "", ""},
		{"HEAD", "https://api.example.com/items/1", "", ""},
		{"OPTIONS", "https://api.example.com/items", "", ""},
		{"get", "https://api.example.com/items?q=1", "", ""},
		{"GET", "https://api.example.com/items?oauth_extra=1", "", ""},
		{"GET", "https://api.example.com/items?realm=x", "", ""},
		{"GET", "https://api.example.com/items?q=%e6%97%a5", "", ""},
		{"GET", "https://api.example.com/items?q=%C3%A9&q=e%CC%81", "", ""},
		{"GET", "https://api.example.com/items?%C3%A9=1&e=2&%C3%A9=0", "", ""},
	}
	rs := make([]request, len(ps))
	for i, p := range ps {
		rs[i] = request{Suite: "probes", Method: p.method, URL: p.url, Body: p.body, ContentType: p.ct}
	}
	return rs
}

var (
	hosts    = []string{"api.example.com", "photos.example.net", "upload.example.org", "a-b.c0.example.org", "example.com", "127.0.0.1", "[::1]"}
	paths    = []string{"/", "/1.1/statuses/update.json", "/photos", "/lists", "/show.json/users/2", "/v2/items/42", "/statuses/~user", "/a;b/photos", "/users:me", "/a%40b", "/caf%C3%A9/x", "//x", "/x=y"}
	words    = []string{"hello", "world", "status", "signed", "OAuth", "request", "Ladies", "Gentlemen", "update", "list", "page", "filter", "user", "true", "false", "id."}
	names    = []string{"status", "q", "page", "count", "screen_name", "include_entities", "since_id", "ids[]", "lang", "text", "max_id", "fields", "sort", "file", "size"}
	wildRune = []string{"a", "b", "Z", "0", "9", "-", ".", "_", "~", " ", "+", "%", "&", "=", "?", "#", "/", ":", ";", "@", "!", "*", "'", "(", ")", "$", ",", "[", "]", "{", "}", "|", "\\", "^", "`", "\"", "<", ">", "\n", "\r", "\t", "é", "e\u0301", "ñ", "ü", "ß", "€", "Ж", "א", "ع", "中", "日本", "한", "😀", "🎉", "\u00a0", "\u200b", "\u2028", "\u007f"}
)

// encodeQuery percent-encodes s for a query or form body, with spaces as
// plus or %20 as a client may send them.
func encodeQuery(s string, plus bool) string {
	e := url.QueryEscape(s)
	if !plus {
		e = strings.ReplaceAll(e, "+", "%20")
	}
	return e
}

func pairs(rng *rand.Rand, n int, name, value func() string) string {
	plus := rng.IntN(2) == 0
	var ps []string
	var seen []string
	for range n {
		k := name()
		if len(seen) > 0 && rng.IntN(5) == 0 {
			k = seen[rng.IntN(len(seen))] // a repeated name
		}
		seen = append(seen, k)
		ps = append(ps, encodeQuery(k, plus)+"="+encodeQuery(value(), plus))
	}
	return strings.Join(ps, "&")
}

func realistic(rng *rand.Rand) request {
	r := request{Suite: "realistic", Method: "GET"}
	scheme := []string{"https", "https", "http"}[rng.IntN(3)]
	host := hosts[rng.IntN(4)]
	name := func() string { return names[rng.IntN(len(names))] }
	value := func() string {
		switch rng.IntN(4) {
		case 0:
			return strconv.Itoa(rng.IntN(1 << 30))
		case 1:
			return ""
		}
		var ws []string
		for range 1 + rng.IntN(6) {
			ws = append(ws, words[rng.IntN(len(words))])
		}
		s := strings.Join(ws, " ")
		if rng.IntN(4) == 0 {
			s += []string{"?", "&", "!", "(", "+", "é", ","}[rng.IntN(7)]
		}
		return s
	}
	r.URL = scheme + "://" + host + paths[1+rng.IntN(6)]
	if q := rng.IntN(7); q > 0 {
		r.URL += "?" + pairs(rng, q, name, value)
	}
	if rng.IntN(3) == 0 {
		r.Method = "POST"
		r.ContentType = formType
		r.Body = pairs(rng, 1+rng.IntN(4), name, value)
	}
	return r
}

func wild(rng *rand.Rand) request {
	r := request{Suite: "wild", Method: []string{"GET", "GET", "POST", "PUT", "DELETE", "PATCH"}[rng.IntN(6)]}
	scheme := []string{"https", "http"}[rng.IntN(2)]
	host := hosts[rng.IntN(len(hosts))]
	if rng.IntN(3) == 0 { // upper-case letters in the host
		b := []byte(host)
		for i := range b {
			if 'a' <= b[i] && b[i] <= 'z' && rng.IntN(2) == 0 {
				b[i] -= 'a' - 'A'
			}
		}
		host = string(b)
	}
	if rng.IntN(3) == 0 {
		host += []string{":80", ":443", ":8080", ":8443"}[rng.IntN(4)]
	}
	str := func() string {
		var b strings.Builder
		for range rng.IntN(12) {
			b.WriteString(wildRune[rng.IntN(len(wildRune))])
		}
		return b.String()
	}
	name := func() string {
		if rng.IntN(3) == 0 {
			return names[rng.IntN(len(names))]
		}
		return str()
	}
	r.URL = scheme + "://" + host + paths[rng.IntN(len(paths))]
	if q := rng.IntN(10); q > 0 {
		r.URL += "?" + pairs(rng, q, name, str)
	}
	if r.Method != "GET" && r.Method != "DELETE" && rng.IntN(2) == 0 {
		r.ContentType = formType
		r.Body = pairs(rng, 1+rng.IntN(8), name, str)
	}
	return r
}

// requests returns every request, deterministic for a seed.
func requests(seed uint64, nRealistic, nWild int) []request {
	rng := rand.New(rand.NewPCG(seed, seed^0x9e3779b97f4a7c15))
	rs := probes()
	for range nRealistic {
		rs = append(rs, realistic(rng))
	}
	for range nWild {
		rs = append(rs, wild(rng))
	}
	const alnum = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789"
	tok := func(n int) string {
		b := make([]byte, n)
		for i := range b {
			b[i] = alnum[rng.IntN(len(alnum))]
		}
		return string(b)
	}
	for i := range rs {
		r := &rs[i]
		r.ID = i
		r.ConsumerKey, r.ConsumerSecret = tok(22), consumerSecret
		if rng.IntN(4) > 0 {
			r.Token, r.TokenSecret = tok(40), tokenSecret
		}
		r.Nonce = tok(8 + rng.IntN(24))
		r.Timestamp = strconv.Itoa(1_000_000_000 + rng.IntN(900_000_000))
	}
	return rs
}
