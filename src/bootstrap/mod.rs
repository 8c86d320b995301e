//! Reference data no Core Interface operation creates (D-01), loaded from a JSON document by
//! `core-server import FILE` and `core-server serve --bootstrap FILE`.
//!
//! Loading is all-or-nothing (one transaction; a document that fails a check changes nothing and
//! the error names the record and the field) and idempotent: records are matched by `tid` (by
//! name for users, roles, channel types and components), so a second load updates them and never
//! duplicates them. Strings are held to the limits the document states for the fields they are
//! answered in (D-56). The format's JSON Schema is `openapi/bootstrap.schema.json`, generated
//! from the types of this module (`tests/bootstrap.rs` fails when it is stale).
//!
//! One file per record kind holds its types, its checks and its load; this file holds the
//! document, what the kinds share, and the order in which they are checked and written.

use std::{
    collections::{BTreeMap, HashSet},
    path::Path,
};

use schemars::JsonSchema;
use serde::Deserialize;
use sqlx::{Any, Transaction};

use self::progress::{Progress, Silent};
use crate::{
    auth,
    storage::{
        Database,
        import::{self, Lookup},
        now_utc, transfer,
    },
};

mod access;
mod assets;
mod briefings;
mod channels;
mod classifications;
pub mod export;
mod fields;
mod glossaries;
mod keywords;
mod locales;
mod localized;
mod messages;
mod peos;
mod products;
pub mod progress;
mod registry;
mod version;

pub use access::{Role, Token};
pub use assets::{Asset, AssetVersion, Content, Preview};
pub use briefings::{Briefing, BriefingBox, BriefingImage};
pub use channels::{AttributeValue, Channel, ValueItem};
pub use classifications::{
    Classification, ClassificationNode, Classified, DomainValue, NodeAttribute, PlacedProduct,
};
pub use glossaries::{Glossary, GlossaryEntry, Translation};
pub use keywords::Keyword;
pub use locales::Locale;
pub use localized::Localized;
pub use messages::Message;
pub use peos::Peo;
pub use products::{Product, ProductAsset};
pub use registry::AttributeDefinition;
pub use version::FORMAT_VERSION;

pub use fields::{Named, NamedRecord};
use fields::{counted, fits, fits_field, given, identifier, invalid, is_false, name, non_empty};

/// A bootstrap document.
#[derive(Debug, Default, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct Bootstrap {
    /// The version of the format the document is written in (1 when absent); a core-server
    /// refuses a document of a version newer than it reads.
    #[serde(default)]
    #[schemars(range(min = 1))]
    pub format_version: Option<u32>,
    /// Locales, by `tid` (`<language>_<COUNTRY>`).
    #[serde(default)]
    pub locales: Vec<Locale>,
    /// Component name to status, as `components/retrieve` answers it.
    #[serde(default)]
    pub components: BTreeMap<String, String>,
    /// Attribute definitions, by `tid`; product link types are attribute definitions with a
    /// cardinality.
    #[serde(default)]
    pub attribute_definitions: Vec<AttributeDefinition>,
    /// Channel types, by name (the values of a channel's `type`).
    #[serde(default)]
    pub channel_types: Vec<Named>,
    /// Attribute definitions (by `tid`) registered for channels: only these can be saved in a
    /// channel's `vals`.
    #[serde(default)]
    pub channel_attributes: Vec<String>,
    /// Glossaries with their entries, by `tid`.
    #[serde(default)]
    pub glossaries: Vec<Glossary>,
    /// Assets with their versions and previews, by `tid`.
    #[serde(default)]
    pub assets: Vec<Asset>,
    /// Products with their asset links, by `tid`.
    #[serde(default)]
    pub products: Vec<Product>,
    /// Keywords, by `path`; a parent is declared in the document (before or after its children)
    /// or stored already.
    #[serde(default)]
    pub keywords: Vec<Keyword>,
    /// Channels with their values and asset links, by `tid`; a parent is declared in the document
    /// (before or after its children) or stored already.
    #[serde(default)]
    pub channels: Vec<Channel>,
    /// PEOs with their nodes, channel links and values, by `tid`.
    #[serde(default)]
    pub peos: Vec<Peo>,
    /// Classifications with their nodes and node attributes, by `tid`.
    #[serde(default)]
    pub classifications: Vec<Classification>,
    /// Briefing layouts of channels, by channel, module configuration and locale.
    #[serde(default)]
    pub briefings: Vec<Briefing>,
    /// Users, by name.
    #[serde(default)]
    pub users: Vec<Named>,
    /// Roles and what they grant, by name.
    #[serde(default)]
    pub roles: Vec<Role>,
    /// Tokens with a known value, for test setups (`<selector>.<secret>`; only its hash is kept).
    #[serde(default)]
    pub tokens: Vec<Token>,
    /// Messages sent with `messages/persist`, by `tid` (never changed once stored).
    #[serde(default)]
    pub messages: Vec<Message>,
}

