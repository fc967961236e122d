//go:build !js

package main

import (
	"errors"
	"fmt"
	"os/exec"
)

// storeCommand is the program "oauth1 store" runs, from module sqlstore:
// this command links no SQL driver, so that they are no dependency of
// the main module.
const storeCommand = "oauth1-store"

// storeInstall is how to install it.
const storeInstall = "go install github.com/countersign/countersign/sqlstore/cmd/oauth1-store@latest"

// store runs oauth1-store, found on PATH, with args ("oauth1 store migrate
// --db DSN" runs "oauth1-store migrate --db DSN"), and returns its exit
// status; without it, it says how to install it and exits 2.
func (c *cmd) store(args []string) int {
	path, err := exec.LookPath(storeCommand)
	if err != nil {
		fmt.Fprintf(c.stderr, "oauth1 store: %s, which has the store commands, is not on PATH; install it with\n\t%s\n", storeCommand, storeInstall)
		return exitUsage
	}
	p := exec.Command(path, args...)
	p.Stdin, p.Stdout, p.Stderr = c.stdin, c.stdout, c.stderr
	err = p.Run()
	var exit *exec.ExitError
	switch {
	case err == nil:
		return exitOK
	case errors.As(err, &exit) && exit.ExitCode() > 0:
		return exit.ExitCode()
	}
	fmt.Fprintf(c.stderr, "oauth1 store: %s: %v\n", storeCommand, err)
	return exitFailure
}
