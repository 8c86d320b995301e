-- The domain of the Core Interface: every record the operations read, write or link, and the
-- reference data loaded by `core-server import` (D-01). Timestamps are ISO 8601 UTC text with
-- milliseconds; localized texts are rows with a `loc` (locale tid), NULL for the default text.
-- The PostgreSQL twin of this file is ../postgres/0002_domain.sql (identity columns and BYTEA
-- differ; tests/storage.rs checks that both define the same tables and columns).

CREATE TABLE locales (
    id INTEGER PRIMARY KEY AUTOINCREMENT,
    tid TEXT NOT NULL UNIQUE,
    language TEXT NOT NULL,
    country TEXT NOT NULL,
    name TEXT NOT NULL,
    content_locale BOOLEAN NOT NULL DEFAULT FALSE,
    default_content_locale BOOLEAN NOT NULL DEFAULT FALSE,
    frontend_locale BOOLEAN NOT NULL DEFAULT FALSE,
    default_frontend_locale BOOLEAN NOT NULL DEFAULT FALSE,
    date_format TEXT,
    custom_date_formats_enabled BOOLEAN NOT NULL DEFAULT FALSE
);

CREATE TABLE assets (
    id INTEGER PRIMARY KEY AUTOINCREMENT,
    tid TEXT NOT NULL UNIQUE,
    name TEXT,
    path TEXT,
    created_at TEXT NOT NULL,
    modified_at TEXT NOT NULL
);

CREATE TABLE asset_versions (
    id INTEGER PRIMARY KEY AUTOINCREMENT,
    asset_id INTEGER NOT NULL REFERENCES assets (id) ON DELETE CASCADE,
    version_number INTEGER NOT NULL,
    tid TEXT UNIQUE,
    media_type TEXT NOT NULL,
    file_name TEXT,
    content BLOB NOT NULL,
    created_at TEXT NOT NULL,
    UNIQUE (asset_id, version_number)
);

CREATE TABLE asset_previews (
    version_id INTEGER NOT NULL REFERENCES asset_versions (id) ON DELETE CASCADE,
    format TEXT NOT NULL,
    media_type TEXT NOT NULL,
    content BLOB NOT NULL,
    PRIMARY KEY (version_id, format)
);

CREATE TABLE keywords (
    id INTEGER PRIMARY KEY AUTOINCREMENT,
    parent_id INTEGER REFERENCES keywords (id) ON DELETE CASCADE,
    -- The default name, which is the keyword's segment of `path`.
    name TEXT NOT NULL,
    path TEXT NOT NULL UNIQUE,
    order_number INTEGER NOT NULL,
    created_at TEXT NOT NULL
);
CREATE INDEX keywords_parent ON keywords (parent_id);

CREATE TABLE keyword_names (
    keyword_id INTEGER NOT NULL REFERENCES keywords (id) ON DELETE CASCADE,
    loc TEXT NOT NULL,
    name TEXT NOT NULL,
    PRIMARY KEY (keyword_id, loc)
);

CREATE TABLE keyword_assets (
    keyword_id INTEGER NOT NULL REFERENCES keywords (id) ON DELETE CASCADE,
    asset_id INTEGER NOT NULL REFERENCES assets (id) ON DELETE CASCADE,
    PRIMARY KEY (keyword_id, asset_id)
);

CREATE TABLE glossaries (
    id INTEGER PRIMARY KEY AUTOINCREMENT,
    tid TEXT NOT NULL UNIQUE,
    name TEXT NOT NULL,
    -- Comma-separated locale tids.
    languages TEXT,
    created_at TEXT NOT NULL
);

CREATE TABLE glossary_entries (
    id INTEGER PRIMARY KEY AUTOINCREMENT,
    tid TEXT UNIQUE,
    glossary_id INTEGER NOT NULL REFERENCES glossaries (id) ON DELETE CASCADE,
    loc TEXT,
    type TEXT NOT NULL CHECK (type IN ('term', 'sentence')),
    value TEXT,
    forbidden BOOLEAN NOT NULL DEFAULT FALSE,
    last_edited_username TEXT,
    last_edited_date TEXT
);
CREATE INDEX glossary_entries_glossary ON glossary_entries (glossary_id);

CREATE TABLE glossary_translations (
    id INTEGER PRIMARY KEY AUTOINCREMENT,
    entry_id INTEGER NOT NULL REFERENCES glossary_entries (id) ON DELETE CASCADE,
    loc TEXT,
    mode TEXT,
    type TEXT,
    similarity INTEGER,
    value TEXT,
    forbidden BOOLEAN NOT NULL DEFAULT FALSE,
    last_edited_username TEXT,
    last_edited_date TEXT
);
CREATE INDEX glossary_translations_entry ON glossary_translations (entry_id);

