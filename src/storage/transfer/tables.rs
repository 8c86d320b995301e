//! The tables `core-server migrate` copies, in an order that writes every referenced row before
//! the rows that refer to it, and the statements each is copied with, written by [`table!`] from
//! its columns. `tests/transfer.rs` holds the list equal to both schemas (every table but
//! [`NOT_COPIED`], every column with its kind), so a migration that adds a table or a column
//! fails until it is listed here.

/// How a column is read from one database and written into the other.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Kind {
    /// An integer (`INTEGER`, `BIGINT`), read as a 64-bit one.
    Int,
    /// Text.
    Text,
    /// A boolean (`BOOLEAN`; SQLite stores 0 or 1), read as an integer.
    Flag,
    /// Bytes (`BLOB`, `BYTEA`), carried as hexadecimal text.
    Bytes,
}

/// A column of a copied table.
#[derive(Debug)]
pub struct Column {
    /// Its name, the same in both schemas.
    pub name: &'static str,
    /// How it is carried.
    pub kind: Kind,
}

/// A table `migrate` copies, and the statements it is copied with.
#[derive(Debug)]
pub struct Table {
    /// Its name.
    pub name: &'static str,
    /// Its columns; the first one of an [`identity`](Self::identity) table is `id`.
    pub columns: &'static [Column],
    /// Whether its `id` comes from a sequence (`AUTOINCREMENT`, an identity column), which the
    /// target continues where the source's stood.
    pub identity: bool,
    /// Whether its `parent_id` refers to itself: its rows are read parents first.
    pub tree: bool,
    /// Counts its rows.
    pub(super) count: &'static str,
    /// Reads every row, each after its parent in a table that refers to itself.
    pub(super) select: &'static str,
    /// Writes the rows of a JSON array of objects on SQLite.
    pub(super) insert_sqlite: &'static str,
    /// The same on PostgreSQL.
    pub(super) insert_postgres: &'static str,
    /// Gathers PostgreSQL's statistics of it (no plan to check: not a query).
    pub(super) analyze: &'static str,
}

/// A table of the schema `migrate` leaves out: the target keeps its own rows of it.
#[derive(Debug)]
pub struct LeftOut {
    /// Its name.
    pub name: &'static str,
    /// Why the target's own rows are the right ones.
    pub why: &'static str,
}

/// The tables `migrate` leaves out.
pub const NOT_COPIED: &[LeftOut] = &[
    LeftOut {
        name: "access_revision",
        why: "a counter that tells instances to reload access rights; the target's own moves with every write",
    },
    LeftOut {
        name: "_sqlx_migrations",
        why: "the schema's history, made by the target's own migrations",
    },
    LeftOut {
        name: "sqlite_sequence",
        why: "SQLite's sequences, continued through `Table::identity`",
    },
];

/// A column's expression in the select (integers and booleans cast, so that `sqlx::Any` reads
/// every backend's type as a 64-bit integer).
macro_rules! read {
    (Int, $column:ident) => {
        concat!("CAST(copied.", stringify!($column), " AS BIGINT)")
    };
    (Flag, $column:ident) => {
        concat!("CAST(copied.", stringify!($column), " AS INTEGER)")
    };
    ($kind:ident, $column:ident) => {
        concat!("copied.", stringify!($column))
    };
}

/// A column's value in SQLite's insert, from the row object `copied.value` of `json_each`.
macro_rules! from_sqlite {
    (Bytes, $column:ident) => {
        concat!("unhex(copied.value ->> '", stringify!($column), "')")
    };
    ($kind:ident, $column:ident) => {
        concat!("copied.value ->> '", stringify!($column), "'")
    };
}

/// A column's value in PostgreSQL's insert, from the record `copied` of `json_to_recordset`
/// (read once, so not parsed into `jsonb` first).
macro_rules! from_postgres {
    (Bytes, $column:ident) => {
        concat!("decode(copied.", stringify!($column), ", 'hex')")
    };
    ($kind:ident, $column:ident) => {
        concat!("copied.", stringify!($column))
    };
}

/// A column's declaration in PostgreSQL's record type.
macro_rules! declared {
    (Int, $column:ident) => {
        concat!(stringify!($column), " BIGINT")
    };
    (Flag, $column:ident) => {
        concat!(stringify!($column), " BOOLEAN")
    };
    ($kind:ident, $column:ident) => {
        concat!(stringify!($column), " TEXT")
    };
}

