//! Which command made a database, so that the demo's public token stays in the demo's own
//! database (D-02): the first command that opens a database writes its name there;
//! `serve --demo` refuses a database another command made, and a server without `--demo`
//! refuses the demo's published token ([`published_selectors`]).

use crate::storage::{Database, access, now_utc};

/// What `serve --demo` writes as the maker of its database.
pub const DEMO: &str = "serve --demo";

/// Why `serve --demo` refuses a database.
#[derive(Debug, thiserror::Error)]
pub enum OriginError {
    /// The database failed.
    #[error("database error: {0}")]
    Database(#[from] sqlx::Error),
    /// Another command made the database.
    #[error(
        "--demo refuses this database: {made_by} made it, and the demo would put its public token \
         in it; let the demo have a database of its own (the default of --demo is {})",
        crate::settings::DEFAULT_DEMO_DATABASE_URL
    )]
    NotTheDemos {
        /// Who made it, as said to the operator.
        made_by: String,
    },
}

/// Writes `command` (`serve`, `import`, `token`, …) as the maker of the database unless a
/// command did already.
pub async fn claim(database: &Database, command: &str) -> Result<(), OriginError> {
    access::claim_origin(database.writes(), command, &now_utc()).await?;
    Ok(())
}

/// Claims the database for the demo, or refuses it when another command made it (or, in a
/// database older than this record, when it holds tokens besides the demo's); whether the demo
/// catalogue is still to be loaded (its token is not there yet). A demo database keeps what was
/// changed in it: the catalogue is loaded once, not at every start.
pub async fn claim_for_demo(database: &Database) -> Result<bool, OriginError> {
    let demo_token = published_selectors();
    let selector = demo_token.first().map_or("", String::as_str);
    let pool = database.writes();
    if access::origin(pool).await?.is_none() && access::tokens_besides(pool, selector).await? {
        return Err(OriginError::NotTheDemos {
            made_by: "an earlier version of core-server (it holds tokens of its own)".into(),
        });
    }
    let made_by = access::claim_origin(pool, DEMO, &now_utc()).await?;
    if made_by != DEMO {
        return Err(OriginError::NotTheDemos {
            made_by: format!("`core-server {made_by}`"),
        });
    }
    Ok(!access::token_exists(pool, selector).await?)
}

/// The selectors of the tokens the demo document publishes.
pub fn published_selectors() -> Vec<String> {
    crate::bootstrap::demo()
        .map(|document| {
            document
                .tokens
                .iter()
                .filter_map(|token| token.selector().map(str::to_string))
                .collect()
        })
        .unwrap_or_default()
}
