-- Which command made this database: `serve --demo` (`demo`) or any other (`serve`, `import`,
-- `token`, `role`, `messages`). The first command that opens a database writes the one row;
-- `serve --demo` refuses a database another command made, so the public demo token is never
-- planted in a database that is not the demo's (D-02). The PostgreSQL twin of this file is
-- ../postgres/0009_database_origin.sql.
CREATE TABLE database_origin (
    id INTEGER PRIMARY KEY CHECK (id = 1),
    made_by TEXT NOT NULL,
    created_at TEXT NOT NULL
);
