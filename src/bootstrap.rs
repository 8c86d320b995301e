//! Reference data no Core Interface operation creates (D-01), loaded from a JSON document by
//! `core-server import FILE` and `core-server serve --bootstrap FILE`.
//!
//! Loading is all-or-nothing (one transaction; a document that fails a check changes nothing and
//! the error names the record and the field) and idempotent: records are matched by `tid` (by
//! name for users, roles, channel types and components), so a second load updates them and never
//! duplicates them. The format's JSON Schema is `openapi/bootstrap.schema.json`, generated from
//! the types below (`tests/bootstrap.rs` fails when it is stale).

use std::{
    collections::{BTreeMap, HashSet},
    path::{Path, PathBuf},
};

use base64::Engine;
use core_api::tables;
use core_api_support::Kind;
use schemars::JsonSchema;
use serde::Deserialize;
use sqlx::{Any, Row, Transaction};

use crate::{
    auth::{self, Grant},
    storage::{Database, now_utc},
};

mod catalogue;

pub use catalogue::{
    AttributeValue, Briefing, BriefingBox, BriefingImage, Channel, Classification,
    ClassificationNode, DomainValue, NodeAttribute, Peo, ValueItem,
};

/// A bootstrap document.
#[derive(Debug, Default, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct Bootstrap {
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
    pub channel_types: Vec<String>,
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
    /// Keywords, by `path`; a parent comes before its children (or is stored already).
    #[serde(default)]
    pub keywords: Vec<Keyword>,
    /// Channels with their values and asset links, by `tid`; a parent comes before its children
    /// (or is stored already).
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
    pub users: Vec<String>,
    /// Roles and what they grant, by name.
    #[serde(default)]
    pub roles: Vec<Role>,
    /// Tokens with a known value, for test setups (`<selector>.<secret>`; only its hash is kept).
    #[serde(default)]
    pub tokens: Vec<Token>,
}

/// A locale.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct Locale {
    /// `<language>_<COUNTRY>`, such as `de_DE`.
    pub tid: String,
    /// The language code (`de`).
    pub language: String,
    /// The country code (`DE`).
    pub country: String,
    /// The display name.
    pub name: String,
    /// A content locale.
    #[serde(default)]
    pub content_locale: bool,
    /// The default content locale.
    #[serde(default)]
    pub default_content_locale: bool,
    /// A frontend locale.
    #[serde(default)]
    pub frontend_locale: bool,
    /// The default frontend locale.
    #[serde(default)]
    pub default_frontend_locale: bool,
    /// The date format (`config` `dateFormat`).
    #[serde(default)]
    pub date_format: Option<String>,
    /// Whether custom date formats are enabled.
    #[serde(default)]
    pub custom_date_formats_enabled: bool,
}

/// An attribute definition.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct AttributeDefinition {
    /// The identifier (a node attribute's `key`, a product link type).
    pub tid: String,
    /// One of `text`, `date`, `number`, `boolean`, `ref`, `table`.
    #[serde(rename = "type")]
    pub type_: String,
    /// As a product link type: how many assets a product may link with it.
    #[serde(default)]
    pub cardinality: Option<i64>,
}

/// The attribute definition types, as the document lists them (`AttributeDefinitionsQuery.types`).
fn attribute_types() -> &'static [&'static str] {
    match tables::ATTRIBUTE_DEFINITIONS_QUERY.kind {
        Kind::Object(fields) => fields
            .iter()
            .find(|field| field.name == "types")
            .map_or(&[], |field| field.allowed),
        _ => &[],
    }
}

/// A glossary and its entries.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct Glossary {
    /// The identifier.
    pub tid: String,
    /// The name.
    pub name: String,
    /// Its locales, by `tid`.
    #[serde(default)]
    pub languages: Vec<String>,
    /// Its entries, by `tid`.
    #[serde(default)]
    pub entries: Vec<GlossaryEntry>,
}

/// A term or sentence of a glossary.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct GlossaryEntry {
    /// The identifier.
    pub tid: String,
    /// `term` or `sentence`.
    #[serde(rename = "type")]
    pub type_: String,
    /// The locale of the entry.
    pub loc: String,
    /// The text.
    pub value: String,
    /// A forbidden term.
    #[serde(default)]
    pub forbidden: bool,
    /// Who edited it last.
    #[serde(default)]
    pub last_edited_username: Option<String>,
    /// When it was edited last (ISO 8601 UTC).
    #[serde(default)]
    pub last_edited_date: Option<String>,
    /// Its translations (replaced on a second load).
    #[serde(default)]
    pub translations: Vec<Translation>,
}

