//! Classifications with their nodes (by path under `/<tid>`), node names, node attributes and
//! their domain values. Classifications also have operations that write them; declaring them here
//! serves test setups and the demo.

use crate::storage::import::{
    self, ClassificationRow, Lookup, Names, NodeAttributeRow, NodeRow, Owned,
};
use core_api::tables;
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use super::{
    Bootstrap, BootstrapError, Checks, Loader, Localized, counted, fits, given, invalid, is_false,
    name, non_empty,
};
pub(crate) use crate::storage::nodes::MAX_DEPTH;

/// A classification with its nodes.
#[derive(Debug, Deserialize, Serialize, JsonSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct Classification {
    /// The id it keeps when new (an export gives it); absent: the next one.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(range(min = 1))]
    pub id: Option<i64>,
    /// The identifier, which is also its name and its root node's identifier (D-23).
    pub tid: String,
    /// When it was created (UTC text), kept when new; absent: the time of the import.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub created_at: Option<String>,
    /// When it was last changed (UTC text); absent: the time of the import.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub modified_at: Option<String>,
    /// Localized names, by locale tid; the key `""` is the default name (replaced on a second load).
    #[serde(default, skip_serializing_if = "Localized::is_empty")]
    pub names: Localized,
    /// Its nodes (parents first, whatever their place in the document): the root is `/<tid>`
    /// (replaced names, upserted nodes).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub nodes: Vec<ClassificationNode>,
}

/// A classification node.
#[derive(Debug, Deserialize, Serialize, JsonSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct ClassificationNode {
    /// The id it keeps when new (an export gives it); absent: the next one.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(range(min = 1))]
    pub id: Option<i64>,
    /// `/`-separated, starting with `/<classification tid>`; the parent is the path without its
    /// last segment, and the last segment is the node's identifier.
    pub path: String,
    /// Its place among the classification's nodes; absent: its place in the document.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub position: Option<i64>,
    /// Localized names, by locale tid; the key `""` is the default name.
    #[serde(default, skip_serializing_if = "Localized::is_empty")]
    pub names: Localized,
    /// Its attributes, by attribute definition.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub attributes: Vec<NodeAttribute>,
    /// The products classified under it, by `tid` (declared in the document or stored; replaced
    /// on a second load), or with their place among the product's nodes.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub products: Vec<Classified>,
}

/// A product classified under a node: its `tid` (last among the product's nodes), or, as an
/// export writes it, with its place among them.
#[derive(Debug, Deserialize, Serialize, JsonSchema)]
#[serde(untagged)]
pub enum Classified {
    /// The product's `tid`.
    Product(String),
    /// The product's `tid` and the node's place among its nodes.
    Placed(PlacedProduct),
}

/// A product with the node's place among its nodes.
#[derive(Debug, Deserialize, Serialize, JsonSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct PlacedProduct {
    /// The product's `tid`.
    pub product: String,
    /// The node's place among the product's nodes.
    pub position: i64,
}

impl Classified {
    /// The product's `tid`.
    pub fn product(&self) -> &str {
        match self {
            Classified::Product(tid) => tid,
            Classified::Placed(placed) => &placed.product,
        }
    }
}

/// An attribute of a node.
#[derive(Debug, Deserialize, Serialize, JsonSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct NodeAttribute {
    /// The id it keeps when new (an export gives it); absent: the next one.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(range(min = 1))]
    pub id: Option<i64>,
    /// The attribute definition, by `tid`.
    pub key: String,
    /// Seen `p`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub level: Option<String>,
    /// `visible` or `not_visible`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub inheritance: Option<String>,
    /// Seen `optional`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub restriction: Option<String>,
    /// Whether values are per locale.
    #[serde(default, skip_serializing_if = "is_false")]
    pub localized: bool,
    /// `domainVals@allowNewValue`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub allow_new_value: Option<bool>,
    /// `domainVals@sortDirection` (seen `MANUAL`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub sort_direction: Option<String>,
    /// `domainVals@mode` (seen `FULL`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub mode: Option<String>,
    /// The default domain value, by its `tid`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub default_value: Option<String>,
    /// Domain values, in order (replaced on a second load).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub domain_values: Vec<DomainValue>,
}

/// A domain value of a node attribute.
#[derive(Debug, Deserialize, Serialize, JsonSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct DomainValue {
    /// The id it keeps (an export gives it); absent: the next one.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(range(min = 1))]
    pub id: Option<i64>,
    /// The identifier.
    pub tid: String,
    /// Its texts, by locale tid.
    #[serde(default, skip_serializing_if = "Localized::is_empty")]
    pub names: Localized,
}

