-- The revision of who may call what: every change to users, roles, grants, tokens or their
-- roles, by any process (the server, `core-server token|role`, an import, another instance),
-- counts it up through these triggers. A server keeps the callers it verified in memory and
-- drops them all when it sees the revision move; it looks at most every 250 ms, so a
-- revocation or a grant holds on every instance within that bound (D-02).
-- The PostgreSQL twin of this file is ../postgres/0006_access_revision.sql.

CREATE TABLE access_revision (
    id INTEGER PRIMARY KEY CHECK (id = 1),
    revision INTEGER NOT NULL
);
INSERT INTO access_revision (id, revision) VALUES (1, 0);

CREATE TRIGGER users_insert_revision AFTER INSERT ON users
BEGIN
    UPDATE access_revision SET revision = revision + 1 WHERE id = 1;
END;

CREATE TRIGGER users_update_revision AFTER UPDATE ON users
BEGIN
    UPDATE access_revision SET revision = revision + 1 WHERE id = 1;
END;

CREATE TRIGGER users_delete_revision AFTER DELETE ON users
BEGIN
    UPDATE access_revision SET revision = revision + 1 WHERE id = 1;
END;

CREATE TRIGGER roles_insert_revision AFTER INSERT ON roles
BEGIN
    UPDATE access_revision SET revision = revision + 1 WHERE id = 1;
END;

CREATE TRIGGER roles_update_revision AFTER UPDATE ON roles
BEGIN
    UPDATE access_revision SET revision = revision + 1 WHERE id = 1;
END;

CREATE TRIGGER roles_delete_revision AFTER DELETE ON roles
BEGIN
    UPDATE access_revision SET revision = revision + 1 WHERE id = 1;
END;

CREATE TRIGGER role_grants_insert_revision AFTER INSERT ON role_grants
BEGIN
    UPDATE access_revision SET revision = revision + 1 WHERE id = 1;
END;

CREATE TRIGGER role_grants_update_revision AFTER UPDATE ON role_grants
BEGIN
    UPDATE access_revision SET revision = revision + 1 WHERE id = 1;
END;

CREATE TRIGGER role_grants_delete_revision AFTER DELETE ON role_grants
BEGIN
    UPDATE access_revision SET revision = revision + 1 WHERE id = 1;
END;

CREATE TRIGGER tokens_insert_revision AFTER INSERT ON tokens
BEGIN
    UPDATE access_revision SET revision = revision + 1 WHERE id = 1;
END;

CREATE TRIGGER tokens_update_revision AFTER UPDATE ON tokens
BEGIN
    UPDATE access_revision SET revision = revision + 1 WHERE id = 1;
END;

CREATE TRIGGER tokens_delete_revision AFTER DELETE ON tokens
BEGIN
    UPDATE access_revision SET revision = revision + 1 WHERE id = 1;
END;

CREATE TRIGGER token_roles_insert_revision AFTER INSERT ON token_roles
BEGIN
    UPDATE access_revision SET revision = revision + 1 WHERE id = 1;
END;

CREATE TRIGGER token_roles_update_revision AFTER UPDATE ON token_roles
BEGIN
    UPDATE access_revision SET revision = revision + 1 WHERE id = 1;
END;

CREATE TRIGGER token_roles_delete_revision AFTER DELETE ON token_roles
BEGIN
    UPDATE access_revision SET revision = revision + 1 WHERE id = 1;
END;
