-- Consumer registrations and sunset usage counts.

CREATE TABLE oauth1_consumers (
	tenant           text  NOT NULL,
	consumer_key     text  NOT NULL,
	secret           bytea NOT NULL, -- 0x00 then the secret, or 0x01 then AES-256-GCM nonce and sealed secret
	public_key       bytea,          -- PKIX DER, or NULL
	callback_schemes text  NOT NULL DEFAULT '[]', -- JSON array
	callbacks        text  NOT NULL DEFAULT '[]', -- JSON array
	PRIMARY KEY (tenant, consumer_key)
);

CREATE TABLE oauth1_usage (
	tenant       text   NOT NULL,
	consumer_key text   NOT NULL,
	requests     bigint NOT NULL,
	exchanges    bigint NOT NULL,
	last_seen    bigint NOT NULL,
	PRIMARY KEY (tenant, consumer_key)
);
