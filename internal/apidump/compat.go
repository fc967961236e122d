package main

import (
	"slices"
	"strings"
)

// unexportedMethods is how a record lists the unexported methods of an
// interface; an interface with them cannot be implemented outside its
// package, so adding methods to it breaks no user.
const unexportedMethods = "unexported methods"

// incompatible returns how the API lines current break users of the API
// lines frozen, one sentence per problem, or nil if they do not: a frozen
// line that is gone (an identifier removed, or its signature, type, value
// or receiver changed, or a struct made incomparable; a method moved from
// the pointer to the value receiver is not gone), and a method added
// to a frozen interface that types outside its package can implement.
func incompatible(frozen, current []string) []string {
	have := map[string]bool{}
	byIdent := map[string][]string{}
	ifaces := map[string][]string{} // interface summary lines: their methods, by type
	for _, l := range current {
		have[l] = true
		byIdent[ident(l)] = append(byIdent[ident(l)], l)
		if key, methods, ok := ifaceSummary(l); ok {
			ifaces[key] = methods
		}
	}
	var problems []string
	for _, l := range frozen {
		if have[l] {
			continue
		}
		// A method moved from the pointer to the value receiver is still
		// in the pointer's method set; a promoted field made a field of
		// the struct itself is still selected the same way (no user could
		// name the unexported struct it came from in a literal).
		if pkg, m, ok := strings.Cut(l, ", method (*"); ok && have[pkg+", method ("+m] {
			continue
		}
		if f, ok := strings.CutSuffix(l, " (promoted)"); ok && have[f] {
			continue
		}
		if key, was, ok := ifaceSummary(l); ok {
			if now, ok := ifaces[key]; ok {
				// The interface is still there: its method lines report
				// the methods removed or changed; here, those added.
				var added []string
				for _, m := range now {
					if !slices.Contains(was, m) {
						added = append(added, m)
					}
				}
				if len(added) > 0 && !slices.Contains(was, unexportedMethods) {
					problems = append(problems, "methods added to an interface users may implement: "+
						strings.Join(added, ", ")+", to "+key+" (a type written to implement it no longer does)")
				}
				continue
			}
		}
		if strings.HasSuffix(l, " struct, comparable") {
			problems = append(problems, "no longer comparable with ==: "+strings.TrimSuffix(l, ", comparable"))
			continue
		}
		if now := byIdent[ident(l)]; len(now) > 0 {
			problems = append(problems, "changed: "+l+"; now: "+strings.Join(now, "; "))
			continue
		}
		problems = append(problems, "removed: "+l)
	}
	return problems
}

// ifaceSummary splits the line that lists an interface's methods,
// "pkg p, type I interface { M, N }", into "pkg p, type I" and the
// methods.
func ifaceSummary(line string) (key string, methods []string, ok bool) {
	key, list, ok := strings.Cut(line, " interface { ")
	if !ok || !strings.HasSuffix(list, " }") || strings.Contains(key, " struct, ") {
		return "", nil, false
	}
	list = strings.TrimSpace(strings.TrimSuffix(list, " }"))
	if list != "" {
		methods = strings.Split(list, ", ")
	}
	return key, methods, true
}

// ident returns the identifier a line declares, without its signature or
// type: "pkg p, func F", "pkg p, method T.M" (whichever the receiver),
// "pkg p, type T struct, F", "pkg p, type I interface, M", "pkg p, type T",
// "pkg p, const C". Two lines of the same identifier are one changed.
func ident(line string) string {
	pkg, rest, ok := strings.Cut(line, ", ")
	if !ok {
		return line
	}
	name := func(s string) string {
		if i := strings.IndexAny(s, " ([="); i >= 0 {
			return s[:i]
		}
		return s
	}
	switch {
	case strings.HasPrefix(rest, "method ("):
		recv, m, ok := strings.Cut(strings.TrimPrefix(rest, "method ("), ") ")
		if !ok {
			return line
		}
		return pkg + ", method " + strings.TrimPrefix(name(recv), "*") + "." + name(m)
	case strings.HasPrefix(rest, "type "):
		t := strings.TrimPrefix(rest, "type ")
		for _, kind := range []string{" struct, ", " interface, "} {
			if decl, member, ok := strings.Cut(t, kind); ok {
				return pkg + ", type " + name(decl) + kind + name(member)
			}
		}
		return pkg + ", type " + name(t)
	case strings.HasPrefix(rest, "func "), strings.HasPrefix(rest, "const "), strings.HasPrefix(rest, "var "):
		kind, n, _ := strings.Cut(rest, " ")
		return pkg + ", " + kind + " " + name(n)
	}
	return line
}