/// A translation of a glossary entry.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct Translation {
    /// The locale.
    pub loc: String,
    /// The text.
    pub value: String,
    /// Similarity to the entry, in percent.
    #[serde(default)]
    pub similarity: Option<i64>,
    /// A forbidden translation.
    #[serde(default)]
    pub forbidden: bool,
    /// Who edited it last.
    #[serde(default)]
    pub last_edited_username: Option<String>,
    /// When it was edited last (ISO 8601 UTC).
    #[serde(default)]
    pub last_edited_date: Option<String>,
}

/// An asset.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct Asset {
    /// The identifier.
    pub tid: String,
    /// The name.
    #[serde(default)]
    pub name: Option<String>,
    /// Its path (shown as the text of a channel's asset link).
    #[serde(default)]
    pub path: Option<String>,
    /// Roles it is restricted to (none: everybody).
    #[serde(default)]
    pub restricted_to: Vec<String>,
    /// Its versions, by `versionNumber`.
    #[serde(default)]
    pub versions: Vec<AssetVersion>,
}

/// A version of an asset, with its binary and previews.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct AssetVersion {
    /// The version number.
    pub version_number: i64,
    /// The version's own identifier.
    #[serde(default)]
    pub tid: Option<String>,
    /// The media type of the binary.
    pub media_type: String,
    /// The file name offered with the binary.
    #[serde(default)]
    pub file_name: Option<String>,
    /// The binary.
    pub content: Content,
    /// Previews, by `format`.
    #[serde(default)]
    pub previews: Vec<Preview>,
}

/// A preview of an asset version.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct Preview {
    /// The preview type, as asked for by `format`.
    pub format: String,
    /// The media type.
    pub media_type: String,
    /// The binary.
    pub content: Content,
}

/// Binary content: a file next to the document, or inline base64.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub enum Content {
    /// A path relative to the document's folder.
    File(String),
    /// Standard base64.
    Base64(String),
}

/// A product.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct Product {
    /// The identifier.
    pub tid: String,
    /// The name.
    #[serde(default)]
    pub name: Option<String>,
    /// Roles it is restricted to (none: everybody).
    #[serde(default)]
    pub restricted_to: Vec<String>,
    /// Its asset links (replaced on a second load).
    #[serde(default)]
    pub assets: Vec<ProductAsset>,
}

/// A link of a product to an asset.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct ProductAsset {
    /// The asset, by `tid`.
    pub asset: String,
    /// The link type: an attribute definition, by `tid`.
    pub link_type: String,
}

/// A keyword. Its default name is the last segment of its path (D-15).
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct Keyword {
    /// `/`-separated, such as `/Materials/Cotton`; the parent is the path without its last segment.
    pub path: String,
    /// Localized names, by locale tid (replaced on a second load).
    #[serde(default)]
    pub names: BTreeMap<String, String>,
    /// Linked assets, by `tid` (replaced on a second load).
    #[serde(default)]
    pub assets: Vec<String>,
}

/// A role.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct Role {
    /// The name (`admin` grants every operation by itself).
    pub name: String,
    /// Modules whose operations it grants (`Common`, `CM`, `PIM`, `PEO`, `DAM`).
    #[serde(default)]
    pub modules: Vec<String>,
    /// Operations it grants, by operation id.
    #[serde(default)]
    pub operations: Vec<String>,
}

/// A token with a known value.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct Token {
    /// The user it acts for.
    pub user: String,
    /// Its roles.
    #[serde(default)]
    pub roles: Vec<String>,
    /// The token, `<selector>.<secret>` (16 and at least 32 hexadecimal digits).
    pub token: String,
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
}

/// Reads and loads a bootstrap file; binary files are resolved next to it.
pub async fn load_file(database: &Database, path: &Path) -> Result<Loaded, BootstrapError> {
    let shown = path.display().to_string();
    let text = std::fs::read_to_string(path).map_err(|source| BootstrapError::Read {
        path: shown.clone(),
        source,
    })?;
    let document: Bootstrap =
        serde_json::from_str(&text).map_err(|error| BootstrapError::Format {
            path: shown,
            message: error.to_string(),
        })?;
    let folder = path.parent().map(Path::to_path_buf).unwrap_or_default();
    load(database, &document, &folder).await
}

/// The demo catalogue `serve --demo` loads (`demo/demo.json`), embedded in the binary so that
/// the demo needs no file beside it (its binaries are inline base64).
pub const DEMO: &str = include_str!("../demo/demo.json");

/// Reads the demo document.
pub fn demo() -> Result<Bootstrap, BootstrapError> {
    serde_json::from_str(DEMO).map_err(|error| BootstrapError::Format {
        path: "demo/demo.json".to_string(),
        message: error.to_string(),
    })
}

