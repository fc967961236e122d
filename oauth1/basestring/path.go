package basestring

import "strings"

// This file holds the mistakes of normalising the path that clients make
// when they clean the URL they were given before signing it.

// collapseSlashes turns each run of "/" in path into one, as a client
// does that splits the path into segments and drops the empty ones.
func collapseSlashes(path string) string {
	if !strings.Contains(path, "//") {
		return path
	}
	var b strings.Builder
	for i := 0; i < len(path); i++ {
		if path[i] == '/' && i > 0 && path[i-1] == '/' {
			continue
		}
		b.WriteByte(path[i])
	}
	return b.String()
}

// removeDotSegments removes the "." and ".." segments of an absolute path
// as RFC 3986 §5.2.4 does when it resolves a reference: a client that
// resolves or cleans the URL before signing it signs that path, while the
// request went out with the segments as written.
func removeDotSegments(path string) string {
	if !strings.Contains(path, ".") {
		return path
	}
	segs := strings.Split(path, "/")
	out := make([]string, 0, len(segs))
	for i, s := range segs {
		last := i == len(segs)-1
		switch s {
		case ".":
			if last {
				out = append(out, "") // "/a/." is "/a/"
			}
		case "..":
			if len(out) > 1 {
				out = out[:len(out)-1]
			}
			if last {
				out = append(out, "")
			}
		default:
			out = append(out, s)
		}
	}
	if len(out) == 1 && out[0] == "" {
		return "/"
	}
	return strings.Join(out, "/")
}