CREATE TABLE messages (
    id INTEGER PRIMARY KEY AUTOINCREMENT,
    tid TEXT,
    subject TEXT,
    body TEXT,
    severity TEXT,
    recipient_user TEXT,
    recipient_role TEXT,
    sender_application TEXT,
    sender_plugin TEXT,
    -- A JSON object of string to string.
    parameters TEXT,
    created_at TEXT NOT NULL
);

CREATE TABLE components (
    name TEXT PRIMARY KEY,
    status TEXT NOT NULL
);

-- Attribute definitions; a product link type is one (its tid is the link type) with a cardinality.
CREATE TABLE attribute_definitions (
    id INTEGER PRIMARY KEY AUTOINCREMENT,
    tid TEXT NOT NULL UNIQUE,
    type TEXT NOT NULL CHECK (type IN ('text', 'date', 'number', 'boolean', 'ref', 'table')),
    cardinality INTEGER,
    created_at TEXT NOT NULL
);

CREATE TABLE channel_types (
    id INTEGER PRIMARY KEY AUTOINCREMENT,
    name TEXT NOT NULL UNIQUE
);

-- The attributes registered for channels: only these can be saved in channel values.
CREATE TABLE channel_attributes (
    attribute_definition_id INTEGER PRIMARY KEY REFERENCES attribute_definitions (id) ON DELETE CASCADE
);

CREATE TABLE channels (
    id INTEGER PRIMARY KEY AUTOINCREMENT,
    tid TEXT NOT NULL UNIQUE,
    parent_id INTEGER REFERENCES channels (id) ON DELETE CASCADE,
    type_id INTEGER NOT NULL REFERENCES channel_types (id),
    order_sequence INTEGER,
    name TEXT,
    html_icon TEXT,
    icon TEXT,
    allowed_functions TEXT,
    created_at TEXT NOT NULL,
    modified_at TEXT NOT NULL
);
CREATE INDEX channels_parent ON channels (parent_id);

CREATE TABLE channel_assets (
    channel_id INTEGER NOT NULL REFERENCES channels (id) ON DELETE CASCADE,
    asset_id INTEGER NOT NULL REFERENCES assets (id) ON DELETE CASCADE,
    PRIMARY KEY (channel_id, asset_id)
);

CREATE TABLE briefing_layouts (
    id INTEGER PRIMARY KEY AUTOINCREMENT,
    channel_id INTEGER NOT NULL REFERENCES channels (id) ON DELETE CASCADE,
    module_cfg_tid TEXT NOT NULL,
    locale TEXT,
    layout_key TEXT NOT NULL,
    name TEXT,
    -- JSON object of identifier to value (`width`, `height`).
    attributes TEXT NOT NULL,
    UNIQUE (channel_id, module_cfg_tid, locale)
);

CREATE TABLE briefing_boxes (
    id INTEGER PRIMARY KEY AUTOINCREMENT,
    layout_id INTEGER NOT NULL REFERENCES briefing_layouts (id) ON DELETE CASCADE,
    box_key TEXT NOT NULL,
    layer TEXT,
    name TEXT,
    type TEXT,
    position INTEGER NOT NULL,
    attributes TEXT NOT NULL
);

CREATE TABLE briefing_images (
    id INTEGER PRIMARY KEY AUTOINCREMENT,
    box_id INTEGER NOT NULL REFERENCES briefing_boxes (id) ON DELETE CASCADE,
    type TEXT,
    position INTEGER NOT NULL,
    attributes TEXT NOT NULL
);

CREATE TABLE products (
    id INTEGER PRIMARY KEY AUTOINCREMENT,
    tid TEXT NOT NULL UNIQUE,
    name TEXT,
    created_at TEXT NOT NULL
);

CREATE TABLE product_assets (
    product_id INTEGER NOT NULL REFERENCES products (id) ON DELETE CASCADE,
    asset_id INTEGER NOT NULL REFERENCES assets (id) ON DELETE CASCADE,
    link_type_id INTEGER NOT NULL REFERENCES attribute_definitions (id) ON DELETE CASCADE,
    position INTEGER NOT NULL,
    PRIMARY KEY (product_id, asset_id, link_type_id)
);

CREATE TABLE peos (
    id INTEGER PRIMARY KEY AUTOINCREMENT,
    tid TEXT NOT NULL UNIQUE,
    product_id INTEGER REFERENCES products (id) ON DELETE SET NULL,
    template TEXT,
    is_default BOOLEAN NOT NULL DEFAULT FALSE,
    name TEXT,
    created_at TEXT NOT NULL,
    modified_at TEXT NOT NULL
);