/// Loads the demo document; answers what was loaded and the token it declares.
pub async fn load_demo(database: &Database) -> Result<(Loaded, Option<String>), BootstrapError> {
    let document = demo()?;
    let loaded = load(database, &document, Path::new(".")).await?;
    Ok((
        loaded,
        document.tokens.first().map(|token| token.token.clone()),
    ))
}

/// Loads a document in one transaction.
pub async fn load(
    database: &Database,
    document: &Bootstrap,
    folder: &Path,
) -> Result<Loaded, BootstrapError> {
    check(document)?;
    let mut binaries = read_binaries(document, folder)?.into_iter();
    let mut transaction = database.write().await?;
    let mut loader = Loader {
        transaction: &mut transaction,
        now: now_utc(),
        loaded: Loaded::default(),
    };
    loader.write(document, &mut binaries).await?;
    let loaded = loader.loaded;
    transaction.commit().await?;
    Ok(loaded)
}

fn invalid(record: String, field: &str, problem: impl Into<String>) -> BootstrapError {
    BootstrapError::Invalid {
        record,
        field: field.to_string(),
        problem: problem.into(),
    }
}

/// Checks what can be checked before writing: formats, allowed values, references within the
/// document or to records the document declares, duplicates.
fn check(document: &Bootstrap) -> Result<(), BootstrapError> {
    let mut seen = HashSet::new();
    for (index, locale) in document.locales.iter().enumerate() {
        let record = format!("locales[{index}] ({})", locale.tid);
        // The document's pattern, and the parts must agree.
        let valid = tables::LOCALE
            .field("tid")
            .is_some_and(|field| crate::repr::constraints::text(field, &locale.tid).is_none())
            && locale.tid.split_once('_')
                == Some((locale.language.as_str(), locale.country.as_str()));
        if !valid {
            return Err(invalid(
                record,
                "tid",
                "must be <language>_<COUNTRY> matching language and country",
            ));
        }
        unique(&mut seen, "locales", &locale.tid, record)?;
    }
    let definitions: HashSet<&str> = document
        .attribute_definitions
        .iter()
        .map(|definition| definition.tid.as_str())
        .collect();
    for (index, definition) in document.attribute_definitions.iter().enumerate() {
        let record = format!("attributeDefinitions[{index}] ({})", definition.tid);
        if !attribute_types().contains(&definition.type_.as_str()) {
            return Err(invalid(
                record,
                "type",
                format!("must be one of {}", attribute_types().join(", ")),
            ));
        }
        if definition
            .cardinality
            .is_some_and(|cardinality| cardinality < 1)
        {
            return Err(invalid(record, "cardinality", "must be at least 1"));
        }
        non_empty(&record, "tid", &definition.tid)?;
        unique(&mut seen, "attributeDefinitions", &definition.tid, record)?;
    }
    for (index, glossary) in document.glossaries.iter().enumerate() {
        let record = format!("glossaries[{index}] ({})", glossary.tid);
        non_empty(&record, "tid", &glossary.tid)?;
        unique(&mut seen, "glossaries", &glossary.tid, record.clone())?;
        for (entry_index, entry) in glossary.entries.iter().enumerate() {
            let record = format!("{record}.entries[{entry_index}] ({})", entry.tid);
            if !matches!(entry.type_.as_str(), "term" | "sentence") {
                return Err(invalid(record, "type", "must be term or sentence"));
            }
            non_empty(&record, "tid", &entry.tid)?;
            unique(&mut seen, "glossary entries", &entry.tid, record)?;
        }
    }
    let assets: HashSet<&str> = document
        .assets
        .iter()
        .map(|asset| asset.tid.as_str())
        .collect();
    let roles: HashSet<&str> = document
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
        .collect();
    for (index, asset) in document.assets.iter().enumerate() {
        let record = format!("assets[{index}] ({})", asset.tid);
        non_empty(&record, "tid", &asset.tid)?;
        unique(&mut seen, "assets", &asset.tid, record.clone())?;
        known_roles(&record, &asset.restricted_to, &roles)?;
        let mut numbers = HashSet::new();
        for (version_index, version) in asset.versions.iter().enumerate() {
            let record = format!("{record}.versions[{version_index}]");
            if version.version_number < 1 || !numbers.insert(version.version_number) {
                return Err(invalid(
                    record,
                    "versionNumber",
                    "must be unique and at least 1",
                ));
            }
            if let Some(tid) = &version.tid {
                unique(&mut seen, "asset versions", tid, record)?;
            }
        }
    }
    for (index, channel) in document.channels.iter().enumerate() {
        let record = format!("channels[{index}] ({})", channel.tid);
        non_empty(&record, "tid", &channel.tid)?;
        unique(&mut seen, "channels", &channel.tid, record)?;
    }
    for (index, peo) in document.peos.iter().enumerate() {
        let record = format!("peos[{index}] ({})", peo.tid);
        non_empty(&record, "tid", &peo.tid)?;
        unique(&mut seen, "peos", &peo.tid, record.clone())?;
        known_roles(&record, &peo.restricted_to, &roles)?;
    }
    for (index, classification) in document.classifications.iter().enumerate() {
        let record = format!("classifications[{index}] ({})", classification.tid);
        non_empty(&record, "tid", &classification.tid)?;
        if classification.tid.contains('/') {
            return Err(invalid(record, "tid", "must not contain '/'"));
        }
        unique(&mut seen, "classifications", &classification.tid, record)?;
    }
    for (index, product) in document.products.iter().enumerate() {
        let record = format!("products[{index}] ({})", product.tid);
        non_empty(&record, "tid", &product.tid)?;
        unique(&mut seen, "products", &product.tid, record.clone())?;
        known_roles(&record, &product.restricted_to, &roles)?;
        for (link_index, link) in product.assets.iter().enumerate() {
            let record = format!("{record}.assets[{link_index}]");
            if !assets.contains(link.asset.as_str()) {
                return Err(invalid(
                    record,
                    "asset",
                    format!("'{}' is not an asset of the document", link.asset),
                ));
            }
            if !definitions.contains(link.link_type.as_str()) {
                return Err(invalid(
                    record,
                    "linkType",
                    format!(
                        "'{}' is not an attribute definition of the document",
                        link.link_type
                    ),
                ));
            }
        }
    }
    let mut paths = HashSet::new();
    for (index, keyword) in document.keywords.iter().enumerate() {
        let record = format!("keywords[{index}] ({})", keyword.path);
        let segments: Vec<&str> = keyword.path.split('/').skip(1).collect();
        let valid = keyword.path.starts_with('/')
            && !segments.is_empty()
            && segments.iter().all(|segment| !segment.trim().is_empty());
        if !valid {
            return Err(invalid(
                record,
                "path",
                "must be /-separated non-empty names, such as /Materials/Cotton",
            ));
        }
        if !paths.insert(keyword.path.as_str()) {
            return Err(invalid(record, "path", "is declared twice"));
        }
        if let Some(asset) = keyword
            .assets
            .iter()
            .find(|asset| !assets.contains(asset.as_str()))
        {
            return Err(invalid(
                record,
                "assets",
                format!("'{asset}' is not an asset of the document"),
            ));
        }
    }
    for (index, name) in document.channel_attributes.iter().enumerate() {
        if !definitions.contains(name.as_str()) {
            return Err(invalid(
                format!("channelAttributes[{index}]"),
                "tid",
                format!("'{name}' is not an attribute definition of the document"),
            ));
        }
    }
    for (index, role) in document.roles.iter().enumerate() {
        let grants = Grant::list(&role.modules, &role.operations);
        if let Some(grant) = grants.iter().find(|grant| !grant.names_something()) {
            return Err(invalid(
                format!("roles[{index}] ({})", role.name),
                "modules/operations",
                format!("{grant:?} names no module or operation of the document"),
            ));
        }
    }
    for (index, token) in document.tokens.iter().enumerate() {
        let valid = token
            .token
            .split_once('.')
            .is_some_and(|(selector, secret)| {
                selector.len() == 16
                    && secret.len() >= 32
                    && selector
                        .chars()
                        .chain(secret.chars())
                        .all(|ch| ch.is_ascii_hexdigit())
            });
        if !valid {
            return Err(invalid(
                format!("tokens[{index}] (user {})", token.user),
                "token",
                "must be <16 hex digits>.<at least 32 hex digits>",
            ));
        }
    }
    Ok(())
}

