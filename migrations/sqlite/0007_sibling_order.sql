-- A new keyword or channel goes after its last sibling: the largest order number among the
-- children of one parent is read from these indexes instead of a scan of the siblings, so that
-- batch writes under one parent stay flat as the parent fills (issue 18).
CREATE INDEX keywords_parent_order ON keywords (parent_id, order_number);
CREATE INDEX channels_parent_order ON channels (parent_id, order_sequence);
