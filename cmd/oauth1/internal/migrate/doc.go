// Package migrate is the work of oauth1 migrate: it reads stored OAuth 1.0a
// credentials (JSON lines), exchanges each for an OAuth 2.0 token at a
// provider's rate, writes each result as soon as it has it (resuming from
// an --out file), writes failures as JSON lines, and stops in two steps on
// Ctrl-C. The command (package main) parses the flags, builds the
// Exchanger and makes the Outcome an exit status.
package migrate