/// The rows of a table (`flat`), each after its parent when the table refers to itself by
/// `parent_id` (`tree`; breadth first: a parent's id may be greater than its child's after a
/// move).
macro_rules! rows {
    (flat, $table:ident, $columns:expr) => {
        concat!("SELECT ", $columns, " FROM ", stringify!($table), " copied")
    };
    (tree, $table:ident, $columns:expr) => {
        concat!(
            "WITH RECURSIVE tree (id, depth) AS (SELECT id, 0 FROM ",
            stringify!($table),
            " WHERE parent_id IS NULL UNION ALL SELECT child.id, tree.depth + 1 FROM ",
            stringify!($table),
            " child JOIN tree ON child.parent_id = tree.id) SELECT ",
            $columns,
            " FROM ",
            stringify!($table),
            " copied JOIN tree ON tree.id = copied.id ORDER BY tree.depth, copied.id"
        )
    };
}

/// A [`Table`]: `table!(name: identity|keyed, flat|tree [column: Kind, …])`. `identity` marks
/// a table whose `id` (its first column) comes from a sequence; `tree` one whose `parent_id`
/// refers to itself.
macro_rules! table {
    ($table:ident: $identity:ident, $order:ident [$first:ident: $kind:ident $(, $column:ident: $kinds:ident)* $(,)?]) => {
        Table {
            name: stringify!($table),
            columns: &[
                Column { name: stringify!($first), kind: Kind::$kind },
                $(Column { name: stringify!($column), kind: Kind::$kinds },)*
            ],
            identity: table!(@$identity),
            tree: table!(@$order),
            count: sql!(concat!("SELECT COUNT(*) FROM ", stringify!($table), " copied")),
            select: sql!(rows!(
                $order,
                $table,
                concat!(read!($kind, $first) $(, ", ", read!($kinds, $column))*)
            )),
            insert_sqlite: sql!(sqlite: concat!(
                "INSERT INTO ", stringify!($table), " (", stringify!($first),
                $(", ", stringify!($column),)* ") SELECT ",
                from_sqlite!($kind, $first) $(, ", ", from_sqlite!($kinds, $column))*,
                " FROM json_each($1) copied"
            )),
            insert_postgres: sql!(postgres: concat!(
                "INSERT INTO ", stringify!($table), " (", stringify!($first),
                $(", ", stringify!($column),)* ") SELECT ",
                from_postgres!($kind, $first) $(, ", ", from_postgres!($kinds, $column))*,
                " FROM json_to_recordset(CAST($1 AS JSON)) AS copied (",
                declared!($kind, $first) $(, ", ", declared!($kinds, $column))*, ")"
            )),
            analyze: concat!("ANALYZE ", stringify!($table)),
        }
    };
    (@identity) => { true };
    (@keyed) => { false };
    (@tree) => { true };
    (@flat) => { false };
}

