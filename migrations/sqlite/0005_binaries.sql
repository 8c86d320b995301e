-- Binaries of asset versions and previews, stored in chunks of at most 1 MiB so that a download
-- streams them chunk by chunk and never holds a binary whole (D-36), on SQLite as on PostgreSQL.
-- `format` is '' for a version's own binary and the preview's format otherwise. `size` and
-- `etag` (a SHA-256 of the bytes in hex) are written with the chunks. Binaries stored before this
-- migration are moved into chunks; their `etag` names the record until they are written again.
-- The PostgreSQL twin of this file is ../postgres/0005_binaries.sql.

CREATE TABLE binary_chunks (
    version_id INTEGER NOT NULL REFERENCES asset_versions (id) ON DELETE CASCADE,
    format TEXT NOT NULL,
    seq INTEGER NOT NULL,
    data BLOB NOT NULL,
    PRIMARY KEY (version_id, format, seq)
);

ALTER TABLE asset_versions ADD COLUMN size INTEGER NOT NULL DEFAULT 0;
ALTER TABLE asset_versions ADD COLUMN etag TEXT NOT NULL DEFAULT '';
ALTER TABLE asset_previews ADD COLUMN size INTEGER NOT NULL DEFAULT 0;
ALTER TABLE asset_previews ADD COLUMN etag TEXT NOT NULL DEFAULT '';

WITH RECURSIVE n (seq) AS (
    SELECT 0
    UNION ALL
    SELECT seq + 1 FROM n
    WHERE (seq + 1) * 1048576 < (SELECT MAX(length(content)) FROM asset_versions)
)
INSERT INTO binary_chunks (version_id, format, seq, data)
SELECT v.id, '', n.seq, substr(v.content, n.seq * 1048576 + 1, 1048576)
FROM asset_versions v JOIN n ON n.seq * 1048576 < length(v.content);

WITH RECURSIVE n (seq) AS (
    SELECT 0
    UNION ALL
    SELECT seq + 1 FROM n
    WHERE (seq + 1) * 1048576 < (SELECT MAX(length(content)) FROM asset_previews)
)
INSERT INTO binary_chunks (version_id, format, seq, data)
SELECT p.version_id, p.format, n.seq, substr(p.content, n.seq * 1048576 + 1, 1048576)
FROM asset_previews p JOIN n ON n.seq * 1048576 < length(p.content);

UPDATE asset_versions SET size = length(content), etag = 'stored-' || id, content = X'';
UPDATE asset_previews SET size = length(content), etag = 'stored-' || version_id || '-' || format, content = X'';

-- What channel retrieval, PEO retrieval and PEO query look up.
CREATE INDEX peo_channels_channel ON peo_channels (channel_id);
CREATE INDEX peos_product ON peos (product_id);
CREATE INDEX peos_modified ON peos (modified_at);
CREATE INDEX channel_assets_asset ON channel_assets (asset_id);