fn non_empty(record: &str, field: &str, value: &str) -> Result<(), BootstrapError> {
    if value.trim().is_empty() {
        return Err(invalid(record.to_string(), field, "must not be empty"));
    }
    Ok(())
}

fn unique<'d>(
    seen: &mut HashSet<(&'static str, &'d str)>,
    kind: &'static str,
    tid: &'d str,
    record: String,
) -> Result<(), BootstrapError> {
    if !seen.insert((kind, tid)) {
        return Err(invalid(
            record,
            "tid",
            format!("'{tid}' is declared twice among the {kind}"),
        ));
    }
    Ok(())
}

fn known_roles(
    record: &str,
    roles: &[String],
    known: &HashSet<&str>,
) -> Result<(), BootstrapError> {
    match roles.iter().find(|role| !known.contains(role.as_str())) {
        Some(role) => Err(invalid(
            record.to_string(),
            "restrictedTo",
            format!("'{role}' is not a role of the document"),
        )),
        None => Ok(()),
    }
}

/// The binaries of the document in order (version, then its previews), read before the
/// transaction begins.
fn read_binaries(document: &Bootstrap, folder: &Path) -> Result<Vec<Vec<u8>>, BootstrapError> {
    let mut binaries = Vec::new();
    for (index, asset) in document.assets.iter().enumerate() {
        for (version_index, version) in asset.versions.iter().enumerate() {
            let record = format!("assets[{index}] ({}).versions[{version_index}]", asset.tid);
            binaries.push(read_content(&version.content, folder, &record)?);
            for (preview_index, preview) in version.previews.iter().enumerate() {
                let record = format!("{record}.previews[{preview_index}]");
                binaries.push(read_content(&preview.content, folder, &record)?);
            }
        }
    }
    Ok(binaries)
}

