//! The PEO module of the specification: PEO retrieve and query (`peos.rs`, D-30, D-31) and PEO
//! links persist (`links.rs`, D-32).

mod links;
pub(crate) mod peos;

use core_api::{
    PeoApi,
    types::{LinksRequest, PeoQuery, PeoQueryResponse, PeoRequest, Peos, PimType},
};

use super::{batch, envelope, links as link_groups};
use crate::{
    error::ApiError,
    service::{Context, Service},
};

/// The `itemInformationType` of answers holding PEOs.
const PEO: &str = "peo";

impl PeoApi for Service {
    async fn peos_retrieve(
        &self,
        context: &Context,
        input: PeoRequest,
    ) -> Result<PimType, ApiError> {
        let peo = peos::retrieve(&self.database, &context.caller, &input).await?;
        Ok(PimType {
            peos: Some(Peos { peo }),
            ..envelope::answer(self, Some(PEO))
        })
    }

    async fn peos_query(
        &self,
        context: &Context,
        input: PeoQuery,
    ) -> Result<PeoQueryResponse, ApiError> {
        peos::query(
            &self.database,
            &context.caller,
            self.settings.time_zone,
            &input,
        )
        .await
    }

    async fn peos_links_persist(
        &self,
        context: &Context,
        input: LinksRequest,
    ) -> Result<PimType, ApiError> {
        let pairs = link_groups::of(&input.links);
        batch::answer::<links::LinkPersist<'_>>(self, context, &input, &pairs).await
    }
}
