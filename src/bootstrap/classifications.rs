//! Classifications with their nodes (by path under `/<tid>`), node names, node attributes and
//! their domain values. Classifications also have operations that write them; declaring them here
//! serves test setups and the demo.

use std::collections::BTreeMap;

use core_api::tables;
use schemars::JsonSchema;
use serde::Deserialize;
use sqlx::Row;

use super::{Bootstrap, BootstrapError, Checks, Loader, counted, fits, invalid, name, non_empty};
pub(crate) use crate::storage::nodes::MAX_DEPTH;

/// A classification with its nodes.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct Classification {
    /// The identifier, which is also its name and its root node's identifier (D-23).
    pub tid: String,
    /// Localized names, by locale tid; the key `""` is the default name (replaced on a second load).
    #[serde(default)]
    pub names: BTreeMap<String, String>,
    /// Its nodes, parents before children: the root is `/<tid>` (replaced names, upserted nodes).
    #[serde(default)]
    pub nodes: Vec<ClassificationNode>,
}

/// A classification node.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct ClassificationNode {
    /// `/`-separated, starting with `/<classification tid>`; the parent is the path without its
    /// last segment, and the last segment is the node's identifier.
    pub path: String,
    /// Localized names, by locale tid; the key `""` is the default name.
    #[serde(default)]
    pub names: BTreeMap<String, String>,
    /// Its attributes, by attribute definition.
    #[serde(default)]
    pub attributes: Vec<NodeAttribute>,
    /// The products classified under it, by `tid` (declared in the document or stored; replaced
    /// on a second load).
    #[serde(default)]
    pub products: Vec<String>,
}

/// An attribute of a node.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct NodeAttribute {
    /// The attribute definition, by `tid`.
    pub key: String,
    /// Seen `p`.
    #[serde(default)]
    pub level: Option<String>,
    /// `visible` or `not_visible`.
    #[serde(default)]
    pub inheritance: Option<String>,
    /// Seen `optional`.
    #[serde(default)]
    pub restriction: Option<String>,
    /// Whether values are per locale.
    #[serde(default)]
    pub localized: bool,
    /// `domainVals@allowNewValue`.
    #[serde(default)]
    pub allow_new_value: Option<bool>,
    /// `domainVals@sortDirection` (seen `MANUAL`).
    #[serde(default)]
    pub sort_direction: Option<String>,
    /// `domainVals@mode` (seen `FULL`).
    #[serde(default)]
    pub mode: Option<String>,
    /// The default domain value, by its `tid`.
    #[serde(default)]
    pub default_value: Option<String>,
    /// Domain values, in order (replaced on a second load).
    #[serde(default)]
    pub domain_values: Vec<DomainValue>,
}

/// A domain value of a node attribute.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct DomainValue {
    /// The identifier.
    pub tid: String,
    /// Its texts, by locale tid.
    #[serde(default)]
    pub names: BTreeMap<String, String>,
}

/// Checks each classification: identity, names, node paths and names, attribute keys and domain
/// values.
pub(super) fn check<'d>(
    document: &'d Bootstrap,
    checks: &mut Checks<'d>,
) -> Result<(), BootstrapError> {
    for (index, classification) in document.classifications.iter().enumerate() {
        let record = format!("classifications[{index}] ({})", classification.tid);
        non_empty(&record, "tid", &classification.tid)?;
        if classification.tid.contains('/') {
            return Err(invalid(record, "tid", "must not contain '/'"));
        }
        fits(&record, "tid", &classification.tid, &tables::CLASS, "tid")?;
        for localized in classification.names.values() {
            name(&record, "names", localized)?;
        }
        counted(
            &record,
            "names",
            classification.names.len(),
            (&tables::NAME, "itm"),
            1,
        )?;
        for (node_index, node) in classification.nodes.iter().enumerate() {
            let record = format!("{record}.nodes[{node_index}] ({})", node.path);
            fits(&record, "path", &node.path, &tables::NODE, "path")?;
            if node.path.matches('/').count() > MAX_DEPTH {
                return Err(invalid(
                    record,
                    "path",
                    format!("a node is at most {MAX_DEPTH} levels deep (D-23)"),
                ));
            }
            for localized in node.names.values() {
                name(&record, "names", localized)?;
            }
            counted(
                &record,
                "names",
                node.names.len(),
                (&tables::NAME, "itm"),
                1,
            )?;
            counted(
                &record,
                "attributes",
                node.attributes.len(),
                (&tables::NODE, "attr"),
                0,
            )?;
            for attribute in &node.attributes {
                fits(&record, "attributes", &attribute.key, &tables::ATTR, "key")?;
                let values = attribute.domain_values.len();
                counted(
                    &record,
                    "domainValues",
                    values,
                    (&tables::DOMAIN_VALS, "domainVal"),
                    0,
                )?;
                for value in &attribute.domain_values {
                    let texts = value.names.len();
                    counted(
                        &record,
                        "domainValues",
                        texts,
                        (&tables::DOMAIN_VAL, "itm"),
                        0,
                    )?;
                    fits(
                        &record,
                        "domainValues",
                        &value.tid,
                        &tables::DOMAIN_VAL,
                        "tid",
                    )?;
                    for text in value.names.values() {
                        fits(&record, "domainValues", text, &tables::ITM, "value")?;
                    }
                }
            }
        }
        checks.unique("classifications", &classification.tid, record)?;
    }
    Ok(())
}

