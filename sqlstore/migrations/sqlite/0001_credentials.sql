-- Nonces, temporary credentials and token credentials. Times are Unix
-- milliseconds on the clock the stores are passed; text is compared byte
-- for byte (SQLite's BINARY collation).

CREATE TABLE oauth1_nonces (
	tenant  TEXT    NOT NULL,
	id      BLOB    NOT NULL, -- 16 bytes of SHA-256 of consumer key, token, nonce, timestamp
	ts      INTEGER NOT NULL, -- oauth_timestamp, seconds
	expires INTEGER NOT NULL,
	PRIMARY KEY (tenant, id, ts)
) WITHOUT ROWID;
CREATE INDEX oauth1_nonces_expires ON oauth1_nonces (expires);

CREATE TABLE oauth1_temporary (
	tenant       TEXT    NOT NULL,
	token        TEXT    NOT NULL,
	secret       BLOB    NOT NULL,
	consumer_key TEXT    NOT NULL,
	callback     TEXT    NOT NULL,
	expires      INTEGER NOT NULL,
	usr          TEXT    NOT NULL DEFAULT '',
	verifier     TEXT    NOT NULL DEFAULT '',
	scope        TEXT    NOT NULL DEFAULT '',
	state        INTEGER NOT NULL DEFAULT 0, -- 0 issued, 1 authorized, 2 exchanged, 3 revoked
	PRIMARY KEY (tenant, token)
) WITHOUT ROWID;
CREATE INDEX oauth1_temporary_client ON oauth1_temporary (tenant, consumer_key, expires);
CREATE INDEX oauth1_temporary_grant ON oauth1_temporary (tenant, consumer_key, usr) WHERE state = 1;
CREATE INDEX oauth1_temporary_expires ON oauth1_temporary (expires);

CREATE TABLE oauth1_tokens (
	seq          INTEGER PRIMARY KEY AUTOINCREMENT, -- issue order, for the grant's bound
	tenant       TEXT    NOT NULL,
	token        TEXT    NOT NULL,
	secret       BLOB    NOT NULL,
	consumer_key TEXT    NOT NULL,
	usr          TEXT    NOT NULL,
	scope        TEXT    NOT NULL,
	revoked      INTEGER, -- NULL while live; when it was revoked
	UNIQUE (tenant, token)
);
CREATE INDEX oauth1_tokens_grant ON oauth1_tokens (tenant, consumer_key, usr, seq) WHERE revoked IS NULL;
CREATE INDEX oauth1_tokens_revoked ON oauth1_tokens (revoked) WHERE revoked IS NOT NULL;
