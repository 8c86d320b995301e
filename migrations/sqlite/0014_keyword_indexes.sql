-- `keywords_parent` is the leading column of `keywords_parent_order`, which serves every lookup
-- by parent as well: one index less to keep on every keyword written (an import of a million
-- keywords writes each index a million times).
DROP INDEX keywords_parent;