/// Every copied table, each after the tables it refers to.
pub static TABLES: &[Table] = &[
    table!(users: identity, flat [id: Int, name: Text, created_at: Text]),
    table!(roles: identity, flat [id: Int, name: Text]),
    table!(role_grants: keyed, flat [role_id: Int, kind: Text, name: Text]),
    table!(tokens: identity, flat [id: Int, selector: Text, secret_hash: Text, user_id: Int, created_at: Text, revoked_at: Text, expires_at: Text]),
    table!(token_roles: keyed, flat [token_id: Int, role_id: Int]),
    table!(locales: identity, flat [id: Int, tid: Text, language: Text, country: Text, name: Text, content_locale: Flag, default_content_locale: Flag, frontend_locale: Flag, default_frontend_locale: Flag, date_format: Text, custom_date_formats_enabled: Flag]),
    table!(assets: identity, flat [id: Int, tid: Text, name: Text, path: Text, created_at: Text, modified_at: Text]),
    table!(asset_versions: identity, flat [id: Int, asset_id: Int, version_number: Int, tid: Text, media_type: Text, file_name: Text, content: Bytes, created_at: Text, size: Int, etag: Text]),
    table!(asset_previews: keyed, flat [version_id: Int, format: Text, media_type: Text, content: Bytes, size: Int, etag: Text]),
    table!(keywords: identity, tree [id: Int, parent_id: Int, name: Text, path: Text, order_number: Int, created_at: Text, sort_key: Text]),
    table!(keyword_names: keyed, flat [keyword_id: Int, loc: Text, name: Text]),
    table!(keyword_assets: keyed, flat [keyword_id: Int, asset_id: Int]),
    table!(glossaries: identity, flat [id: Int, tid: Text, name: Text, languages: Text, created_at: Text]),
    table!(glossary_entries: identity, flat [id: Int, tid: Text, glossary_id: Int, loc: Text, type: Text, value: Text, forbidden: Flag, last_edited_username: Text, last_edited_date: Text]),
    table!(glossary_translations: identity, flat [id: Int, entry_id: Int, loc: Text, mode: Text, type: Text, similarity: Int, value: Text, forbidden: Flag, last_edited_username: Text, last_edited_date: Text]),
    table!(messages: identity, flat [id: Int, tid: Text, subject: Text, body: Text, severity: Text, recipient_user: Text, recipient_role: Text, sender_application: Text, sender_plugin: Text, parameters: Text, created_at: Text, sender_user: Text]),
    table!(components: keyed, flat [name: Text, status: Text]),
    table!(attribute_definitions: identity, flat [id: Int, tid: Text, type: Text, cardinality: Int, created_at: Text]),
    table!(channel_types: identity, flat [id: Int, name: Text]),
    table!(channel_attributes: keyed, flat [attribute_definition_id: Int]),
    table!(channels: identity, tree [id: Int, tid: Text, parent_id: Int, type_id: Int, order_sequence: Int, name: Text, html_icon: Text, icon: Text, allowed_functions: Text, created_at: Text, modified_at: Text]),
    table!(channel_assets: keyed, flat [channel_id: Int, asset_id: Int]),
    table!(briefing_layouts: identity, flat [id: Int, channel_id: Int, module_cfg_tid: Text, locale: Text, layout_key: Text, name: Text, attributes: Text]),
    table!(briefing_boxes: identity, flat [id: Int, layout_id: Int, box_key: Text, layer: Text, name: Text, type: Text, position: Int, attributes: Text]),
    table!(briefing_images: identity, flat [id: Int, box_id: Int, type: Text, position: Int, attributes: Text]),
    table!(products: identity, flat [id: Int, tid: Text, name: Text, created_at: Text]),
    table!(product_assets: keyed, flat [product_id: Int, asset_id: Int, link_type_id: Int, position: Int]),
    table!(peos: identity, flat [id: Int, tid: Text, product_id: Int, template: Text, is_default: Flag, name: Text, created_at: Text, modified_at: Text]),
    table!(peo_nodes: keyed, flat [peo_id: Int, position: Int, node: Text]),
    table!(peo_channels: keyed, flat [peo_id: Int, channel_id: Int]),
    table!(attribute_values: identity, flat [id: Int, channel_id: Int, peo_id: Int, attribute_definition_id: Int, type: Text, origin: Text, node: Text, data_type: Text, pos: Int, loc: Text, value: Text]),
    table!(classifications: identity, flat [id: Int, tid: Text, created_at: Text, modified_at: Text]),
    table!(classification_names: keyed, flat [classification_id: Int, loc: Text, name: Text]),
    table!(classification_nodes: identity, tree [id: Int, classification_id: Int, parent_id: Int, identifier: Text, path: Text, position: Int]),
    table!(node_names: keyed, flat [node_id: Int, loc: Text, name: Text]),
    table!(node_attributes: identity, flat [id: Int, node_id: Int, attribute_definition_id: Int, level: Text, inheritance: Text, restriction: Text, localized: Flag, allow_new_value: Flag, sort_direction: Text, mode: Text, default_value_tid: Text]),
    table!(domain_values: identity, flat [id: Int, node_attribute_id: Int, tid: Text, position: Int]),
    table!(domain_value_names: keyed, flat [domain_value_id: Int, loc: Text, value: Text]),
    table!(access_restrictions: keyed, flat [kind: Text, record_id: Int, role_id: Int]),
    table!(product_nodes: keyed, flat [product_id: Int, node_id: Int, position: Int]),
    table!(binary_chunks: keyed, flat [version_id: Int, format: Text, seq: Int, data: Bytes]),
    table!(database_origin: keyed, flat [id: Int, made_by: Text, created_at: Text]),
    table!(token_uses: keyed, flat [token_id: Int, last_used_at: Text]),
    table!(idempotency_keys: keyed, flat [user_name: Text, idem_key: Text, operation: Text, fingerprint: Text, answer: Text, created_at: Text, expires_at: Text]),
];