/// Why a document could not be loaded. Nothing was changed.
#[derive(Debug, thiserror::Error)]
pub enum BootstrapError {
    /// The file could not be read.
    #[error("cannot read {path}: {source}")]
    Read {
        /// The file.
        path: String,
        /// The cause.
        source: std::io::Error,
    },
    /// The document is not in the format.
    #[error("{path}: not a bootstrap document: {message}")]
    Format {
        /// The file.
        path: String,
        /// What serde found, with line and column.
        message: String,
    },
    /// The document is written in a newer version of the format than this core-server reads.
    #[error(
        "{path}: written in format version {version}, and this core-server reads versions up to \
         {FORMAT_VERSION}: import it with a newer core-server"
    )]
    NewerFormat {
        /// The file.
        path: String,
        /// The document's `formatVersion`.
        version: u64,
    },
    /// A record fails a check.
    #[error("{record}: {field}: {problem}")]
    Invalid {
        /// The record, such as `assets[2] (A-7)`.
        record: String,
        /// The field.
        field: String,
        /// What is wrong.
        problem: String,
    },
    /// Writing a record failed (a conflict with data already stored, say); the transaction was
    /// rolled back.
    #[error("{record}: cannot be written: {source}")]
    Write {
        /// The record.
        record: String,
        /// The database's answer.
        source: sqlx::Error,
    },
    /// The database failed; the transaction was rolled back.
    #[error("database error: {0}")]
    Database(#[from] sqlx::Error),
}

impl BootstrapError {
    /// Names the record a failed check is about, once it failed: a check of many records
    /// formats a record's name only when it is needed.
    fn of_record(self, record: impl FnOnce() -> String) -> BootstrapError {
        match self {
            BootstrapError::Invalid { field, problem, .. } => BootstrapError::Invalid {
                record: record(),
                field,
                problem,
            },
            other => other,
        }
    }

    /// Names the record a database failure happened at.
    fn within(self, record: impl FnOnce() -> String) -> BootstrapError {
        match self {
            BootstrapError::Database(source) => BootstrapError::Write {
                record: record(),
                source,
            },
            other => other,
        }
    }
}

/// What a load wrote.
#[derive(Debug, Default, Clone, PartialEq, Eq)]
pub struct Loaded {
    /// Records inserted or updated.
    pub records: usize,
    /// How the references of its keywords and names were checked (none written: as on SQLite).
    pub references: transfer::References,
}

/// Reads and loads a bootstrap file; binary files are resolved next to it.
pub async fn load_file(database: &Database, path: &Path) -> Result<Loaded, BootstrapError> {
    load_file_reporting(database, path, &mut Silent).await
}

/// Reads and loads a bootstrap file as [`load_file`] does, reporting to `progress`.
pub async fn load_file_reporting(
    database: &Database,
    path: &Path,
    progress: &mut dyn Progress,
) -> Result<Loaded, BootstrapError> {
    let shown = path.display().to_string();
    // The text is let go once read: the document's records are its own copy.
    let document = {
        let text = std::fs::read_to_string(path).map_err(|source| BootstrapError::Read {
            path: shown.clone(),
            source,
        })?;
        version::read(&text, &shown)?
    };
    let folder = path.parent().map(Path::to_path_buf).unwrap_or_default();
    let loaded = load_reporting(database, &document, &folder, progress).await;
    free_beside(document);
    loaded
}

/// Frees a document on a thread of its own, so that the caller goes on (the command ends)
/// without waiting: a million keywords take a quarter of a second to free. Freed here when no
/// thread can be started.
fn free_beside(document: Bootstrap) {
    let _ = std::thread::Builder::new()
        .name("free-document".to_string())
        .spawn(move || drop(document));
}

/// The demo catalogue `serve --demo` loads (`demo/demo.json`), embedded in the binary so that
/// the demo needs no file beside it (its binaries are inline base64).
pub const DEMO: &str = include_str!("../../demo/demo.json");

/// Reads the demo document.
pub fn demo() -> Result<Bootstrap, BootstrapError> {
    serde_json::from_str(DEMO).map_err(|error| BootstrapError::Format {
        path: "demo/demo.json".to_string(),
        message: error.to_string(),
    })
}

