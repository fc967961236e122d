//go:build !js

package main

import "os"

// main runs the command as a process. In a browser, page_js.go's main
// runs the same commands for the debugging page instead.
func main() {
	os.Exit(run(os.Args[1:], os.Stdin, os.Stdout, os.Stderr, os.Getenv))
}
