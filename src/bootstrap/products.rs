//! Products with their asset links by link type, and access restrictions.

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use super::{Bootstrap, BootstrapError, Checks, Loader, given, identifier, invalid, non_empty};
use crate::storage::import::{self, Owned};

/// A product.
#[derive(Debug, Deserialize, Serialize, JsonSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct Product {
    /// The id it keeps when new (an export gives it); absent: the next one.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(range(min = 1))]
    pub id: Option<i64>,
    /// The identifier.
    pub tid: String,
    /// The name.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub name: Option<String>,
    /// When it was created (UTC text), kept when new; absent: the time of the import.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub created_at: Option<String>,
    /// Roles it is restricted to (none: everybody).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub restricted_to: Vec<String>,
    /// Its asset links (replaced on a second load).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub assets: Vec<ProductAsset>,
}

/// A link of a product to an asset.
#[derive(Debug, Deserialize, Serialize, JsonSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct ProductAsset {
    /// The asset, by `tid`.
    pub asset: String,
    /// The link type: an attribute definition, by `tid`.
    pub link_type: String,
}

/// Checks each product: identity, restrictions, and that its links name assets and attribute
/// definitions of the document.
pub(super) fn check<'d>(
    document: &'d Bootstrap,
    checks: &mut Checks<'d>,
) -> Result<(), BootstrapError> {
    for (index, product) in document.products.iter().enumerate() {
        let record = format!("products[{index}] ({})", product.tid);
        non_empty(&record, "tid", &product.tid)?;
        identifier(&record, "tid", &product.tid)?;
        checks.unique("products", &product.tid, record.clone())?;
        given(
            &record,
            product.id,
            &[("createdAt", product.created_at.as_deref())],
        )?;
        checks.known_roles(&record, &product.restricted_to)?;
        for (link_index, link) in product.assets.iter().enumerate() {
            let record = format!("{record}.assets[{link_index}]");
            if !checks.assets.contains(link.asset.as_str()) {
                return Err(invalid(
                    record,
                    "asset",
                    format!("'{}' is not an asset of the document", link.asset),
                ));
            }
            if !checks.definitions.contains(link.link_type.as_str()) {
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
    Ok(())
}

impl Loader<'_, '_> {
    /// Upserts the products; a product's asset links are replaced.
    pub(super) async fn products(&mut self, document: &Bootstrap) -> Result<(), BootstrapError> {
        for (index, product) in document.products.iter().enumerate() {
            self.progress.advance(1);
            self.product(product)
                .await
                .map_err(|error| error.within(|| format!("products[{index}] ({})", product.tid)))?;
        }
        Ok(())
    }

    async fn product(&mut self, product: &Product) -> Result<(), BootstrapError> {
        let product_id = import::upsert_product(
            self.transaction,
            product.id,
            &product.tid,
            product.name.as_deref(),
            product.created_at.as_deref().unwrap_or(&self.now),
        )
        .await?;
        self.loaded.records += 1;
        self.restrict("product", product_id, &product.restricted_to)
            .await?;
        import::clear(self.transaction, Owned::ProductAssets, product_id).await?;
        for (position, link) in product.assets.iter().enumerate() {
            import::insert_product_asset(
                self.transaction,
                product_id,
                position as i64,
                &link.asset,
                &link.link_type,
            )
            .await?;
            self.loaded.records += 1;
        }
        Ok(())
    }
}
