package basestring

// This file reads the query and the form body as sent, as a client with
// bugs of reading them does.

import (
	"slices"
	"strings"

	"github.com/countersign/countersign/percent"
)

// readBugs are the bugs that change how the query and the body are read.
const readBugs = bugPlusLiteral | bugRawQuery | bugRawForm | bugNoForm | bugQueryOnlyInURI | bugQCut | bugHashCut |
	bugSemicolonDrop | bugSemicolonSplit | bugSemicolonCut | bugEqCut | bugRawNames | bugNulCut | bugLatin1 | bugPHPNames |
	bugQueryWins | bugKeepFirst | bugKeepLast | bugNoQuery | bugSpacePlus | bugFormWins | bugEmptyReplaced | bugQueryOnly | bugEmptyPairs |
	bugQueryVerbatim | bugQMarkKept

// sourceBugs are the bugs of reading one query or body, which a client
// with bugQueryOnly makes in the query only.
const sourceBugs = bugPlusLiteral | bugSemicolonDrop | bugSemicolonSplit | bugSemicolonCut | bugEqCut | bugRawNames |
	bugNulCut | bugLatin1 | bugPHPNames | bugSpacePlus | bugEmptyReplaced | bugEmptyPairs

// pieces reads the query and the form body as a client with bugs bs does,
// once for each set of the bugs of reading: most variants share one. The
// result is shared: the caller must not modify it.
func (r *rebuild) pieces(bs bug) ([]piece, bool) {
	bs &= readBugs
	if c, ok := r.read[bs]; ok {
		return c.ps, c.ok
	}
	ps, ok := r.readPieces(bs)
	if r.read == nil {
		r.read = map[bug]readResult{}
	}
	r.read[bs] = readResult{ps, ok}
	return ps, ok
}

type readResult struct {
	ps []piece
	ok bool
}

// queryBugs and formBugs are the bugs that change how the query, and the
// form body, are read each on its own.
const (
	queryBugs = sourceBugs | bugQueryOnlyInURI | bugNoQuery | bugQCut | bugRawQuery | bugHashCut | bugQueryVerbatim | bugQMarkKept
	formBugs  = sourceBugs | bugNoForm | bugRawForm
)

// readPieces is pieces, uncached: it joins the query's and the form
// body's, each read once for each set of the bugs that change it.
func (r *rebuild) readPieces(bs bug) ([]piece, bool) {
	q, ok1 := r.source(true, bs&queryBugs)
	fb := bs & formBugs
	if bs&bugQueryOnly != 0 {
		fb &^= sourceBugs
	}
	f, ok2 := r.source(false, fb)
	if !ok1 || !ok2 {
		return nil, false
	}
	ps := slices.Concat(q, f)
	r.work += workReadPair * int64(len(ps))
	switch {
	case bs&bugQueryWins != 0:
		inQuery := map[string]bool{}
		for _, p := range ps {
			if p.query {
				inQuery[p.name] = true
			}
		}
		ps = slices.DeleteFunc(ps, func(p piece) bool { return !p.query && inQuery[p.name] })
	case bs&bugFormWins != 0:
		inForm := map[string]bool{}
		for _, p := range ps {
			if !p.query {
				inForm[p.name] = true
			}
		}
		ps = slices.DeleteFunc(ps, func(p piece) bool { return p.query && inForm[p.name] })
	}
	if bs&(bugKeepFirst|bugKeepLast) != 0 {
		seen := map[string]int{}
		kept := ps[:0:0]
		for _, p := range ps {
			if i, ok := seen[p.name]; ok {
				if bs&bugKeepLast != 0 {
					kept[i] = p
				}
				continue
			}
			seen[p.name] = len(kept)
			kept = append(kept, p)
		}
		ps = kept
	}
	return ps, true
}

// A srcKey is the key of one read of the query, or of the form body, in
// rebuild.src.
type srcKey struct {
	bs   bug
	form bool
}

// source reads the query (or the form body) as a client with bugs bs
// does, cached in r.src. The result is shared.
func (r *rebuild) source(query bool, bs bug) ([]piece, bool) {
	key, raw := srcKey{bs: bs}, r.query
	if !query {
		key, raw = srcKey{bs: bs, form: true}, r.form
	}
	if c, ok := r.src[key]; ok {
		return c.ps, c.ok
	}
	ps, ok := readSource(query, raw, bs)
	r.work += workReadByte*int64(len(raw)) + workReadPair*int64(len(ps))
	if r.src == nil {
		r.src = map[srcKey]readResult{}
	}
	r.src[key] = readResult{ps, ok}
	return ps, ok
}

