-- Consumer registrations and sunset usage counts.

CREATE TABLE oauth1_consumers (
	tenant           TEXT NOT NULL,
	consumer_key     TEXT NOT NULL,
	secret           BLOB NOT NULL, -- 0x00 then the secret, or 0x01 then AES-256-GCM nonce and sealed secret
	public_key       BLOB,          -- PKIX DER, or NULL
	callback_schemes TEXT NOT NULL DEFAULT '[]', -- JSON array
	callbacks        TEXT NOT NULL DEFAULT '[]', -- JSON array
	PRIMARY KEY (tenant, consumer_key)
) WITHOUT ROWID;

CREATE TABLE oauth1_usage (
	tenant       TEXT    NOT NULL,
	consumer_key TEXT    NOT NULL,
	requests     INTEGER NOT NULL,
	exchanges    INTEGER NOT NULL,
	last_seen    INTEGER NOT NULL,
	PRIMARY KEY (tenant, consumer_key)
) WITHOUT ROWID;
