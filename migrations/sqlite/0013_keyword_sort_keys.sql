-- Each keyword's place in depth-first pre-order, stored (D-59): its parent's key, then its
-- `orderNumber` (one character for its count of digits, '1' to ':', then the digits, so that
-- numbers compare as numbers), its name and U+0001, which sorts before every character a name
-- holds. A subtree is the range of keys its root's key starts, so keywords retrieve at every
-- level reads the index in order instead of walking the tree and sorting it. Writes keep it:
-- an insert takes its parent's key, a rename moves the keys of the subtree with its paths.
-- The PostgreSQL twin of this file is ../postgres/0013_keyword_sort_keys.sql.
ALTER TABLE keywords ADD COLUMN sort_key TEXT NOT NULL DEFAULT '';

WITH RECURSIVE sub (id, sort) AS (
    SELECT id, char(48 + length(order_number)) || order_number || name || char(1)
    FROM keywords WHERE parent_id IS NULL
    UNION ALL
    SELECT k.id, s.sort || char(48 + length(k.order_number)) || k.order_number || k.name || char(1)
    FROM sub s JOIN keywords k ON k.parent_id = s.id
)
UPDATE keywords SET sort_key = sub.sort FROM sub WHERE sub.id = keywords.id;

CREATE INDEX keywords_sort ON keywords (sort_key);