impl Loader<'_, '_> {
    /// Upserts the classifications with their nodes; names, attributes and domain values are
    /// replaced.
    pub(super) async fn classifications(
        &mut self,
        document: &Bootstrap,
    ) -> Result<(), BootstrapError> {
        for (index, classification) in document.classifications.iter().enumerate() {
            self.progress.advance();
            let record = format!("classifications[{index}] ({})", classification.tid);
            self.classification(classification, &record)
                .await
                .map_err(|error| error.within(|| record.clone()))?;
        }
        Ok(())
    }

    async fn classification(
        &mut self,
        classification: &Classification,
        record: &str,
    ) -> Result<(), BootstrapError> {
        sqlx::query(
            "INSERT INTO classifications (tid, created_at, modified_at) VALUES ($1, $2, $2) \
             ON CONFLICT (tid) DO UPDATE SET modified_at = excluded.modified_at",
        )
        .bind(&classification.tid)
        .bind(&self.now)
        .execute(&mut **self.transaction)
        .await?;
        self.loaded.records += 1;
        let id = self
            .id(
                "SELECT id FROM classifications WHERE tid = $1",
                &classification.tid,
            )
            .await?;
        sqlx::query("DELETE FROM classification_names WHERE classification_id = $1")
            .bind(id)
            .execute(&mut **self.transaction)
            .await?;
        for (loc, name) in &classification.names {
            sqlx::query("INSERT INTO classification_names (classification_id, loc, name) VALUES ($1, $2, $3)")
                .bind(id)
                .bind(loc)
                .bind(name)
                .execute(&mut **self.transaction)
                .await?;
        }
        let root = format!("/{}", classification.tid);
        for (position, node) in classification.nodes.iter().enumerate() {
            let record = format!("{record}.nodes[{position}] ({})", node.path);
            let (parent_path, identifier) = node.path.rsplit_once('/').unwrap_or_default();
            let inside = node.path == root || node.path.starts_with(&format!("{root}/"));
            if !inside || identifier.is_empty() {
                return Err(invalid(
                    record,
                    "path",
                    format!("must be {root} or start with {root}/"),
                ));
            }
            let parent = if node.path == root {
                None
            } else {
                match sqlx::query("SELECT id FROM classification_nodes WHERE classification_id = $1 AND path = $2")
                    .bind(id)
                    .bind(parent_path)
                    .fetch_optional(&mut **self.transaction)
                    .await?
                {
                    Some(row) => Some(row.try_get::<i64, _>("id")?),
                    None => {
                        return Err(invalid(record, "path", format!("the parent node '{parent_path}' is neither declared before it nor stored")));
                    }
                }
            };
            sqlx::query(
                "INSERT INTO classification_nodes (classification_id, parent_id, identifier, path, position) \
                 VALUES ($1, $2, $3, $4, $5) ON CONFLICT (classification_id, path) DO UPDATE SET \
                 position = excluded.position",
            )
            .bind(id)
            .bind(parent)
            .bind(identifier)
            .bind(&node.path)
            .bind(position as i64)
            .execute(&mut **self.transaction)
            .await?;
            self.loaded.records += 1;
            let node_id: i64 = sqlx::query(
                "SELECT id FROM classification_nodes WHERE classification_id = $1 AND path = $2",
            )
            .bind(id)
            .bind(&node.path)
            .fetch_one(&mut **self.transaction)
            .await?
            .try_get("id")?;
            sqlx::query("DELETE FROM node_names WHERE node_id = $1")
                .bind(node_id)
                .execute(&mut **self.transaction)
                .await?;
            for (loc, name) in &node.names {
                sqlx::query("INSERT INTO node_names (node_id, loc, name) VALUES ($1, $2, $3)")
                    .bind(node_id)
                    .bind(loc)
                    .bind(name)
                    .execute(&mut **self.transaction)
                    .await?;
            }
            for (index, attribute) in node.attributes.iter().enumerate() {
                let record = format!("{record}.attributes[{index}] ({})", attribute.key);
                self.node_attribute(node_id, attribute, &record).await?;
            }
            self.classify(node_id, &node.products, &record).await?;
        }
        Ok(())
    }

