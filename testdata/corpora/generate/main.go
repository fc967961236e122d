// Command generate runs real OAuth 1.0a client libraries on generated
// requests and writes the base strings they hashed where RFC 5849 gives
// another, as ../libraries.json.gz (the shape of the shared corpus, with
// each library's version). From testdata/corpora/generate:
//
//	go run . [-libs dghubble,mrjones,ruby-oauth,net-oauth,pecl-oauth,oauth-1.0a] [-node-modules DIR]
//
// dghubble/oauth1 and mrjones/oauth run in this process; the others run as
// the drivers in drivers/, one process each, reading requests as JSON lines
// on stdin and writing what their library hashed as JSON lines on stdout.
// They need Debian's ruby-oauth, libnet-oauth-perl, php-cli and php-oauth,
// and npm's oauth-1.0a installed in a directory given as -node-modules
// (npm install oauth-1.0a@2.2.6 in a temporary directory).
package main

import (
	"bufio"
	"compress/gzip"
	"crypto/hmac"
	"crypto/sha1"
	"encoding/base64"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"log"
	"os"
	"os/exec"
	"slices"
	"strings"

	"github.com/countersign/countersign/internal/vectors"
)

// A result is what a driver reports for one request.
type result struct {
	ID            int     `json:"id"`
	Got           string  `json:"got"`           // the base string the library hashed
	Authorization string  `json:"authorization"` // the header it would send, if any
	URL           string  `json:"url"`           // the URL it would send, if it differs from the request's
	Body          *string `json:"body"`          // the body it would send, if it differs from the request's
	Nonce         string  `json:"nonce"`         // the nonce and timestamp it signed with,
	Timestamp     string  `json:"timestamp"`     // if not the request's
	Version       string  `json:"version"`
	Error         string  `json:"error"`
}

type entry struct {
	Library string `json:"library"`
	Version string `json:"version"`
	Suite   string `json:"suite"`
	Request struct {
		Method      string `json:"method"`
		URL         string `json:"url"`
		Body        string `json:"body"`
		ContentType string `json:"content_type"`
	} `json:"request"`
	Want   string   `json:"want"`
	Got    string   `json:"got"`
	Labels []string `json:"labels"`
}

// A driver signs every request with one library.
type driver func(rs []request) ([]result, error)

var nodeModules = flag.String("node-modules", "", "the directory holding node_modules/oauth-1.0a")

func external(name string, args ...string) driver {
	return func(rs []request) ([]result, error) {
		cmd := exec.Command(name, args...)
		if *nodeModules != "" {
			cmd.Env = append(os.Environ(), "NODE_PATH="+strings.TrimSuffix(*nodeModules, "/")+"/node_modules")
		}
		cmd.Stderr = os.Stderr
		in, err := cmd.StdinPipe()
		if err != nil {
			return nil, err
		}
		out, err := cmd.StdoutPipe()
		if err != nil {
			return nil, err
		}
		if err := cmd.Start(); err != nil {
			return nil, err
		}
		go func() {
			enc := json.NewEncoder(in)
			for _, r := range rs {
				if enc.Encode(r) != nil {
					break
				}
			}
			in.Close()
		}()
		var res []result
		sc := bufio.NewScanner(out)
		sc.Buffer(nil, 1<<24)
		for sc.Scan() {
			var r result
			if err := json.Unmarshal(sc.Bytes(), &r); err != nil {
				return nil, fmt.Errorf("%s: %v in %q", name, err, sc.Text())
			}
			res = append(res, r)
		}
		if err := cmd.Wait(); err != nil {
			return nil, fmt.Errorf("%s: %v", name, err)
		}
		return res, nil
	}
}

var drivers = map[string]driver{
	"dghubble":   dghubble,
	"mrjones":    mrjones,
	"ruby-oauth": external("ruby", "drivers/ruby-oauth.rb"),
	"net-oauth":  external("perl", "drivers/net-oauth.pl"),
	"pecl-oauth": external("php", "drivers/pecl-oauth.php"),
	"oauth-1.0a": external("node", "drivers/oauth-1.0a.js"),
}

