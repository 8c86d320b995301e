-- Tokens that expire (`expires_at`, ISO 8601 UTC text; none: never), and when each was last used.
-- A server records uses in memory and writes them here at most once a minute and when it stops,
-- so that no request writes; `token_uses` is a table of its own so that these writes do not move
-- the access revision (D-02). The PostgreSQL twin of this file is ../postgres/0010_token_lifecycle.sql.
ALTER TABLE tokens ADD COLUMN expires_at TEXT;

CREATE TABLE token_uses (
    token_id INTEGER PRIMARY KEY REFERENCES tokens (id) ON DELETE CASCADE,
    last_used_at TEXT NOT NULL
);
