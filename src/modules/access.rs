//! Per-item access rights (specification, "Authentication" 4): assets, products and PEOs may be
//! restricted to roles; an operation that meets one the caller may not see reports the item as
//! "… is not available by access rights".

use sqlx::Row;

use super::batch::Tx;

/// A record addressed by `tid` or by numeric id.
pub(crate) enum Key<'a> {
    /// By its textual identifier (for keywords, its path).
    Tid(&'a str),
    /// By its numeric identifier.
    Id(i64),
}

/// The kinds of records that can be restricted to roles.
#[derive(Clone, Copy)]
pub(crate) enum Restricted {
    /// An asset.
    Asset,
    /// A product.
    Product,
    /// A PEO.
    Peo,
}

impl Restricted {
    /// Its `kind` in `access_restrictions`, and its table.
    fn names(self) -> (&'static str, &'static str) {
        match self {
            Restricted::Asset => ("asset", "assets"),
            Restricted::Product => ("product", "products"),
            Restricted::Peo => ("peo", "peos"),
        }
    }
}

/// Finds a restrictable record: its id and the roles it is restricted to (none: everybody).
pub(crate) async fn restricted(
    transaction: &mut Tx,
    kind: Restricted,
    key: &Key<'_>,
) -> Result<Option<(i64, Vec<String>)>, sqlx::Error> {
    let (kind, table) = kind.names();
    let column = match key {
        Key::Tid(_) => "tid",
        Key::Id(_) => "id",
    };
    // Table and column come from the fixed names above.
    let query = sqlx::query(sqlx::AssertSqlSafe(format!(
        "SELECT t.id, r.name AS role FROM {table} t \
         LEFT JOIN access_restrictions ar ON ar.kind = $2 AND ar.record_id = t.id \
         LEFT JOIN roles r ON r.id = ar.role_id WHERE t.{column} = $1"
    )));
    let query = match key {
        Key::Tid(tid) => query.bind(*tid),
        Key::Id(id) => query.bind(*id),
    };
    let rows = query.bind(kind).fetch_all(&mut **transaction).await?;
    let Some(first) = rows.first() else {
        return Ok(None);
    };
    let id: i64 = first.try_get("id")?;
    let mut roles = Vec::new();
    for row in &rows {
        if let Some(role) = row.try_get::<Option<String>, _>("role")? {
            roles.push(role);
        }
    }
    Ok(Some((id, roles)))
}