/// Checks a node: its path, names, and its attributes' keys and domain values.
fn check_node(record: &str, node: &ClassificationNode) -> Result<(), BootstrapError> {
    fits(record, "path", &node.path, &tables::NODE, "path")?;
    given(record, node.id, &[])?;
    if node.path.matches('/').count() > MAX_DEPTH {
        return Err(invalid(
            record.to_string(),
            "path",
            format!("a node is at most {MAX_DEPTH} levels deep (D-23)"),
        ));
    }
    for localized in node.names.values() {
        name(record, "names", localized)?;
    }
    counted(record, "names", node.names.len(), (&tables::NAME, "itm"), 1)?;
    counted(
        record,
        "attributes",
        node.attributes.len(),
        (&tables::NODE, "attr"),
        0,
    )?;
    for attribute in &node.attributes {
        fits(record, "attributes", &attribute.key, &tables::ATTR, "key")?;
        given(record, attribute.id, &[])?;
        let values = attribute.domain_values.len();
        counted(
            record,
            "domainValues",
            values,
            (&tables::DOMAIN_VALS, "domainVal"),
            0,
        )?;
        for value in &attribute.domain_values {
            given(record, value.id, &[])?;
            let texts = value.names.len();
            counted(
                record,
                "domainValues",
                texts,
                (&tables::DOMAIN_VAL, "itm"),
                0,
            )?;
            fits(
                record,
                "domainValues",
                &value.tid,
                &tables::DOMAIN_VAL,
                "tid",
            )?;
            for text in value.names.values() {
                fits(record, "domainValues", text, &tables::ITM, "value")?;
            }
        }
    }
    Ok(())
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
            check_node(
                &format!("{record}.nodes[{node_index}] ({})", node.path),
                node,
            )?;
        }
        given(
            &record,
            classification.id,
            &[
                ("createdAt", classification.created_at.as_deref()),
                ("modifiedAt", classification.modified_at.as_deref()),
            ],
        )?;
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
            self.progress.advance(1);
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
        let row = ClassificationRow {
            id: classification.id,
            tid: &classification.tid,
            created_at: classification.created_at.as_deref().unwrap_or(&self.now),
            modified_at: classification.modified_at.as_deref().unwrap_or(&self.now),
        };
        let id = import::upsert_classification(self.transaction, &row).await?;
        self.loaded.records += 1;
        import::clear(self.transaction, Owned::ClassificationNames, id).await?;
        for (loc, name) in &classification.names {
            import::insert_name(self.transaction, Names::Classification, id, loc, name).await?;
        }
        let root = format!("/{}", classification.tid);
        // Parents first, whatever their place in the document.
        let nodes = &classification.nodes;
        let declared: std::collections::HashMap<&str, usize> = nodes
            .iter()
            .enumerate()
            .map(|(index, node)| (node.path.as_str(), index))
            .collect();
        let order = super::fields::parents_first(nodes.len(), |index| {
            let (parent, _) = nodes[index].path.rsplit_once('/')?;
            declared.get(parent).copied()
        });
        for index in order {
            let node = &classification.nodes[index];
            let position = node.position.unwrap_or(index as i64);
            let record = format!("{record}.nodes[{index}] ({})", node.path);
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
                match import::node_id(self.transaction, id, parent_path).await? {
                    Some(parent) => Some(parent),
                    None => {
                        return Err(invalid(
                            record,
                            "path",
                            format!(
                                "the parent node '{parent_path}' is neither declared nor stored"
                            ),
                        ));
                    }
                }
            };
            let row = NodeRow {
                id: node.id,
                classification_id: id,
                parent_id: parent,
                identifier,
                path: &node.path,
                position,
            };
            let node_id = import::upsert_node(self.transaction, &row).await?;
            self.loaded.records += 1;
            import::clear(self.transaction, Owned::NodeNames, node_id).await?;
            for (loc, name) in &node.names {
                import::insert_name(self.transaction, Names::Node, node_id, loc, name).await?;
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
        products: &[Classified],
        record: &str,
    ) -> Result<(), BootstrapError> {
        import::clear(self.transaction, Owned::NodeProducts, node_id).await?;
        for classified in products {
            let product = self
                .find(
                    Lookup::Product,
                    classified.product(),
                    record,
                    "products",
                    "a product",
                )
                .await?;
            let position = match classified {
                Classified::Product(_) => None,
                Classified::Placed(placed) => Some(placed.position),
            };
            import::append_product_node(self.transaction, product, node_id, position).await?;
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
                Lookup::AttributeDefinition,
                &attribute.key,
                record,
                "key",
                "an attribute definition",
            )
            .await?;
        let row = NodeAttributeRow {
            id: attribute.id,
            node_id,
            definition_id: definition,
            level: attribute.level.as_deref(),
            inheritance: attribute.inheritance.as_deref(),
            restriction: attribute.restriction.as_deref(),
            localized: attribute.localized,
            allow_new_value: attribute.allow_new_value,
            sort_direction: attribute.sort_direction.as_deref(),
            mode: attribute.mode.as_deref(),
            default_value: attribute.default_value.as_deref(),
        };
        let attribute_id = import::upsert_node_attribute(self.transaction, &row).await?;
        self.loaded.records += 1;
        import::clear(self.transaction, Owned::DomainValues, attribute_id).await?;
        for (position, value) in attribute.domain_values.iter().enumerate() {
            let value_id = import::insert_domain_value(
                self.transaction,
                value.id,
                attribute_id,
                &value.tid,
                position as i64,
            )
            .await?;
            for (loc, text) in &value.names {
                import::insert_name(self.transaction, Names::DomainValue, value_id, loc, text)
                    .await?;
            }
        }
        Ok(())
    }
}