func main() {
	libs := flag.String("libs", "dghubble,mrjones,ruby-oauth,net-oauth,pecl-oauth,oauth-1.0a", "the libraries to run, comma-separated")
	out := flag.String("o", "../libraries.json.gz", "the corpus to write")
	seed := flag.Uint64("seed", 37, "the seed of the random requests")
	nr := flag.Int("realistic", 400, "random realistic requests")
	nw := flag.Int("wild", 400, "random wild requests")
	flag.Parse()
	rs := requests(*seed, *nr, *nw)
	var es []entry
	for _, lib := range strings.Split(*libs, ",") {
		d := drivers[lib]
		if d == nil {
			log.Fatalf("no driver for %q", lib)
		}
		res, err := d(rs)
		if err != nil {
			log.Fatalf("%s: %v", lib, err)
		}
		if len(res) != len(rs) {
			log.Fatalf("%s: %d results for %d requests", lib, len(res), len(rs))
		}
		var n, failed, unsigned int
		for i, r := range rs {
			g := res[i]
			if g.ID != r.ID {
				log.Fatalf("%s: result %d for request %d", lib, g.ID, r.ID)
			}
			if g.Error != "" || g.Got == "" {
				if failed < 2 {
					log.Printf("%s: request %d (%s %q) not signed: %s", lib, r.ID, r.Method, r.URL, g.Error)
				}
				failed++
				continue
			}
			u := r.URL
			if g.URL != "" {
				u = g.URL
			}
			body := r.Body
			if g.Body != nil {
				body = *g.Body
			}
			nonce, ts := r.Nonce, r.Timestamp
			if g.Nonce != "" {
				nonce, ts = g.Nonce, g.Timestamp
			}
			oauth := headerParams(g.Authorization)
			if oauth == nil {
				oauth = protocol(r, nonce, ts)
			}
			w, err := want(r.Method, u, body, r.ContentType, oauth)
			if err != nil {
				log.Fatalf("%s: request %d: %v", lib, r.ID, err)
			}
			if !signed(g.Authorization, g.Got, r) {
				unsigned++
				continue
			}
			if w == g.Got {
				continue
			}
			var e entry
			e.Library, e.Version, e.Suite = lib, g.Version, r.Suite
			e.Request.Method, e.Request.URL, e.Request.Body, e.Request.ContentType = r.Method, u, body, r.ContentType
			e.Want, e.Got, e.Labels = w, g.Got, []string{}
			es = append(es, e)
			n++
		}
		log.Printf("%s: %d of %d requests signed wrongly, %d not signed (the library refused them), %d whose signature is not over the captured base string (left out)", lib, n, len(rs), failed, unsigned)
	}
	slices.SortStableFunc(es, func(a, b entry) int { return strings.Compare(a.Library, b.Library) })
	if err := write(*out, es); err != nil {
		log.Fatal(err)
	}
}

// signed reports whether the signature of the Authorization header h is
// the HMAC-SHA1 of base with the secrets of r, as the library's key should
// be: the proof that the driver captured what the library hashed. A
// header without a signature proves nothing and passes.
func signed(h, base string, r request) bool {
	ps := headerParams(h)
	if ps == nil || ps["oauth_signature"] == "" {
		return true
	}
	m := hmac.New(sha1.New, []byte(vectors.Encode(r.ConsumerSecret)+"&"+vectors.Encode(r.TokenSecret)))
	m.Write([]byte(base))
	return base64.StdEncoding.EncodeToString(m.Sum(nil)) == ps["oauth_signature"]
}

func write(path string, es []entry) error {
	f, err := os.Create(path)
	if err != nil {
		return err
	}
	z, _ := gzip.NewWriterLevel(f, gzip.BestCompression)
	b, err := json.MarshalIndent(es, "", " ")
	if err != nil {
		return err
	}
	if _, err := io.Copy(z, strings.NewReader(string(b)+"\n")); err != nil {
		return err
	}
	if err := z.Close(); err != nil {
		return err
	}
	return f.Close()
}
