-- The token exchange's records (package tokenexchange's Store): one row a
-- 1.0a token, claimed, then exchanged, then revoked.

CREATE TABLE oauth1_exchanges (
	seq          INTEGER PRIMARY KEY AUTOINCREMENT, -- order, for the grant's bound
	tenant       TEXT    NOT NULL,
	token        TEXT    NOT NULL,
	owner        TEXT    NOT NULL DEFAULT '', -- the claim's, until exchanged
	drop_at      INTEGER, -- a claim's lease, or a revoked record's keep; NULL while due
	exchanged    INTEGER, -- NULL while claimed
	answer       BLOB,    -- sealed by the Handler; NULL once its window passed
	answer_until INTEGER,
	consumer_key TEXT    NOT NULL DEFAULT '',
	usr          TEXT    NOT NULL DEFAULT '',
	revoke_at    INTEGER, -- when the token is due for revocation; NULL once revoked
	UNIQUE (tenant, token)
);
CREATE INDEX oauth1_exchanges_due ON oauth1_exchanges (tenant, revoke_at) WHERE revoke_at IS NOT NULL;
CREATE INDEX oauth1_exchanges_grant ON oauth1_exchanges (tenant, consumer_key, usr, exchanged, seq) WHERE revoke_at IS NOT NULL;
CREATE INDEX oauth1_exchanges_drop ON oauth1_exchanges (drop_at) WHERE drop_at IS NOT NULL;
CREATE INDEX oauth1_exchanges_answer ON oauth1_exchanges (answer_until) WHERE answer IS NOT NULL;