fn read_content(content: &Content, folder: &Path, record: &str) -> Result<Vec<u8>, BootstrapError> {
    match content {
        Content::File(file) => {
            let path: PathBuf = folder.join(file);
            std::fs::read(&path).map_err(|error| {
                invalid(
                    record.to_string(),
                    "content.file",
                    format!("cannot read {}: {error}", path.display()),
                )
            })
        }
        Content::Base64(text) => base64::engine::general_purpose::STANDARD
            .decode(text.trim())
            .map_err(|error| invalid(record.to_string(), "content.base64", error.to_string())),
    }
}

/// Writes a checked document inside one transaction.
struct Loader<'t, 'c> {
    transaction: &'t mut Transaction<'c, Any>,
    now: String,
    loaded: Loaded,
}

impl Loader<'_, '_> {
    async fn write(
        &mut self,
        document: &Bootstrap,
        binaries: &mut std::vec::IntoIter<Vec<u8>>,
    ) -> Result<(), BootstrapError> {
        for locale in &document.locales {
            sqlx::query(
                "INSERT INTO locales (tid, language, country, name, content_locale, default_content_locale, \
                 frontend_locale, default_frontend_locale, date_format, custom_date_formats_enabled) \
                 VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10) ON CONFLICT (tid) DO UPDATE SET \
                 language = excluded.language, country = excluded.country, name = excluded.name, \
                 content_locale = excluded.content_locale, default_content_locale = excluded.default_content_locale, \
                 frontend_locale = excluded.frontend_locale, default_frontend_locale = excluded.default_frontend_locale, \
                 date_format = excluded.date_format, custom_date_formats_enabled = excluded.custom_date_formats_enabled",
            )
            .bind(&locale.tid)
            .bind(&locale.language)
            .bind(&locale.country)
            .bind(&locale.name)
            .bind(locale.content_locale)
            .bind(locale.default_content_locale)
            .bind(locale.frontend_locale)
            .bind(locale.default_frontend_locale)
            .bind(&locale.date_format)
            .bind(locale.custom_date_formats_enabled)
            .execute(&mut **self.transaction)
            .await?;
            self.loaded.records += 1;
        }
        for (name, status) in &document.components {
            sqlx::query(
                "INSERT INTO components (name, status) VALUES ($1, $2) \
                 ON CONFLICT (name) DO UPDATE SET status = excluded.status",
            )
            .bind(name)
            .bind(status)
            .execute(&mut **self.transaction)
            .await?;
            self.loaded.records += 1;
        }
        for definition in &document.attribute_definitions {
            sqlx::query(
                "INSERT INTO attribute_definitions (tid, type, cardinality, created_at) VALUES ($1, $2, $3, $4) \
                 ON CONFLICT (tid) DO UPDATE SET type = excluded.type, cardinality = excluded.cardinality",
            )
            .bind(&definition.tid)
            .bind(&definition.type_)
            .bind(definition.cardinality)
            .bind(&self.now)
            .execute(&mut **self.transaction)
            .await?;
            self.loaded.records += 1;
        }
        for name in &document.channel_types {
            sqlx::query(
                "INSERT INTO channel_types (name) VALUES ($1) ON CONFLICT (name) DO NOTHING",
            )
            .bind(name)
            .execute(&mut **self.transaction)
            .await?;
            self.loaded.records += 1;
        }
        for tid in &document.channel_attributes {
            sqlx::query(
                "INSERT INTO channel_attributes (attribute_definition_id) \
                 SELECT id FROM attribute_definitions WHERE tid = $1 ON CONFLICT DO NOTHING",
            )
            .bind(tid)
            .execute(&mut **self.transaction)
            .await?;
            self.loaded.records += 1;
        }
        for (index, glossary) in document.glossaries.iter().enumerate() {
            self.glossary(glossary).await.map_err(|error| {
                error.within(|| format!("glossaries[{index}] ({})", glossary.tid))
            })?;
        }
        for (index, asset) in document.assets.iter().enumerate() {
            self.asset(asset, binaries)
                .await
                .map_err(|error| error.within(|| format!("assets[{index}] ({})", asset.tid)))?;
        }
        for (index, product) in document.products.iter().enumerate() {
            self.product(product)
                .await
                .map_err(|error| error.within(|| format!("products[{index}] ({})", product.tid)))?;
        }
        for (index, keyword) in document.keywords.iter().enumerate() {
            let record = || format!("keywords[{index}] ({})", keyword.path);
            self.keyword(keyword, record)
                .await
                .map_err(|error| error.within(record))?;
        }
        for (index, channel) in document.channels.iter().enumerate() {
            let record = format!("channels[{index}] ({})", channel.tid);
            self.channel(channel, &record)
                .await
                .map_err(|error| error.within(|| record.clone()))?;
        }
        for (index, peo) in document.peos.iter().enumerate() {
            let record = format!("peos[{index}] ({})", peo.tid);
            self.peo(peo, &record)
                .await
                .map_err(|error| error.within(|| record.clone()))?;
        }
        for (index, classification) in document.classifications.iter().enumerate() {
            let record = format!("classifications[{index}] ({})", classification.tid);
            self.classification(classification, &record)
                .await
                .map_err(|error| error.within(|| record.clone()))?;
        }
        for (index, briefing) in document.briefings.iter().enumerate() {
            let record = format!("briefings[{index}] ({})", briefing.channel);
            self.briefing(briefing, &record)
                .await
                .map_err(|error| error.within(|| record.clone()))?;
        }
        for user in &document.users {
            self.user(user).await?;
        }
        for role in &document.roles {
            self.role(role).await?;
        }
        for (index, token) in document.tokens.iter().enumerate() {
            self.token(token).await.map_err(|error| {
                error.within(|| format!("tokens[{index}] (user {})", token.user))
            })?;
        }
        Ok(())
    }

