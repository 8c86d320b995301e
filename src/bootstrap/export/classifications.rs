//! Classifications, each with its nodes written as they are read (a classification may hold
//! many), every node with its names, attributes (with domain values) and products.

use std::collections::HashMap;

use super::{ExportError, Kinds, by, span, take_own};
use crate::{
    bootstrap::{
        Classification, ClassificationNode, Classified, DomainValue, Localized, NodeAttribute,
        PlacedProduct,
    },
    storage::export::{
        self, Chunked, ClassificationRow, DomainValueRow, NodeAttributeRow, NodeRow, Owned,
        OwnedRow,
    },
};

/// What the nodes of one chunk own.
struct Owns {
    names: Vec<OwnedRow>,
    products: Vec<OwnedRow>,
    attributes: HashMap<i64, Vec<NodeAttributeRow>>,
    values: HashMap<i64, Vec<DomainValueRow>>,
    texts: HashMap<i64, Vec<OwnedRow>>,
}

impl Kinds<'_, '_> {
    pub(super) async fn classifications(&mut self) -> Result<(), ExportError> {
        self.open("classifications", "classifications").await?;
        let mut after = 0;
        loop {
            let rows: Vec<ClassificationRow> =
                export::chunk(self.connection, Chunked::Classifications, after).await?;
            let Some(last) = rows.last().map(|row| row.id) else {
                break;
            };
            let mut names =
                export::owned(self.connection, Owned::ClassificationNames, after, last).await?;
            names.reverse();
            for row in rows {
                self.progress.advance(1);
                let header = Classification {
                    id: Some(row.id),
                    tid: row.tid,
                    created_at: Some(row.created_at),
                    modified_at: Some(row.modified_at),
                    names: localized(take_own(&mut names, row.id)),
                    nodes: Vec::new(),
                };
                self.document.open_record(&header, "nodes")?;
                self.nodes(row.id).await?;
                self.document.close_record()?;
            }
            after = last;
        }
        self.close()
    }

    /// The nodes of one classification, a chunk at a time.
    async fn nodes(&mut self, classification: i64) -> Result<(), ExportError> {
        let mut after = 0;
        loop {
            let nodes = export::nodes(self.connection, classification, after).await?;
            let (Some(first), Some(last)) = (nodes.first(), nodes.last()) else {
                return Ok(());
            };
            let (first, last) = (first.id - 1, last.id);
            let mut owns = self.owns(first, last).await?;
            for node in nodes {
                self.document.item(&node_of(node, &mut owns))?;
            }
            after = last;
        }
    }

    /// What the nodes of ids in `(after, last]` own.
    async fn owns(&mut self, after: i64, last: i64) -> Result<Owns, ExportError> {
        let mut names = export::owned(self.connection, Owned::NodeNames, after, last).await?;
        names.reverse();
        let mut products = export::owned(self.connection, Owned::NodeProducts, after, last).await?;
        products.reverse();
        let attributes = export::node_attributes(self.connection, after, last).await?;
        let (low, high) = span(attributes.iter().map(|attribute| attribute.id));
        let values = export::domain_values(self.connection, low, high).await?;
        let (low, high) = span(values.iter().map(|value| value.id));
        let texts = export::owned(self.connection, Owned::DomainValueNames, low, high).await?;
        Ok(Owns {
            names,
            products,
            attributes: by(attributes, |attribute| attribute.node_id),
            values: by(values, |value| value.node_attribute_id),
            texts: by(texts, |text| text.owner),
        })
    }
}

/// Names by locale.
fn localized(rows: Vec<OwnedRow>) -> Localized {
    rows.into_iter().map(|row| (row.key, row.value)).collect()
}

/// A node as the document states it.
fn node_of(row: NodeRow, owns: &mut Owns) -> ClassificationNode {
    let attributes = owns
        .attributes
        .remove(&row.id)
        .unwrap_or_default()
        .into_iter()
        .map(|attribute| {
            let values = owns.values.remove(&attribute.id).unwrap_or_default();
            NodeAttribute {
                id: Some(attribute.id),
                key: attribute.key,
                level: attribute.level,
                inheritance: attribute.inheritance,
                restriction: attribute.restriction,
                localized: attribute.localized.into(),
                allow_new_value: attribute.allow_new_value.map(Into::into),
                sort_direction: attribute.sort_direction,
                mode: attribute.mode,
                default_value: attribute.default_value_tid,
                domain_values: values
                    .into_iter()
                    .map(|value| DomainValue {
                        id: Some(value.id),
                        names: localized(owns.texts.remove(&value.id).unwrap_or_default()),
                        tid: value.tid,
                    })
                    .collect(),
            }
        })
        .collect();
    let products = take_own(&mut owns.products, row.id)
        .into_iter()
        .map(|link| {
            Classified::Placed(PlacedProduct {
                product: link.value,
                position: link.key.parse().unwrap_or_default(),
            })
        })
        .collect();
    ClassificationNode {
        id: Some(row.id),
        path: row.path,
        position: Some(row.position),
        names: localized(take_own(&mut owns.names, row.id)),
        attributes,
        products,
    }
}
