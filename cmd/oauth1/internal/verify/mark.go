package verify

import "strings"

// A Span is a piece of a base string; Changed marks a piece that the
// other base string lacks or has otherwise.
type Span struct {
	Text    string `json:"text"`
	Changed bool   `json:"changed,omitempty"`
}

// Marked holds two base strings cut into spans: joined, Want's spans are
// the right base string and Got's the signed one.
type Marked struct {
	Want []Span `json:"want"`
	Got  []Span `json:"got"`
}

// maxMarkCells bounds the table of the token alignment: past it, the two
// base strings are marked by their common prefix and suffix alone.
const maxMarkCells = 1 << 18

// Mark marks where want and got differ, for a reader: it aligns their
// parts and parameters (cut at "&" and at "%26", the encoded "&" of the
// parameter string), so that a parameter missing, extra or moved is marked
// whole, and within parts that differ it marks only what lies between
// their common prefix and suffix, never cutting a %XX escape.
func Mark(want, got string) *Marked {
	wt, gt := tokens(want), tokens(got)
	m := &Marked{}
	if len(wt)*len(gt) > maxMarkCells {
		m.run(want, got)
		m.Want, m.Got = merge(m.Want), merge(m.Got)
		return m
	}
	// Tokens compared as numbers: a long token is compared once, when
	// interned, not at every cell of the table.
	ids := map[string]int32{}
	intern := func(ts []string) []int32 {
		out := make([]int32, len(ts))
		for i, t := range ts {
			id, ok := ids[t]
			if !ok {
				id = int32(len(ids))
				ids[t] = id
			}
			out[i] = id
		}
		return out
	}
	wi, gi := intern(wt), intern(gt)
	// lcs[i][j] is the length of the longest common subsequence of
	// wt[i:] and gt[j:].
	cols := len(gt) + 1
	lcs := make([]int32, (len(wt)+1)*cols)
	for i := len(wt) - 1; i >= 0; i-- {
		for j := len(gt) - 1; j >= 0; j-- {
			if wi[i] == gi[j] {
				lcs[i*cols+j] = lcs[(i+1)*cols+j+1] + 1
			} else {
				lcs[i*cols+j] = max(lcs[(i+1)*cols+j], lcs[i*cols+j+1])
			}
		}
	}
	var wrun, grun strings.Builder
	i, j := 0, 0
	for i < len(wt) || j < len(gt) {
		switch {
		case i < len(wt) && j < len(gt) && wi[i] == gi[j]:
			m.run(wrun.String(), grun.String())
			wrun.Reset()
			grun.Reset()
			m.add(wt[i], wt[i], false)
			i, j = i+1, j+1
		case j == len(gt) || i < len(wt) && lcs[(i+1)*cols+j] >= lcs[i*cols+j+1]:
			wrun.WriteString(wt[i])
			i++
		default:
			grun.WriteString(gt[j])
			j++
		}
	}
	m.run(wrun.String(), grun.String())
	m.Want, m.Got = merge(m.Want), merge(m.Got)
	return m
}

// tokens cuts s before and after each "&" and "%26".
func tokens(s string) []string {
	var out []string
	for s != "" {
		i := strings.Index(s, "&")
		n := 1
		if k := strings.Index(s, "%26"); k >= 0 && (i < 0 || k < i) {
			i, n = k, 3
		}
		if i < 0 {
			out = append(out, s)
			break
		}
		if i > 0 {
			out = append(out, s[:i])
		}
		out = append(out, s[i:i+n])
		s = s[i+n:]
	}
	return out
}

// minKept is the shortest common prefix or suffix left unmarked.
const minKept = 3

// run adds w and g, a stretch that differs, marking only what lies
// between their common prefix and suffix.
func (m *Marked) run(w, g string) {
	p := 0
	for p < len(w) && p < len(g) && w[p] == g[p] {
		p++
	}
	for p > 0 && (inEscape(w, p) || inEscape(g, p)) {
		p--
	}
	if p < minKept {
		p = 0
	}
	q := 0
	for q < len(w)-p && q < len(g)-p && w[len(w)-1-q] == g[len(g)-1-q] {
		q++
	}
	for q > 0 && (inEscape(w, len(w)-q) || inEscape(g, len(g)-q)) {
		q--
	}
	// A common prefix or suffix of a character or two is chance
	// ("POST" and "GET" both end in "T"): the whole part is marked.
	if q < minKept {
		q = 0
	}
	m.add(w[:p], g[:p], false)
	m.add(w[p:len(w)-q], g[p:len(g)-q], true)
	m.add(w[len(w)-q:], g[len(g)-q:], false)
}

// inEscape reports whether s[k:] begins inside a %XX escape, or inside a
// %25XX, an escape of the parameter string encoded once more.
func inEscape(s string, k int) bool {
	if k <= 0 || k >= len(s) {
		return false
	}
	return s[k-1] == '%' || k > 1 && s[k-2] == '%' ||
		k > 2 && s[k-3:k] == "%25" || k > 3 && s[k-4:k-1] == "%25"
}

// add appends w to Want and g to Got; empty spans are left out.
func (m *Marked) add(w, g string, changed bool) {
	if w != "" {
		m.Want = append(m.Want, Span{Text: w, Changed: changed})
	}
	if g != "" {
		m.Got = append(m.Got, Span{Text: g, Changed: changed})
	}
}

// merge joins the neighbouring spans of ss that are marked alike.
func merge(ss []Span) []Span {
	var out []Span
	var b strings.Builder
	for i, s := range ss {
		b.WriteString(s.Text)
		if i == len(ss)-1 || ss[i+1].Changed != s.Changed {
			out = append(out, Span{Text: b.String(), Changed: s.Changed})
			b.Reset()
		}
	}
	return out
}