    async fn id(&mut self, query: &'static str, key: &str) -> Result<i64, BootstrapError> {
        Ok(sqlx::query(query)
            .bind(key)
            .fetch_one(&mut **self.transaction)
            .await?
            .try_get("id")?)
    }

    async fn glossary(&mut self, glossary: &Glossary) -> Result<(), BootstrapError> {
        sqlx::query(
            "INSERT INTO glossaries (tid, name, languages, created_at) VALUES ($1, $2, $3, $4) \
             ON CONFLICT (tid) DO UPDATE SET name = excluded.name, languages = excluded.languages",
        )
        .bind(&glossary.tid)
        .bind(&glossary.name)
        .bind(glossary.languages.join(","))
        .bind(&self.now)
        .execute(&mut **self.transaction)
        .await?;
        self.loaded.records += 1;
        let glossary_id = self
            .id("SELECT id FROM glossaries WHERE tid = $1", &glossary.tid)
            .await?;
        for entry in &glossary.entries {
            sqlx::query(
                "INSERT INTO glossary_entries (tid, glossary_id, loc, type, value, forbidden, \
                 last_edited_username, last_edited_date) VALUES ($1, $2, $3, $4, $5, $6, $7, $8) \
                 ON CONFLICT (tid) DO UPDATE SET glossary_id = excluded.glossary_id, loc = excluded.loc, \
                 type = excluded.type, value = excluded.value, forbidden = excluded.forbidden, \
                 last_edited_username = excluded.last_edited_username, last_edited_date = excluded.last_edited_date",
            )
            .bind(&entry.tid)
            .bind(glossary_id)
            .bind(&entry.loc)
            .bind(&entry.type_)
            .bind(&entry.value)
            .bind(entry.forbidden)
            .bind(&entry.last_edited_username)
            .bind(&entry.last_edited_date)
            .execute(&mut **self.transaction)
            .await?;
            self.loaded.records += 1;
            let entry_id = self
                .id("SELECT id FROM glossary_entries WHERE tid = $1", &entry.tid)
                .await?;
            sqlx::query("DELETE FROM glossary_translations WHERE entry_id = $1")
                .bind(entry_id)
                .execute(&mut **self.transaction)
                .await?;
            for translation in &entry.translations {
                sqlx::query(
                    "INSERT INTO glossary_translations (entry_id, loc, similarity, value, forbidden, \
                     last_edited_username, last_edited_date) VALUES ($1, $2, $3, $4, $5, $6, $7)",
                )
                .bind(entry_id)
                .bind(&translation.loc)
                .bind(translation.similarity)
                .bind(&translation.value)
                .bind(translation.forbidden)
                .bind(&translation.last_edited_username)
                .bind(&translation.last_edited_date)
                .execute(&mut **self.transaction)
                .await?;
                self.loaded.records += 1;
            }
        }
        Ok(())
    }