    /// Replaces the products classified under a node; each is appended to its product's nodes.
    async fn classify(
        &mut self,
        node_id: i64,
        products: &[String],
        record: &str,
    ) -> Result<(), BootstrapError> {
        sqlx::query("DELETE FROM product_nodes WHERE node_id = $1")
            .bind(node_id)
            .execute(&mut **self.transaction)
            .await?;
        for tid in products {
            let product = self
                .find(
                    "SELECT id FROM products WHERE tid = $1",
                    tid,
                    record,
                    "products",
                    "a product",
                )
                .await?;
            sqlx::query(
                "INSERT INTO product_nodes (product_id, node_id, position) SELECT $1, $2, \
                 COALESCE(MAX(position) + 1, 0) FROM product_nodes WHERE product_id = $1",
            )
            .bind(product)
            .bind(node_id)
            .execute(&mut **self.transaction)
            .await?;
            self.loaded.records += 1;
        }
        Ok(())
    }

    async fn node_attribute(
        &mut self,
        node_id: i64,
        attribute: &NodeAttribute,
        record: &str,
    ) -> Result<(), BootstrapError> {
        if let Some(default) = &attribute.default_value
            && !attribute
                .domain_values
                .iter()
                .any(|value| &value.tid == default)
        {
            return Err(invalid(
                record.to_string(),
                "defaultValue",
                format!("'{default}' is not one of its domain values"),
            ));
        }
        let definition = self
            .find(
                "SELECT id FROM attribute_definitions WHERE tid = $1",
                &attribute.key,
                record,
                "key",
                "an attribute definition",
            )
            .await?;
        sqlx::query(
            "INSERT INTO node_attributes (node_id, attribute_definition_id, level, inheritance, restriction, \
             localized, allow_new_value, sort_direction, mode, default_value_tid) \
             VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10) \
             ON CONFLICT (node_id, attribute_definition_id) DO UPDATE SET level = excluded.level, \
             inheritance = excluded.inheritance, restriction = excluded.restriction, \
             localized = excluded.localized, allow_new_value = excluded.allow_new_value, \
             sort_direction = excluded.sort_direction, mode = excluded.mode, \
             default_value_tid = excluded.default_value_tid",
        )
        .bind(node_id)
        .bind(definition)
        .bind(&attribute.level)
        .bind(&attribute.inheritance)
        .bind(&attribute.restriction)
        .bind(attribute.localized)
        .bind(attribute.allow_new_value)
        .bind(&attribute.sort_direction)
        .bind(&attribute.mode)
        .bind(&attribute.default_value)
        .execute(&mut **self.transaction)
        .await?;
        self.loaded.records += 1;
        let attribute_id: i64 = sqlx::query(
            "SELECT id FROM node_attributes WHERE node_id = $1 AND attribute_definition_id = $2",
        )
        .bind(node_id)
        .bind(definition)
        .fetch_one(&mut **self.transaction)
        .await?
        .try_get("id")?;
        sqlx::query("DELETE FROM domain_values WHERE node_attribute_id = $1")
            .bind(attribute_id)
            .execute(&mut **self.transaction)
            .await?;
        for (position, value) in attribute.domain_values.iter().enumerate() {
            let value_id: i64 = sqlx::query(
                "INSERT INTO domain_values (node_attribute_id, tid, position) VALUES ($1, $2, $3) RETURNING id",
            )
            .bind(attribute_id)
            .bind(&value.tid)
            .bind(position as i64)
            .fetch_one(&mut **self.transaction)
            .await?
            .try_get("id")?;
            for (loc, text) in &value.names {
                sqlx::query("INSERT INTO domain_value_names (domain_value_id, loc, value) VALUES ($1, $2, $3)")
                    .bind(value_id)
                    .bind(loc)
                    .bind(text)
                    .execute(&mut **self.transaction)
                    .await?;
            }
        }
        Ok(())
    }
}