// readSource is source, uncached.
func readSource(query bool, raw string, bs bug) ([]piece, bool) {
	if query && bs&(bugQueryOnlyInURI|bugNoQuery) != 0 || !query && bs&bugNoForm != 0 {
		return nil, true
	}
	if query && bs&bugQCut != 0 {
		raw, _, _ = strings.Cut(raw, "?")
	}
	rawValues := query && bs&bugRawQuery != 0 || !query && bs&bugRawForm != 0
	if query && bs&bugHashCut != 0 {
		raw = raw[:hashAt(raw)]
	}
	if query && bs&bugQMarkKept != 0 && raw != "" {
		raw = "?" + raw
	}
	verbatim := query && bs&bugQueryVerbatim != 0
	var ps []piece
	for kv := range strings.SplitSeq(raw, "&") {
		if kv == "" {
			if bs&bugEmptyPairs != 0 && raw != "" {
				ps = append(ps, piece{query: query})
			}
			continue // "a=1&&b=2" has no third pair
		}
		if bs&bugSemicolonDrop != 0 && strings.Contains(kv, ";") {
			continue
		}
		kvs := []string{kv}
		if bs&bugSemicolonSplit != 0 {
			kvs = strings.Split(kv, ";")
		}
		for _, kv := range kvs {
			p, ok := readPair(kv, bs, rawValues)
			if !ok && !verbatim {
				return nil, false
			}
			if verbatim {
				n, v, _ := strings.Cut(kv, "=")
				p = piece{name: n, value: v, verbatim: true}
			}
			if p.name == "oauth_signature" {
				continue // never signed, wherever it is sent (§3.4.1.3.1)
			}
			p.query = query
			ps = append(ps, p)
		}
	}
	if bs&bugEmptyReplaced != 0 {
		ps = replaceEmpty(ps)
	}
	return ps, true
}

// replaceEmpty drops the empty values of each name that come before its
// first other value, as a client does that stores one value per name and
// takes "" for none ("if (data[name])" in JavaScript): "a=&a=1&a=" keeps
// "a=1" and the last "a=", "a=&a=" keeps one "a=".
func replaceEmpty(ps []piece) []piece {
	set := map[string]bool{}  // the names with a value other than ""
	empty := map[string]int{} // the index in out of a name's empty value
	out := make([]piece, 0, len(ps))
	for _, p := range ps {
		switch i, ok := empty[p.name]; {
		case set[p.name]:
			out = append(out, p)
		case ok:
			out[i] = p
			if p.value != "" {
				set[p.name] = true
				delete(empty, p.name)
			}
		case p.value == "":
			empty[p.name] = len(out)
			out = append(out, p)
		default:
			set[p.name] = true
			out = append(out, p)
		}
	}
	return out
}

// hashAt returns the offset in raw of the first "#" or "%23": where a
// client that decodes the query before parsing it as a URL ends it.
func hashAt(raw string) int {
	for i := 0; i < len(raw); i++ {
		if raw[i] == '#' {
			return i
		}
		if raw[i] == '%' && i+2 < len(raw) && raw[i+1] == '2' && raw[i+2] == '3' {
			return i
		}
	}
	return len(raw)
}

// readPair reads one name=value pair of a query or form body as a client
// with bugs bs does. rawValues keeps the value as sent.
func readPair(kv string, bs bug, rawValues bool) (piece, bool) {
	n, v, _ := strings.Cut(kv, "=")
	if bs&bugEqCut != 0 {
		v, _, _ = strings.Cut(v, "=")
	}
	decode := percent.DecodeForm
	if bs&bugPlusLiteral != 0 {
		decode = percent.Decode
	}
	name, err1 := decode(n)
	value, err2 := decode(v)
	if err1 != nil || err2 != nil {
		return piece{}, false
	}
	if bs&bugRawNames != 0 {
		name = n
	}
	if rawValues {
		value = v
	}
	if bs&bugNulCut != 0 {
		name, _, _ = strings.Cut(name, "\x00")
		value, _, _ = strings.Cut(value, "\x00")
	}
	if bs&bugSpacePlus != 0 {
		name, value = strings.ReplaceAll(name, " ", "+"), strings.ReplaceAll(value, " ", "+")
	}
	if bs&bugSemicolonCut != 0 {
		value, _, _ = strings.Cut(value, ";")
	}
	if bs&bugLatin1 != 0 {
		name, value = latin1ToUTF8(name), latin1ToUTF8(value)
	}
	if bs&bugPHPNames != 0 {
		name = phpName(name)
	}
	return piece{name: name, value: value}, true
}
