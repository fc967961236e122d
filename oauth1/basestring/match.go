package basestring

import (
	"slices"
	"strings"

	"github.com/countersign/countersign/percent"
)

// diffParams compares the parameter lists as multisets: first pairs equal
// as encoded are matched, then the rest by name (a value that one of the
// known bugs relates to want's first), then by names that such a bug
// relates, and what remains is missing or extra. The order of the matched
// pairs is compared last.
func diffParams(ds []Difference, want, got []Param) []Difference {
	m := newMatching(want, got)
	gMatch := m.matchEncoded()
	order, misordered := sortOrder(want, got, gMatch)
	m.matchByName()
	m.matchRenamed()
	ds = m.wantDiffs(ds)
	ds = m.gotDiffs(ds)
	if !misordered {
		order, misordered = gotOrder(got, m.gUsed)
	}
	if misordered {
		ds = append(ds, order)
	}
	return ds
}

// A matching pairs want's parameters with got's, for diffParams.
type matching struct {
	want, got    []Param
	wUsed, gUsed []bool
	pairs        [][]Difference    // the differences found for want[wi]
	byName       map[string][]int  // got's indexes by decoded name
	nWant, nGot  map[string]int    // the number of pairs of each name
	alias        map[string]string // want's name -> got's, for renamed names
}

func newMatching(want, got []Param) *matching {
	m := &matching{want: want, got: got,
		wUsed: make([]bool, len(want)), gUsed: make([]bool, len(got)),
		pairs:  make([][]Difference, len(want)),
		byName: map[string][]int{}, nWant: map[string]int{}, nGot: map[string]int{}, alias: map[string]string{}}
	for gi, g := range got {
		m.byName[g.Name] = append(m.byName[g.Name], gi)
		m.nGot[g.Name]++
	}
	for _, p := range want {
		m.nWant[p.Name]++
	}
	return m
}

// matchEncoded matches the pairs that are equal as encoded, each of got's
// with the first unmatched one of want's, and returns for each of got's
// parameters the index of its match in want, or -1.
func (m *matching) matchEncoded() []int {
	gMatch := make([]int, len(m.got))
	same := map[[2]string][]int{} // want's unmatched indexes by encoded pair, in order
	for wi, w := range m.want {
		k := [2]string{w.RawName, w.RawValue}
		same[k] = append(same[k], wi)
	}
	for gi, g := range m.got {
		gMatch[gi] = -1
		k := [2]string{g.RawName, g.RawValue}
		if l := same[k]; len(l) > 0 {
			wi := l[0]
			same[k] = l[1:]
			m.wUsed[wi], m.gUsed[gi], gMatch[gi] = true, true, wi
		}
	}
	return gMatch
}

// matchByName matches the rest by decoded name: the same value first, then
// a value that a known bug relates, then any value, except for a name that
// got signs fewer times than want (RepeatedName explains it, not pairing
// its values at random).
func (m *matching) matchByName() {
	m.matchSameName(func(w, g Param) bool { return g.Value == w.Value })
	m.matchSameName(related)
	m.matchSameName(func(w, g Param) bool { return m.nWant[w.Name] <= m.nGot[w.Name] })
}

// matchSameName matches each unmatched parameter of want with the first
// unmatched one of got's of the same name for which ok holds.
func (m *matching) matchSameName(ok func(w, g Param) bool) {
	for wi, w := range m.want {
		if m.wUsed[wi] {
			continue
		}
		for _, gi := range m.byName[w.Name] {
			if g := m.got[gi]; !m.gUsed[gi] && ok(w, g) {
				m.wUsed[wi], m.gUsed[gi] = true, true
				m.pairs[wi] = []Difference{valueDiff(w, g)}
				break
			}
		}
	}
}

// matchRenamed matches names that a bug changed: a pair whose value is the
// same first, then one whose value a bug relates, and then as many of the
// rest as got has under the changed name.
func (m *matching) matchRenamed() {
	renames := renameIndex(m.got, m.gUsed)
	for pass := range 3 {
		for wi, w := range m.want {
			if m.wUsed[wi] {
				continue
			}
			for _, gi := range slices.Concat(renames[w.Name], m.byName[phpName(w.Name)]) {
				if !m.gUsed[gi] && m.matchRename(pass, wi, gi) {
					break
				}
			}
		}
	}
}