/// The token the demo document publishes.
pub fn demo_token() -> Option<String> {
    demo()
        .ok()?
        .tokens
        .first()
        .and_then(|token| token.token.clone())
}

/// Loads the demo document; answers what was loaded and the token it declares.
pub async fn load_demo(database: &Database) -> Result<(Loaded, Option<String>), BootstrapError> {
    let document = demo()?;
    let loaded = load(database, &document, Path::new(".")).await?;
    Ok((
        loaded,
        document
            .tokens
            .first()
            .and_then(|token| token.token.clone()),
    ))
}

/// Records of a load from which on PostgreSQL's statistics are gathered before its commit
/// (`storage::transfer::analyze`): a fixture's few records leave them as they are.
const ANALYZED_LOAD: usize = 10_000;

/// Loads a document in one transaction.
pub async fn load(
    database: &Database,
    document: &Bootstrap,
    folder: &Path,
) -> Result<Loaded, BootstrapError> {
    load_reporting(database, document, folder, &mut Silent).await
}

/// Loads a document in one transaction, reporting to `progress` as each kind of record is
/// written.
pub async fn load_reporting(
    database: &Database,
    document: &Bootstrap,
    folder: &Path,
    progress: &mut dyn Progress,
) -> Result<Loaded, BootstrapError> {
    let declared = check(document)?;
    let mut binaries = assets::read_binaries(document, folder)?.into_iter();
    let mut transaction = database.write().await?;
    // A load runs alone, like a batch run again after a deadlock (D-14): on SQLite its write
    // transaction already does.
    database.lock_batches(&mut transaction, true).await?;
    import::widen_cache(&mut transaction).await?;
    let mut loader = Loader {
        transaction: &mut transaction,
        now: now_utc(),
        loaded: Loaded::default(),
        progress,
    };
    let written = loader.write(document, declared, &mut binaries).await;
    let loaded = loader.loaded;
    import::narrow_cache(&mut transaction).await?;
    written?;
    transfer::continue_after_ids(&mut transaction).await?;
    if loaded.records >= ANALYZED_LOAD {
        transfer::analyze(&mut transaction).await?;
    }
    transaction.commit().await?;
    Ok(loaded)
}

/// Checks what can be checked before writing: formats, lengths, allowed values, references
/// within the document or to records the document declares, duplicates; kind by kind. Answers
/// the document's keywords by path, which the load reads again.
fn check(document: &Bootstrap) -> Result<keywords::Declared<'_>, BootstrapError> {
    version::check(document)?;
    let mut checks = Checks::of(document);
    locales::check(document, &mut checks)?;
    registry::check(document, &mut checks)?;
    glossaries::check(document, &mut checks)?;
    assets::check(document, &mut checks)?;
    channels::check(document, &mut checks)?;
    peos::check(document, &mut checks)?;
    classifications::check(document, &mut checks)?;
    products::check(document, &mut checks)?;
    let declared = keywords::check(document, &mut checks)?;
    briefings::check(document, &mut checks)?;
    access::check(document, &mut checks)?;
    messages::check(document, &mut checks)?;
    Ok(declared)
}

/// What the checks of the record kinds share: the identities declared so far, and what the
/// document declares for references to it.
struct Checks<'d> {
    /// `(kind, tid)` of every record checked so far.
    seen: HashSet<(&'static str, &'d str)>,
    /// The attribute definitions of the document, by `tid`.
    definitions: HashSet<&'d str>,
    /// The assets of the document, by `tid`.
    assets: HashSet<&'d str>,
    /// The roles the document declares or names (and `admin`).
    roles: HashSet<&'d str>,
}