CREATE TABLE peo_nodes (
    peo_id INTEGER NOT NULL REFERENCES peos (id) ON DELETE CASCADE,
    position INTEGER NOT NULL,
    node TEXT NOT NULL,
    PRIMARY KEY (peo_id, position)
);

CREATE TABLE peo_channels (
    peo_id INTEGER NOT NULL REFERENCES peos (id) ON DELETE CASCADE,
    channel_id INTEGER NOT NULL REFERENCES channels (id) ON DELETE CASCADE,
    PRIMARY KEY (peo_id, channel_id)
);

-- One row per value item of a `val` of a channel or a PEO (exactly one owner).
CREATE TABLE attribute_values (
    id INTEGER PRIMARY KEY AUTOINCREMENT,
    channel_id INTEGER REFERENCES channels (id) ON DELETE CASCADE,
    peo_id INTEGER REFERENCES peos (id) ON DELETE CASCADE,
    attribute_definition_id INTEGER NOT NULL REFERENCES attribute_definitions (id) ON DELETE CASCADE,
    type TEXT CHECK (type IN ('multiple', 'localized')),
    origin TEXT,
    node TEXT,
    data_type TEXT,
    pos INTEGER,
    loc TEXT,
    value TEXT NOT NULL,
    CHECK ((channel_id IS NULL) <> (peo_id IS NULL))
);
CREATE INDEX attribute_values_channel ON attribute_values (channel_id);
CREATE INDEX attribute_values_peo ON attribute_values (peo_id);

CREATE TABLE classifications (
    id INTEGER PRIMARY KEY AUTOINCREMENT,
    tid TEXT NOT NULL UNIQUE,
    created_at TEXT NOT NULL,
    modified_at TEXT NOT NULL
);

CREATE TABLE classification_names (
    classification_id INTEGER NOT NULL REFERENCES classifications (id) ON DELETE CASCADE,
    -- '' for the default name (no `loc`).
    loc TEXT NOT NULL,
    name TEXT NOT NULL,
    PRIMARY KEY (classification_id, loc)
);

CREATE TABLE classification_nodes (
    id INTEGER PRIMARY KEY AUTOINCREMENT,
    classification_id INTEGER NOT NULL REFERENCES classifications (id) ON DELETE CASCADE,
    parent_id INTEGER REFERENCES classification_nodes (id) ON DELETE CASCADE,
    identifier TEXT NOT NULL,
    path TEXT NOT NULL,
    position INTEGER NOT NULL,
    UNIQUE (classification_id, path)
);
CREATE INDEX classification_nodes_parent ON classification_nodes (parent_id);

CREATE TABLE node_names (
    node_id INTEGER NOT NULL REFERENCES classification_nodes (id) ON DELETE CASCADE,
    loc TEXT NOT NULL,
    name TEXT NOT NULL,
    PRIMARY KEY (node_id, loc)
);

CREATE TABLE node_attributes (
    id INTEGER PRIMARY KEY AUTOINCREMENT,
    node_id INTEGER NOT NULL REFERENCES classification_nodes (id) ON DELETE CASCADE,
    attribute_definition_id INTEGER NOT NULL REFERENCES attribute_definitions (id) ON DELETE CASCADE,
    level TEXT,
    inheritance TEXT,
    restriction TEXT,
    localized BOOLEAN NOT NULL DEFAULT FALSE,
    allow_new_value BOOLEAN,
    sort_direction TEXT,
    mode TEXT,
    default_value_tid TEXT,
    UNIQUE (node_id, attribute_definition_id)
);

CREATE TABLE domain_values (
    id INTEGER PRIMARY KEY AUTOINCREMENT,
    node_attribute_id INTEGER NOT NULL REFERENCES node_attributes (id) ON DELETE CASCADE,
    tid TEXT NOT NULL,
    position INTEGER NOT NULL,
    UNIQUE (node_attribute_id, tid)
);

CREATE TABLE domain_value_names (
    domain_value_id INTEGER NOT NULL REFERENCES domain_values (id) ON DELETE CASCADE,
    loc TEXT NOT NULL,
    value TEXT NOT NULL,
    PRIMARY KEY (domain_value_id, loc)
);

-- Products, assets and PEOs restricted to roles: callers holding none of them see
-- "… is not available by access rights".
CREATE TABLE access_restrictions (
    kind TEXT NOT NULL CHECK (kind IN ('asset', 'product', 'peo')),
    record_id INTEGER NOT NULL,
    role_id INTEGER NOT NULL REFERENCES roles (id) ON DELETE CASCADE,
    PRIMARY KEY (kind, record_id, role_id)
);