    async fn asset(
        &mut self,
        asset: &Asset,
        binaries: &mut std::vec::IntoIter<Vec<u8>>,
    ) -> Result<(), BootstrapError> {
        sqlx::query(
            "INSERT INTO assets (tid, name, path, created_at, modified_at) VALUES ($1, $2, $3, $4, $4) \
             ON CONFLICT (tid) DO UPDATE SET name = excluded.name, path = excluded.path, \
             modified_at = excluded.modified_at",
        )
        .bind(&asset.tid)
        .bind(&asset.name)
        .bind(&asset.path)
        .bind(&self.now)
        .execute(&mut **self.transaction)
        .await?;
        self.loaded.records += 1;
        let asset_id = self
            .id("SELECT id FROM assets WHERE tid = $1", &asset.tid)
            .await?;
        self.restrict("asset", asset_id, &asset.restricted_to)
            .await?;
        for version in &asset.versions {
            let content = binaries.next().unwrap_or_default();
            let version_id: i64 = sqlx::query(
                "INSERT INTO asset_versions (asset_id, version_number, tid, media_type, file_name, content, created_at) \
                 VALUES ($1, $2, $3, $4, $5, $6, $7) ON CONFLICT (asset_id, version_number) DO UPDATE SET \
                 tid = excluded.tid, media_type = excluded.media_type, file_name = excluded.file_name, \
                 content = excluded.content RETURNING id",
            )
            .bind(asset_id)
            .bind(version.version_number)
            .bind(&version.tid)
            .bind(&version.media_type)
            .bind(&version.file_name)
            .bind(content)
            .bind(&self.now)
            .fetch_one(&mut **self.transaction)
            .await?
            .try_get("id")?;
            self.loaded.records += 1;
            for preview in &version.previews {
                let content = binaries.next().unwrap_or_default();
                sqlx::query(
                    "INSERT INTO asset_previews (version_id, format, media_type, content) VALUES ($1, $2, $3, $4) \
                     ON CONFLICT (version_id, format) DO UPDATE SET media_type = excluded.media_type, \
                     content = excluded.content",
                )
                .bind(version_id)
                .bind(&preview.format)
                .bind(&preview.media_type)
                .bind(content)
                .execute(&mut **self.transaction)
                .await?;
                self.loaded.records += 1;
            }
        }
        Ok(())
    }

    async fn product(&mut self, product: &Product) -> Result<(), BootstrapError> {
        sqlx::query(
            "INSERT INTO products (tid, name, created_at) VALUES ($1, $2, $3) \
             ON CONFLICT (tid) DO UPDATE SET name = excluded.name",
        )
        .bind(&product.tid)
        .bind(&product.name)
        .bind(&self.now)
        .execute(&mut **self.transaction)
        .await?;
        self.loaded.records += 1;
        let product_id = self
            .id("SELECT id FROM products WHERE tid = $1", &product.tid)
            .await?;
        self.restrict("product", product_id, &product.restricted_to)
            .await?;
        sqlx::query("DELETE FROM product_assets WHERE product_id = $1")
            .bind(product_id)
            .execute(&mut **self.transaction)
            .await?;
        for (position, link) in product.assets.iter().enumerate() {
            sqlx::query(
                "INSERT INTO product_assets (product_id, asset_id, link_type_id, position) \
                 SELECT $1, a.id, d.id, $2 FROM assets a, attribute_definitions d WHERE a.tid = $3 AND d.tid = $4 \
                 ON CONFLICT DO NOTHING",
            )
            .bind(product_id)
            .bind(position as i64)
            .bind(&link.asset)
            .bind(&link.link_type)
            .execute(&mut **self.transaction)
            .await?;
            self.loaded.records += 1;
        }
        Ok(())
    }

