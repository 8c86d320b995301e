-- A record imported from an export keeps its id (`core-server export`, the bootstrap format's
-- `id`): the import's statements name the `id` column and give NULL for a record that has none,
-- which SQLite's `INTEGER PRIMARY KEY` takes as "the next id". Nothing to change here; the
-- PostgreSQL schema needs a trigger for the same (its identity columns refuse an explicit NULL).
SELECT 1;
