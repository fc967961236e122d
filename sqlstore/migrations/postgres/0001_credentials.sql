-- Nonces, temporary credentials and token credentials. Times are Unix
-- milliseconds on the clock the stores are passed; text is compared byte
-- for byte (equality under a deterministic collation).

-- Nonces are partitioned by oauth_timestamp: sqlstore.Expire makes the
-- hourly partitions ahead and drops those whose nonces all expired. Rows
-- outside every partition land in the default one, which Expire sweeps
-- with DELETE.
CREATE TABLE oauth1_nonces (
	tenant  text   NOT NULL,
	id      bytea  NOT NULL, -- 16 bytes of SHA-256 of consumer key, token, nonce, timestamp
	ts      bigint NOT NULL, -- oauth_timestamp, seconds
	expires bigint NOT NULL,
	PRIMARY KEY (tenant, id, ts)
) PARTITION BY RANGE (ts);
CREATE TABLE oauth1_nonces_default PARTITION OF oauth1_nonces DEFAULT;

CREATE TABLE oauth1_temporary (
	tenant       text     NOT NULL,
	token        text     NOT NULL,
	secret       bytea    NOT NULL,
	consumer_key text     NOT NULL,
	callback     text     NOT NULL,
	expires      bigint   NOT NULL,
	usr          text     NOT NULL DEFAULT '',
	verifier     text     NOT NULL DEFAULT '',
	scope        text     NOT NULL DEFAULT '',
	state        smallint NOT NULL DEFAULT 0, -- 0 issued, 1 authorized, 2 exchanged, 3 revoked
	PRIMARY KEY (tenant, token)
);
CREATE INDEX oauth1_temporary_client ON oauth1_temporary (tenant, consumer_key, expires);
CREATE INDEX oauth1_temporary_grant ON oauth1_temporary (tenant, consumer_key, usr) WHERE state = 1;
CREATE INDEX oauth1_temporary_expires ON oauth1_temporary (expires);

CREATE TABLE oauth1_tokens (
	seq          bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY, -- issue order, for the grant's bound
	tenant       text   NOT NULL,
	token        text   NOT NULL,
	secret       bytea  NOT NULL,
	consumer_key text   NOT NULL,
	usr          text   NOT NULL,
	scope        text   NOT NULL,
	revoked      bigint, -- NULL while live; when it was revoked
	UNIQUE (tenant, token)
);
CREATE INDEX oauth1_tokens_grant ON oauth1_tokens (tenant, consumer_key, usr, seq) WHERE revoked IS NULL;
CREATE INDEX oauth1_tokens_revoked ON oauth1_tokens (revoked) WHERE revoked IS NOT NULL;
