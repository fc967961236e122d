//go:build js && wasm

package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"strings"
	"sync"
	"syscall/js"

	"github.com/countersign/countersign/cmd/oauth1/internal/explain"
	"github.com/countersign/countersign/cmd/oauth1/internal/verify"
)

// This main is the debugging page's (cmd/oauth1/page): built for
// GOOS=js GOARCH=wasm, it runs "oauth1 verify" and "oauth1 diff" in the
// browser, on what the page's user pasted, so that the page says what the
// command says, word for word, and nothing leaves the browser.
//
// It defines one JavaScript function,
//
//	oauth1.run(args, stdin, env) -> Promise<{code, stdout, stderr, report}>
//
// where args are the command line after "oauth1" (its first element a
// command of pageCommand), stdin is the text the command reads as standard input, and
// env holds the environment variables the command reads (the secrets:
// OAUTH1_CONSUMER_SECRET, OAUTH1_TOKEN_SECRET, OAUTH1_KEY_PASSWORD). report
// is, for verify, the report that --json prints, as JSON text, while stdout
// holds the text report of the same run; for diff, when the base strings
// differ, {"marked": ...}, the two marked as verify's report marks them;
// "" for the other commands, and when verify could not check the request.
// Then it
// calls globalThis.oauth1Ready(), if the page defined it.
//
// The command runs on a goroutine of its own and the promise settles when it
// returns, so that nothing it does waits on a JavaScript event that the
// caller would be blocking.

// pageCommand returns the command that the page may run by that name: one
// that reads what was pasted and prints what it finds. It is the method
// that run calls for the name, called here directly so that the program
// links no other command (the commands that sign or send requests would
// more than double its size).
func pageCommand(c *cmd, name string) func([]string) int {
	switch name {
	case "verify":
		return c.verify
	case "diff":
		return c.diff
	case "explain":
		return c.explain
	case "version":
		return c.version
	}
	return nil
}

// run is the command line's dispatch, for the commands the page runs (the
// others are not built for js: commands.go); the page calls pageExec, and
// the tests, built for js only to be vetted, call this.
func run(args []string, stdin io.Reader, stdout, stderr io.Writer, getenv func(string) string) int {
	c := &cmd{stdin: stdin, stdout: stdout, stderr: stderr, getenv: getenv}
	if len(args) == 0 || pageCommand(c, args[0]) == nil {
		fmt.Fprint(stderr, usage)
		return exitUsage
	}
	return pageCommand(c, args[0])(args[1:])
}

// pageMu runs one command at a time, as a terminal would.
var pageMu sync.Mutex

func main() {
	api := js.Global().Get("Object").New()
	api.Set("run", js.FuncOf(pageRun))
	js.Global().Set("oauth1", api)
	if ready := js.Global().Get("oauth1Ready"); ready.Type() == js.TypeFunction {
		ready.Invoke()
	}
	select {} // serve calls until the page closes
}

// pageRun is oauth1.run. Its arguments are checked here, and a call that
// does not follow the contract is refused with a TypeError, not a panic
// that would end the program for the rest of the page's life.
func pageRun(_ js.Value, argv []js.Value) any {
	args, stdin, env, err := pageArgs(argv)
	var executor js.Func
	executor = js.FuncOf(func(_ js.Value, pv []js.Value) any {
		resolve, reject := pv[0], pv[1]
		if err != nil {
			executor.Release()
			reject.Invoke(js.Global().Get("TypeError").New("oauth1.run: " + err.Error()))
			return nil
		}
		go func() {
			defer executor.Release()
			code, stdout, stderr, report := pageExec(args, stdin, env)
			res := js.Global().Get("Object").New()
			res.Set("code", code)
			res.Set("stdout", stdout)
			res.Set("stderr", stderr)
			res.Set("report", report)
			resolve.Invoke(res)
		}()
		return nil
	})
	return js.Global().Get("Promise").New(executor)
}

// pageArgs reads oauth1.run's arguments: an array of strings, a string and
// an object whose string properties are the environment.
func pageArgs(argv []js.Value) (args []string, stdin string, env map[string]string, err error) {
	if len(argv) < 1 || !js.Global().Get("Array").Call("isArray", argv[0]).Bool() {
		return nil, "", nil, fmt.Errorf("args must be an array of strings")
	}
	for i := range argv[0].Length() {
		v := argv[0].Index(i)
		if v.Type() != js.TypeString {
			return nil, "", nil, fmt.Errorf("args[%d] is not a string", i)
		}
		args = append(args, v.String())
	}
	if len(args) == 0 || pageCommand(&cmd{}, args[0]) == nil {
		return nil, "", nil, fmt.Errorf("the page runs only oauth1 verify, diff, explain and version")
	}
	if len(argv) > 1 && argv[1].Type() == js.TypeString {
		stdin = argv[1].String()
	}
	env = map[string]string{}
	if len(argv) > 2 && argv[2].Type() == js.TypeObject {
		keys := js.Global().Get("Object").Call("keys", argv[2])
		for i := range keys.Length() {
			k := keys.Index(i).String()
			if v := argv[2].Get(k); v.Type() == js.TypeString {
				env[k] = v.String()
			}
		}
	}
	return args, stdin, env, nil
}

// diffArgs returns WANT and GOT of the arguments of diff as the page
// gives them: "--", then the two.
func diffArgs(args []string) (want, got string, ok bool) {
	if len(args) != 3 || args[0] != "--" {
		return "", "", false
	}
	return args[1], args[2], true
}

// pageExec runs one command as the process would, and returns its exit
// status and output, and verify's report as JSON. A panic is a bug: it is
// reported as one, with exit status 70 (EX_SOFTWARE), and the page stays
// usable.
func pageExec(args []string, stdin string, env map[string]string) (code int, stdout, stderr, report string) {
	pageMu.Lock()
	defer pageMu.Unlock()
	var out, errOut bytes.Buffer
	defer func() {
		if p := recover(); p != nil {
			code, stdout, report = 70, out.String(), ""
			stderr = errOut.String() + fmt.Sprintf("oauth1: internal error (please report it, without your secrets): %v\n", p)
		}
	}()
	c := &cmd{stdin: strings.NewReader(stdin), stdout: &out, stderr: &errOut, getenv: func(name string) string { return env[name] }}
	c.report = func(r *verify.Report) {
		// The encoding --json uses; a Report always encodes.
		var b bytes.Buffer
		enc := json.NewEncoder(&b)
		enc.SetEscapeHTML(false)
		enc.Encode(r)
		report = b.String()
	}
	code = pageCommand(c, args[0])(args[1:])
	if args[0] == "diff" && code == exitFailure {
		if want, got, ok := diffArgs(args[1:]); ok {
			b, _ := json.Marshal(struct {
				Marked *verify.Marked `json:"marked"`
			}{verify.Mark(explain.BaseStringArg(want), explain.BaseStringArg(got))})
			report = string(b)
		}
	}
	return code, out.String(), errOut.String(), report
}
