//! Products with their asset links by link type, and access restrictions.

use schemars::JsonSchema;
use serde::Deserialize;

use super::{Bootstrap, BootstrapError, Checks, Loader, identifier, invalid, non_empty};

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
            self.progress.advance();
            self.product(product)
                .await
                .map_err(|error| error.within(|| format!("products[{index}] ({})", product.tid)))?;
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
}
