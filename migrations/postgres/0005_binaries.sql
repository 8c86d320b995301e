-- Binaries of asset versions and previews, stored in chunks of at most 1 MiB so that a download
-- streams them chunk by chunk and never holds a binary whole (D-36), on SQLite as on PostgreSQL.
-- `format` is '' for a version's own binary and the preview's format otherwise. `size` and
-- `etag` (a SHA-256 of the bytes in hex) are written with the chunks. Binaries stored before this
-- migration are moved into chunks; their `etag` names the record until they are written again.
-- The SQLite twin of this file is ../sqlite/0005_binaries.sql.

CREATE TABLE binary_chunks (
    version_id BIGINT NOT NULL REFERENCES asset_versions (id) ON DELETE CASCADE,
    format TEXT NOT NULL,
    seq INTEGER NOT NULL,
    data BYTEA NOT NULL,
    PRIMARY KEY (version_id, format, seq)
);

ALTER TABLE asset_versions ADD COLUMN size BIGINT NOT NULL DEFAULT 0;
ALTER TABLE asset_versions ADD COLUMN etag TEXT NOT NULL DEFAULT '';
ALTER TABLE asset_previews ADD COLUMN size BIGINT NOT NULL DEFAULT 0;
ALTER TABLE asset_previews ADD COLUMN etag TEXT NOT NULL DEFAULT '';

INSERT INTO binary_chunks (version_id, format, seq, data)
SELECT v.id, '', n.seq, substring(v.content FROM n.seq * 1048576 + 1 FOR 1048576)
FROM asset_versions v
CROSS JOIN LATERAL generate_series(0, (length(v.content) - 1) / 1048576) AS n (seq)
WHERE length(v.content) > 0;

INSERT INTO binary_chunks (version_id, format, seq, data)
SELECT p.version_id, p.format, n.seq, substring(p.content FROM n.seq * 1048576 + 1 FOR 1048576)
FROM asset_previews p
CROSS JOIN LATERAL generate_series(0, (length(p.content) - 1) / 1048576) AS n (seq)
WHERE length(p.content) > 0;

UPDATE asset_versions SET size = length(content), etag = 'stored-' || id, content = ''::bytea;
UPDATE asset_previews SET size = length(content), etag = 'stored-' || version_id || '-' || format, content = ''::bytea;

-- What channel retrieval, PEO retrieval and PEO query look up.
CREATE INDEX peo_channels_channel ON peo_channels (channel_id);
CREATE INDEX peos_product ON peos (product_id);
CREATE INDEX peos_modified ON peos (modified_at);
CREATE INDEX channel_assets_asset ON channel_assets (asset_id);
