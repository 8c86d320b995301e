-- The PostgreSQL schema gains `check_references()`, which checks every foreign key at once for
-- a load that wrote with the per-row checks off (`core-server migrate`, D-01). SQLite's checks
-- are part of each statement, and cheap: nothing to add here.
SELECT 1;