// matchRename matches want[wi] with got[gi] if renamed relates their names
// and pass admits their values, and reports whether it did.
func (m *matching) matchRename(pass, wi, gi int) bool {
	w, g := m.want[wi], m.got[gi]
	d, ok := renamed(w, g)
	if !ok {
		return false
	}
	g2 := g
	g2.Name, g2.RawName = w.Name, w.RawName
	if pass == 0 && g2.Value != w.Value || pass == 1 && !related(w, g2) || pass == 2 && m.nWant[w.Name] > m.nGot[g.Name] {
		return false
	}
	m.wUsed[wi], m.gUsed[gi] = true, true
	m.alias[w.Name] = g.Name
	m.pairs[wi] = []Difference{d}
	if w.RawValue != g.RawValue {
		m.pairs[wi] = append(m.pairs[wi], valueDiff(w, g2))
	}
	return true
}

// gotCount returns how many pairs got signs under want's name, or under
// the name a bug changed it to.
func (m *matching) gotCount(name string) int {
	if a, ok := m.alias[name]; ok {
		return m.nGot[a]
	}
	return m.nGot[name]
}

// cutAt returns the name of a value cut short at a "?", which lost the
// rest of the query with it, or "".
func (m *matching) cutAt() string {
	cutAt := ""
	for _, d := range slices.Concat(m.pairs...) {
		if d.Kind == Truncated && strings.Contains(d.Cause, `"?"`) {
			cutAt = d.Name
		}
	}
	return cutAt
}

// wantDiffs appends, in want's order, the differences of the matched
// parameters and the unmatched ones: missing, or a repeated name.
func (m *matching) wantDiffs(ds []Difference) []Difference {
	cutAt := m.cutAt()
	for wi, w := range m.want {
		switch {
		case m.pairs[wi] != nil:
			ds = append(ds, m.pairs[wi]...)
		case m.wUsed[wi]:
		case cutAt != "" && !strings.HasPrefix(w.Name, "oauth_"):
			// Lost with the rest of the query, repeated name or not.
			ds = append(ds, missing(w, cutAt))
		case m.gotCount(w.Name) > 0 && m.gotCount(w.Name) < m.nWant[w.Name]:
			ds = append(ds, repeated(w, "want", m.nWant[w.Name], m.gotCount(w.Name)))
		default:
			ds = append(ds, missing(w, cutAt))
		}
	}
	return ds
}

// gotDiffs appends got's unmatched parameters: extra, or a repeated name.
func (m *matching) gotDiffs(ds []Difference) []Difference {
	for gi, g := range m.got {
		switch {
		case m.gUsed[gi]:
		case m.nWant[g.Name] > 0 && m.nWant[g.Name] < m.nGot[g.Name]:
			ds = append(ds, repeated(g, "got", m.nWant[g.Name], m.nGot[g.Name]))
		default:
			ds = append(ds, extra(g))
		}
	}
	return ds
}

func pair(p Param) string { return p.RawName + "=" + p.RawValue }

// sortOrder reports the first pair of matched parameters that got has in
// the opposite order from want.
func sortOrder(want, got []Param, gMatch []int) (Difference, bool) {
	last := -1 // got index of the matched parameter with the highest want index so far
	for gi, wi := range gMatch {
		if wi < 0 {
			continue
		}
		if last >= 0 && wi < gMatch[last] {
			a, b := got[last], got[gi]
			return Difference{Kind: SortOrder, Name: b.Name,
				Want: pair(b) + " before " + pair(a),
				Got:  pair(a) + " before " + pair(b),
				Cause: "the parameters are in a different order: sort them by encoded name, then encoded value, byte-wise (§3.4.1.3.2), after encoding them" +
					sortHint(a, b)}, true
		}
		last = gi
	}
	return Difference{}, false
}