    async fn keyword(
        &mut self,
        keyword: &Keyword,
        record: impl Fn() -> String,
    ) -> Result<(), BootstrapError> {
        let (parent, name) = keyword.path.rsplit_once('/').unwrap_or_default();
        let parent_id: Option<i64> = if parent.is_empty() {
            None
        } else {
            let found = sqlx::query("SELECT id FROM keywords WHERE path = $1")
                .bind(parent)
                .fetch_optional(&mut **self.transaction)
                .await?;
            match found {
                Some(row) => Some(row.try_get("id")?),
                None => {
                    return Err(invalid(
                        record(),
                        "path",
                        format!(
                            "the parent keyword '{parent}' is neither declared before it nor stored"
                        ),
                    ));
                }
            }
        };
        sqlx::query(
            "INSERT INTO keywords (parent_id, name, path, order_number, created_at)              SELECT $1, $2, $3, COALESCE(MAX(order_number), 0) + 1, $4 FROM keywords              WHERE parent_id IS NOT DISTINCT FROM $1 ON CONFLICT (path) DO NOTHING",
        )
        .bind(parent_id)
        .bind(name)
        .bind(&keyword.path)
        .bind(&self.now)
        .execute(&mut **self.transaction)
        .await?;
        self.loaded.records += 1;
        let keyword_id = self
            .id("SELECT id FROM keywords WHERE path = $1", &keyword.path)
            .await?;
        sqlx::query("DELETE FROM keyword_names WHERE keyword_id = $1")
            .bind(keyword_id)
            .execute(&mut **self.transaction)
            .await?;
        for (loc, name) in &keyword.names {
            sqlx::query("INSERT INTO keyword_names (keyword_id, loc, name) VALUES ($1, $2, $3)")
                .bind(keyword_id)
                .bind(loc)
                .bind(name)
                .execute(&mut **self.transaction)
                .await?;
        }
        sqlx::query("DELETE FROM keyword_assets WHERE keyword_id = $1")
            .bind(keyword_id)
            .execute(&mut **self.transaction)
            .await?;
        for asset in &keyword.assets {
            sqlx::query(
                "INSERT INTO keyword_assets (keyword_id, asset_id) SELECT $1, id FROM assets WHERE tid = $2                  ON CONFLICT DO NOTHING",
            )
            .bind(keyword_id)
            .bind(asset)
            .execute(&mut **self.transaction)
            .await?;
        }
        Ok(())
    }

    /// Replaces the roles a record is restricted to.
    async fn restrict(
        &mut self,
        kind: &str,
        id: i64,
        roles: &[String],
    ) -> Result<(), BootstrapError> {
        sqlx::query("DELETE FROM access_restrictions WHERE kind = $1 AND record_id = $2")
            .bind(kind)
            .bind(id)
            .execute(&mut **self.transaction)
            .await?;
        for role in roles {
            let role_id = auth::ensure_role(self.transaction, role).await?;
            sqlx::query(
                "INSERT INTO access_restrictions (kind, record_id, role_id) VALUES ($1, $2, $3)",
            )
            .bind(kind)
            .bind(id)
            .bind(role_id)
            .execute(&mut **self.transaction)
            .await?;
        }
        Ok(())
    }

    async fn user(&mut self, name: &str) -> Result<i64, BootstrapError> {
        self.loaded.records += 1;
        Ok(auth::ensure_user(self.transaction, name, &self.now).await?)
    }

    /// Replaces what a role grants.
    async fn role(&mut self, role: &Role) -> Result<(), BootstrapError> {
        let role_id = auth::ensure_role(self.transaction, &role.name).await?;
        self.loaded.records += 1;
        sqlx::query("DELETE FROM role_grants WHERE role_id = $1")
            .bind(role_id)
            .execute(&mut **self.transaction)
            .await?;
        let grants = Grant::list(&role.modules, &role.operations);
        auth::add_grants(self.transaction, role_id, &grants).await?;
        Ok(())
    }

    async fn token(&mut self, token: &Token) -> Result<(), BootstrapError> {
        let user_id = self.user(&token.user).await?;
        let (selector, secret) = token.token.split_once('.').unwrap_or_default();
        let token_id: i64 = sqlx::query(
            "INSERT INTO tokens (selector, secret_hash, user_id, created_at) VALUES ($1, $2, $3, $4) \
             ON CONFLICT (selector) DO UPDATE SET secret_hash = excluded.secret_hash, \
             user_id = excluded.user_id, revoked_at = NULL RETURNING id",
        )
        .bind(selector)
        .bind(auth::hash_secret(secret))
        .bind(user_id)
        .bind(&self.now)
        .fetch_one(&mut **self.transaction)
        .await?
        .try_get("id")?;
        sqlx::query("DELETE FROM token_roles WHERE token_id = $1")
            .bind(token_id)
            .execute(&mut **self.transaction)
            .await?;
        auth::add_token_roles(self.transaction, token_id, &token.roles).await?;
        Ok(())
    }
}

/// The JSON Schema of the format, as committed in `openapi/bootstrap.schema.json`.
pub fn json_schema() -> String {
    let schema = schemars::schema_for!(Bootstrap);
    serde_json::to_string_pretty(&schema).unwrap_or_default() + "\n"
}
