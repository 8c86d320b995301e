-- Users, roles, what roles grant, and bearer tokens (stored as hashes only). Timestamps are
-- ISO 8601 UTC text. The PostgreSQL twin of this file is ../postgres/0001_access.sql.
CREATE TABLE users (
    id INTEGER PRIMARY KEY AUTOINCREMENT,
    name TEXT NOT NULL UNIQUE,
    created_at TEXT NOT NULL
);

CREATE TABLE roles (
    id INTEGER PRIMARY KEY AUTOINCREMENT,
    name TEXT NOT NULL UNIQUE
);

-- One row per module or operation a role grants; `admin` needs none (it grants everything).
CREATE TABLE role_grants (
    role_id INTEGER NOT NULL REFERENCES roles (id) ON DELETE CASCADE,
    kind TEXT NOT NULL CHECK (kind IN ('module', 'operation')),
    name TEXT NOT NULL,
    PRIMARY KEY (role_id, kind, name)
);

-- A token is `<selector>.<secret>`: the selector finds the row, the secret's SHA-256 is compared
-- in constant time.
CREATE TABLE tokens (
    id INTEGER PRIMARY KEY AUTOINCREMENT,
    selector TEXT NOT NULL UNIQUE,
    secret_hash TEXT NOT NULL,
    user_id INTEGER NOT NULL REFERENCES users (id) ON DELETE CASCADE,
    created_at TEXT NOT NULL,
    revoked_at TEXT
);

CREATE TABLE token_roles (
    token_id INTEGER NOT NULL REFERENCES tokens (id) ON DELETE CASCADE,
    role_id INTEGER NOT NULL REFERENCES roles (id) ON DELETE CASCADE,
    PRIMARY KEY (token_id, role_id)
);
