-- The answers of batch requests sent with an `Idempotency-Key` (D-14): one row per caller (the
-- token's user) and key, written in the batch's own transaction, so that a key is stored exactly
-- when its batch is. A request with the same key and the same items within the retention window
-- is answered from `answer` (the typed answer as JSON) without applying anything; rows past
-- `expires_at` are deleted by the servers once a minute. The PostgreSQL twin of this file is
-- ../postgres/0012_idempotency_keys.sql.
CREATE TABLE idempotency_keys (
    user_name TEXT NOT NULL,
    idem_key TEXT NOT NULL,
    operation TEXT NOT NULL,
    fingerprint TEXT NOT NULL,
    answer TEXT,
    created_at TEXT NOT NULL,
    expires_at TEXT NOT NULL,
    PRIMARY KEY (user_name, idem_key)
);

CREATE INDEX idempotency_keys_expiry ON idempotency_keys (expires_at);