// gotOrder reports the first pair of got's parameters that are out of
// order among those that correspond to one of want's: the parameters that
// differ in value are not matched by sortOrder, and must still be in order.
func gotOrder(got []Param, used []bool) (Difference, bool) {
	var last *Param
	for gi := range got {
		if !used[gi] {
			continue
		}
		a, b := last, got[gi]
		last = &got[gi]
		if a != nil && (b.RawName < a.RawName || b.RawName == a.RawName && b.RawValue < a.RawValue) {
			a := *a
			return Difference{Kind: SortOrder, Name: b.Name,
				Want: pair(b) + " before " + pair(a),
				Got:  pair(a) + " before " + pair(b),
				Cause: "got's parameters are not in order: sort them by encoded name, then encoded value, byte-wise (§3.4.1.3.2), after encoding them" +
					sortHint(a, b)}, true
		}
	}
	return Difference{}, false
}

// valueDiff explains why two parameters with the same decoded name differ.
func valueDiff(w, g Param) Difference {
	if w.RawValue == g.RawValue {
		return encodingDiff(w.Name, w.RawName, g.RawName, "the name")
	}
	if w.Value == g.Value {
		return encodingDiff(w.Name, pair(w), pair(g), "the value")
	}
	d := Difference{Kind: ValueDiffers, Name: w.Name, Want: pair(w), Got: pair(g)}
	if g2, err := percent.Decode(g.Value); err == nil && g2 == w.Value && g.Value != w.Value {
		d.Kind = DoubleEncoded
		d.Cause = "got's value is encoded twice (" + where(w.RawValue, g.RawValue) + "): the client encoded a value that was already encoded, such as one taken from a URL; decode query and form values before signing"
		return d
	}
	if w2, err := percent.Decode(w.Value); err == nil && w2 == g.Value && g.Value != w.Value {
		d.Kind = DoubleEncoded
		d.Cause = "want's value is encoded twice relative to got (" + where(w.RawValue, g.RawValue) + "): the request carried the value encoded twice, or the client decoded a value it should have signed as received"
		return d
	}
	if fd, err := percent.DecodeForm(g.RawValue); err == nil && fd == w.Value || plusForSpace(w.Value, g.Value) {
		d.Kind = PlusForSpace
		if strings.Contains(g.RawValue, "+") {
			d.Cause = `got has "+" for a space (` + where(w.RawValue, g.RawValue) + `): the client encoded with url.QueryEscape or similar; OAuth requires "%20" (RFC 5849 §3.6)`
		} else {
			d.Cause = `got has a literal "+" where the provider has a space (` + where(w.RawValue, g.RawValue) + `): in a query or form body "+" means a space (§3.4.1.3.1); decode it before signing`
		}
		return d
	}
	if plusForSpace(g.Value, w.Value) {
		d.Kind = PlusForSpace
		d.Cause = `the provider has "+" where the client signed a space (` + where(w.RawValue, g.RawValue) + `): the request probably sent the space as "%2B", or the provider does not decode "+" in the query as a space`
		return d
	}
	if c := charsetCause(w.Value, g.Value, "value"); c != "" {
		d.Kind, d.Cause = Charset, c
		return d
	}
	if c := truncCause(w.Value, g.Value, "value"); c != "" {
		d.Kind, d.Cause = Truncated, c
		return d
	}
	switch w.Name {
	case "oauth_timestamp", "oauth_nonce":
		d.Cause = "the base strings come from different requests: compare base strings built with the same oauth_nonce and oauth_timestamp"
	case "oauth_signature_method":
		d.Cause = "the signature methods differ: the client must sign with the method the provider expects"
	case "oauth_consumer_key", "oauth_token":
		d.Cause = "the credentials differ: the client signed with another " + w.Name
	case "oauth_body_hash":
		d.Cause = "the body hashes differ: the body sent is not the body hashed, or the hash algorithms differ (SHA-1 vs SHA-256)"
	default:
		d.Cause = "the client signed another value than the provider received (" + where(w.RawValue, g.RawValue) + "); was the request changed after signing?"
	}
	return d
}
