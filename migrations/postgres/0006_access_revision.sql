-- The revision of who may call what: every change to users, roles, grants, tokens or their
-- roles, by any process (the server, `core-server token|role`, an import, another instance),
-- counts it up through these triggers. A server keeps the callers it verified in memory and
-- drops them all when it sees the revision move; it looks at most every 250 ms, so a
-- revocation or a grant holds on every instance within that bound (D-02).
-- The SQLite twin of this file is ../sqlite/0006_access_revision.sql.

CREATE TABLE access_revision (
    id INTEGER PRIMARY KEY CHECK (id = 1),
    revision BIGINT NOT NULL
);
INSERT INTO access_revision (id, revision) VALUES (1, 0);

CREATE FUNCTION access_revision_up() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    UPDATE access_revision SET revision = revision + 1 WHERE id = 1;
    RETURN NULL;
END;
$$;

CREATE TRIGGER users_revision AFTER INSERT OR UPDATE OR DELETE ON users
FOR EACH STATEMENT EXECUTE FUNCTION access_revision_up();

CREATE TRIGGER roles_revision AFTER INSERT OR UPDATE OR DELETE ON roles
FOR EACH STATEMENT EXECUTE FUNCTION access_revision_up();

CREATE TRIGGER role_grants_revision AFTER INSERT OR UPDATE OR DELETE ON role_grants
FOR EACH STATEMENT EXECUTE FUNCTION access_revision_up();

CREATE TRIGGER tokens_revision AFTER INSERT OR UPDATE OR DELETE ON tokens
FOR EACH STATEMENT EXECUTE FUNCTION access_revision_up();

CREATE TRIGGER token_roles_revision AFTER INSERT OR UPDATE OR DELETE ON token_roles
FOR EACH STATEMENT EXECUTE FUNCTION access_revision_up();
