package main

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/countersign/countersign/oauth1/server"
	"github.com/countersign/countersign/sqlstore"
	"github.com/countersign/countersign/sqlstore/internal/pgtest"
)

func TestMain(m *testing.M) {
	code := m.Run()
	pgtest.Stop()
	os.Exit(code)
}

// runCmd runs the command with args and the environment env.
func runCmd(args []string, env map[string]string) (code int, stdout, stderr string) {
	var out, errw bytes.Buffer
	code = run(context.Background(), args, &out, &errw, func(k string) string { return env[k] })
	return code, out.String(), errw.String()
}

// dialects runs f on a new, empty database of each dialect.
func dialects(t *testing.T, f func(t *testing.T, dsn string)) {
	t.Run("SQLite", func(t *testing.T) { f(t, filepath.Join(t.TempDir(), "oauth.db")) })
	t.Run("PostgreSQL", func(t *testing.T) { f(t, pgtest.DSN(t)) })
}

func TestUsage(t *testing.T) {
	for _, tc := range []struct {
		args []string
		code int
		want string // in stderr, or in stdout for exit status 0
	}{
		{nil, exitUsage, "usage: oauth1-store migrate"},
		{[]string{"frobnicate"}, exitUsage, `unknown command "frobnicate"`},
		{[]string{"migrate"}, exitUsage, "give --db DSN or set OAUTH1_STORE_DB"},
		{[]string{"migrate", "--db", "x.db", "extra"}, exitUsage, `extra argument "extra"`},
		{[]string{"migrate", "--frob"}, exitUsage, "flag provided but not defined: -frob"},
		{[]string{"migrate", "-h"}, exitOK, ""},
		{[]string{"help"}, exitOK, "usage: oauth1-store migrate"},
	} {
		code, stdout, stderr := runCmd(tc.args, nil)
		assert.Equal(t, tc.code, code, "%q", tc.args)
		if tc.code == exitOK {
			assert.Contains(t, stdout+stderr, tc.want, "%q", tc.args)
		} else {
			assert.Contains(t, stderr, tc.want, "%q", tc.args)
		}
	}
}

func TestMigrate(t *testing.T) {
	dialects(t, func(t *testing.T, dsn string) {
		code, stdout, stderr := runCmd([]string{"migrate", "--db", dsn}, nil)
		require.Equal(t, exitOK, code, stderr)
		assert.Contains(t, stdout, "applied migration 1 (0001_")
		applied := strings.Count(stdout, "applied migration")
		assert.GreaterOrEqual(t, applied, 3)

		// Again, the DSN from the environment: nothing left to do.
		code, stdout, stderr = runCmd([]string{"migrate"}, map[string]string{"OAUTH1_STORE_DB": dsn})
		require.Equal(t, exitOK, code, stderr)
		assert.Equal(t, "the schema is up to date\n", stdout)
		code, stdout, _ = runCmd([]string{"migrate", "--db", dsn, "--dry-run"}, nil)
		require.Equal(t, exitOK, code)
		assert.Equal(t, "-- the schema is up to date: nothing to apply\n", stdout)
	})
}

// TestDryRunScript runs the script --dry-run prints, as a DBA would, and
// checks that it changed nothing before, and that after it sqlstore.Migrate
// finds the schema up to date and the stores work.
func TestDryRunScript(t *testing.T) {
	dialects(t, func(t *testing.T, dsn string) {
		ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
		defer cancel()
		code, script, stderr := runCmd([]string{"migrate", "--db", dsn, "--dry-run"}, nil)
		require.Equal(t, exitOK, code, stderr)
		assert.Contains(t, script, "-- version 1: 0001_")
		assert.Contains(t, script, "INSERT INTO oauth1_schema_migrations")

		db, err := sqlstore.Open(ctx, dsn)
		require.NoError(t, err)
		defer db.Close()
		pending, err := sqlstore.Migrate(ctx, db, true)
		require.NoError(t, err)
		require.NotEmpty(t, pending, "the dry run applied something")
		assert.Equal(t, len(pending), strings.Count(script, "\nBEGIN;\n"))

		_, err = db.ExecContext(ctx, script)
		require.NoError(t, err)
		applied, err := sqlstore.Migrate(ctx, db, false)
		require.NoError(t, err)
		assert.Empty(t, applied, "Migrate applied again what the script applied")
		var at string
		require.NoError(t, db.QueryRowContext(ctx, `SELECT applied_at FROM oauth1_schema_migrations WHERE version = 1`).Scan(&at))
		_, err = time.Parse(time.RFC3339, at)
		assert.NoError(t, err, "applied_at %q is not as Migrate writes it", at)

		now := time.Now()
		fresh, err := sqlstore.NewNonceStore(db, "").Use(ctx, server.Nonce{ConsumerKey: "k", Value: "n", Timestamp: now.Unix()}, now, now.Add(time.Minute))
		require.NoError(t, err)
		assert.True(t, fresh)
	})
}

// TestDryRunCreatesNothing: a dry run on a SQLite file that does not
// exist prints every migration and leaves no file behind.
func TestDryRunCreatesNothing(t *testing.T) {
	file := filepath.Join(t.TempDir(), "missing.db")
	code, script, stderr := runCmd([]string{"migrate", "--db", file, "--dry-run"}, nil)
	require.Equal(t, exitOK, code, stderr)
	assert.Contains(t, script, "-- version 1: 0001_")
	entries, err := os.ReadDir(filepath.Dir(file))
	require.NoError(t, err)
	assert.Empty(t, entries)
}

// TestNoPasswordInErrors: a database that cannot be reached is an error
// that does not repeat the DSN's password.
func TestNoPasswordInErrors(t *testing.T) {
	code, _, stderr := runCmd([]string{"migrate", "--db", "postgres://user:s3cret-pw@127.0.0.1:1/oauth?connect_timeout=2"}, nil)
	assert.Equal(t, exitFailure, code)
	assert.Contains(t, stderr, "oauth1-store migrate:")
	assert.NotContains(t, stderr, "s3cret-pw")
}
