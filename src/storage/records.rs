//! Finding a stored record by its identity (numeric id, tid, or a keyword's path): the one lookup
//! every resource shares, and the roles a restricted record is limited to (per-item access rights,
//! specification "Authentication" 4). Every query is fixed text with a placeholder per value.

use sqlx::{
    Any, AnyConnection, Executor, FromRow,
    any::{AnyArguments, AnyRow},
    query::QueryAs,
};

use super::{Database, read};

/// How a request addresses a stored record.
#[derive(Debug, Clone, Copy)]
pub(crate) enum Identity<'a> {
    /// By its numeric identifier.
    Id(i64),
    /// By its textual key: its tid, or a keyword's path.
    Key(&'a str),
}

impl<'a> Identity<'a> {
    /// How an item names a record by `tid` and `id`: by its `tid` when it gives one, else by
    /// its `id` (none when it gives neither).
    pub(crate) fn preferring_tid(tid: Option<&'a str>, id: Option<i64>) -> Option<Identity<'a>> {
        match (tid, id) {
            (Some(tid), _) => Some(Identity::Key(tid)),
            (None, Some(id)) => Some(Identity::Id(id)),
            (None, None) => None,
        }
    }

    /// The statement that finds by this identity, `by_id` or `by_key`, with it bound as `$1`.
    pub(crate) fn query_as<R>(
        self,
        by_id: &'static str,
        by_key: &'static str,
    ) -> QueryAs<'static, Any, R, AnyArguments>
    where
        R: for<'r> FromRow<'r, AnyRow>,
    {
        match self {
            Identity::Id(id) => sqlx::query_as(by_id).bind(id),
            Identity::Key(key) => sqlx::query_as(by_key).bind(key.to_string()),
        }
    }
}

/// A kind of stored record: the queries that find it by id and by textual key, and the kind
/// under which access restrictions name it, if it can be restricted.
#[derive(Debug)]
pub(crate) struct Resource {
    by_id: &'static str,
    by_key: &'static str,
    restriction: Option<Restriction>,
}

/// How the access restrictions of a kind of record are read: one record by id and by key with
/// its roles, in one statement. (A list of records reads its roles in the statement that reads
/// it: PEO retrieve and query, channel retrieve.)
#[derive(Debug)]
struct Restriction {
    by_id: &'static str,
    by_key: &'static str,
}

/// Declares a [`Resource`] from its table and key column (and the kind under which its records
/// are restricted), its queries written out at compile time.
macro_rules! resource {
    ($(#[$doc:meta])* $name:ident, $table:literal, $key:literal) => {
        $(#[$doc])*
        pub(crate) const $name: Resource = Resource {
            by_id: sql!(concat!("SELECT id, ", $key, " AS key FROM ", $table, " WHERE id = $1")),
            by_key: sql!(concat!(
                "SELECT id, ", $key, " AS key FROM ", $table, " WHERE ", $key, " = $1"
            )),
            restriction: None,
        };
    };
    ($(#[$doc:meta])* $name:ident, $table:literal, $key:literal, restricted as $kind:literal) => {
        $(#[$doc])*
        pub(crate) const $name: Resource = Resource {
            by_id: sql!(concat!("SELECT id, ", $key, " AS key FROM ", $table, " WHERE id = $1")),
            by_key: sql!(concat!(
                "SELECT id, ", $key, " AS key FROM ", $table, " WHERE ", $key, " = $1"
            )),
            restriction: Some(Restriction {
                by_id: sql!(concat!(
                    "SELECT t.id, r.name AS role FROM ", $table, " t LEFT JOIN \
                     access_restrictions ar ON ar.kind = '", $kind, "' AND ar.record_id = t.id \
                     LEFT JOIN roles r ON r.id = ar.role_id WHERE t.id = $1 ORDER BY r.name"
                )),
                by_key: sql!(concat!(
                    "SELECT t.id, r.name AS role FROM ", $table, " t LEFT JOIN \
                     access_restrictions ar ON ar.kind = '", $kind, "' AND ar.record_id = t.id \
                     LEFT JOIN roles r ON r.id = ar.role_id WHERE t.", $key, " = $1 \
                     ORDER BY r.name"
                )),
            }),
        };
    };
}

resource!(
    /// Keywords, whose textual key is their path.
    KEYWORDS, "keywords", "path"
);
resource!(
    /// Glossaries.
    GLOSSARIES, "glossaries", "tid"
);
resource!(
    /// Glossary entries.
    GLOSSARY_ENTRIES, "glossary_entries", "tid"
);
resource!(
    /// Channels (`project`).
    CHANNELS, "channels", "tid"
);
resource!(
    /// Locales.
    LOCALES, "locales", "tid"
);
resource!(
    /// Classifications.
    CLASSIFICATIONS, "classifications", "tid"
);
resource!(
    /// Attribute definitions.
    ATTRIBUTE_DEFINITIONS, "attribute_definitions", "tid"
);
resource!(
    /// Assets, which may be restricted to roles.
    ASSETS, "assets", "tid", restricted as "asset"
);
resource!(
    /// Products, which may be restricted to roles.
    PRODUCTS, "products", "tid", restricted as "product"
);
resource!(
    /// PEOs, which may be restricted to roles.
    PEOS, "peos", "tid", restricted as "peo"
);

/// A record found: its id and its textual key (absent for a glossary entry without a tid).
#[derive(Debug, sqlx::FromRow)]
pub(crate) struct Found {
    /// The numeric identifier.
    pub(crate) id: i64,
    /// The tid, or a keyword's path.
    pub(crate) key: Option<String>,
}

/// Finds a record by its identity.
pub(crate) async fn find<'e>(
    executor: impl Executor<'e, Database = Any>,
    resource: &Resource,
    identity: Identity<'_>,
) -> Result<Option<Found>, sqlx::Error> {
    identity
        .query_as(resource.by_id, resource.by_key)
        .fetch_optional(executor)
        .await
}

/// Finds a record by its identity outside any transaction, as a read of its own
/// (`read::optional`).
pub(crate) async fn find_read(
    database: &Database,
    resource: &Resource,
    identity: Identity<'_>,
) -> Result<Option<Found>, sqlx::Error> {
    read::optional(database, || {
        identity.query_as(resource.by_id, resource.by_key)
    })
    .await
}

/// A record found with one role it is restricted to (none when it is not restricted): one row
/// per role.
#[derive(Debug, sqlx::FromRow)]
struct RestrictedRow {
    /// The numeric identifier.
    id: i64,
    /// A role the record is restricted to.
    role: Option<String>,
}

/// Finds a record that may be restricted to roles: its id and those roles (none: everybody), in
/// one statement.
pub(crate) async fn find_restricted(
    connection: &mut AnyConnection,
    resource: &Resource,
    identity: Identity<'_>,
) -> Result<Option<(i64, Vec<String>)>, sqlx::Error> {
    let Some(restriction) = &resource.restriction else {
        let found = find(connection, resource, identity).await?;
        return Ok(found.map(|found| (found.id, Vec::new())));
    };
    let rows: Vec<RestrictedRow> = identity
        .query_as(restriction.by_id, restriction.by_key)
        .fetch_all(connection)
        .await?;
    let Some(id) = rows.first().map(|row| row.id) else {
        return Ok(None);
    };
    Ok(Some((
        id,
        rows.into_iter().filter_map(|row| row.role).collect(),
    )))
}
