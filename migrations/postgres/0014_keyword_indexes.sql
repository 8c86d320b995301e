-- `keywords_parent` is the leading column of `keywords_parent_order`, which serves every lookup
-- by parent as well: one index less to keep on every keyword written (an import of a million
-- keywords writes each index a million times).
DROP INDEX keywords_parent;

-- Paths compare byte by byte, as on SQLite and as `sort_key` does: the same order (UTF-8 byte
-- order is code point order, the order of the database's `C.UTF-8` default), and the unique
-- index compares with `memcmp` instead of the locale's collation on every keyword written.
ALTER TABLE keywords ALTER COLUMN path TYPE TEXT COLLATE "C";