impl<'d> Checks<'d> {
    fn of(document: &'d Bootstrap) -> Checks<'d> {
        Checks {
            seen: HashSet::new(),
            definitions: document
                .attribute_definitions
                .iter()
                .map(|definition| definition.tid.as_str())
                .collect(),
            assets: document
                .assets
                .iter()
                .map(|asset| asset.tid.as_str())
                .collect(),
            roles: document
                .roles
                .iter()
                .map(|role| role.name.as_str())
                .chain(
                    document
                        .tokens
                        .iter()
                        .flat_map(|token| token.roles.iter().map(String::as_str)),
                )
                .chain([auth::ADMIN])
                .collect(),
        }
    }

    /// Refuses a `tid` declared twice among one kind of records.
    fn unique(
        &mut self,
        kind: &'static str,
        tid: &'d str,
        record: String,
    ) -> Result<(), BootstrapError> {
        if !self.seen.insert((kind, tid)) {
            return Err(invalid(
                record,
                "tid",
                format!("'{tid}' is declared twice among the {kind}"),
            ));
        }
        Ok(())
    }

    /// Refuses a restriction to a role the document does not know.
    fn known_roles(&self, record: &str, roles: &[String]) -> Result<(), BootstrapError> {
        match roles
            .iter()
            .find(|role| !self.roles.contains(role.as_str()))
        {
            Some(role) => Err(invalid(
                record.to_string(),
                "restrictedTo",
                format!("'{role}' is not a role of the document"),
            )),
            None => Ok(()),
        }
    }
}

/// Writes a checked document inside one transaction, kind by kind.
struct Loader<'t, 'c> {
    transaction: &'t mut Transaction<'c, Any>,
    now: String,
    loaded: Loaded,
    progress: &'t mut dyn Progress,
}

impl Loader<'_, '_> {
    async fn write(
        &mut self,
        document: &Bootstrap,
        declared: keywords::Declared<'_>,
        binaries: &mut std::vec::IntoIter<assets::Binary>,
    ) -> Result<(), BootstrapError> {
        let count = |length: usize| u64::try_from(length).unwrap_or(u64::MAX);
        // Users and roles first: the records restricted to a role name it, and a role named
        // before it is declared would take the next id rather than the one declared.
        let access = document.users.len() + document.roles.len() + document.tokens.len();
        self.progress.start("access", count(access));
        self.access(document).await?;
        self.progress.finish();
        self.progress
            .start("locales", count(document.locales.len()));
        self.locales(document).await?;
        self.progress.finish();
        let registry = document.components.len()
            + document.attribute_definitions.len()
            + document.channel_types.len()
            + document.channel_attributes.len();
        self.progress.start("registry", count(registry));
        self.registry(document).await?;
        self.progress.finish();
        self.progress
            .start("glossaries", count(document.glossaries.len()));
        self.glossaries(document).await?;
        self.progress.finish();
        self.progress.start("assets", count(document.assets.len()));
        self.assets(document, binaries).await?;
        self.progress.finish();
        self.progress
            .start("products", count(document.products.len()));
        self.products(document).await?;
        self.progress.finish();
        self.progress
            .start("keywords", count(document.keywords.len()));
        self.keywords(document, declared).await?;
        self.progress.finish();
        self.progress
            .start("channels", count(document.channels.len()));
        self.channels(document).await?;
        self.progress.finish();
        self.progress.start("peos", count(document.peos.len()));
        self.peos(document).await?;
        self.progress.finish();
        self.progress
            .start("classifications", count(document.classifications.len()));
        self.classifications(document).await?;
        self.progress.finish();
        self.progress
            .start("briefings", count(document.briefings.len()));
        self.briefings(document).await?;
        self.progress.finish();
        self.progress
            .start("messages", count(document.messages.len()));
        self.messages(document).await?;
        self.progress.finish();
        Ok(())
    }

    /// The id of a record that is stored (it was just written).
    async fn id(&mut self, lookup: Lookup, key: &str) -> Result<i64, BootstrapError> {
        Ok(import::stored_id(self.transaction, lookup, key).await?)
    }

    /// The id of a record by its identity, or an error naming the record and the field.
    async fn find(
        &mut self,
        lookup: Lookup,
        key: &str,
        record: &str,
        field: &str,
        what: &str,
    ) -> Result<i64, BootstrapError> {
        match import::id_of(self.transaction, lookup, key).await? {
            Some(id) => Ok(id),
            None => Err(invalid(
                record.to_string(),
                field,
                format!("'{key}' is not {what} declared before it or stored"),
            )),
        }
    }

    /// Replaces the roles a record is restricted to (each created if new).
    async fn restrict(
        &mut self,
        kind: &str,
        id: i64,
        roles: &[String],
    ) -> Result<(), BootstrapError> {
        let mut ids = Vec::with_capacity(roles.len());
        for role in roles {
            ids.push(auth::ensure_role(self.transaction, role).await?);
        }
        Ok(import::restrict(self.transaction, kind, id, &ids).await?)
    }
}

/// The JSON Schema of the format, as committed in `openapi/bootstrap.schema.json`.
pub fn json_schema() -> String {
    let schema = schemars::schema_for!(Bootstrap);
    serde_json::to_string_pretty(&schema).unwrap_or_default() + "\n"
}
