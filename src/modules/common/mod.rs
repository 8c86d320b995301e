//! The Common module of the specification: one file per resource, the operations here.
//!
//! Implemented: every operation of the module. A batch operation is one declaration (its
//! [`Apply`](super::batch::Apply) in the resource's file) handed to `batch::answer`.

mod components;
mod glossary;
mod keywords;
mod links;
mod locales;
pub(crate) mod messages;

use core_api::{
    CommonApi,
    types::{
        ActionsRequest, Components, ComponentsRequest, GlossaryEntriesPersistRequest,
        KeywordRequest, KeywordsPersistRequest, Kwd, Kwds, LinksRequest, LocaleRequest, Locales,
        MessagesPersistRequest, PimType, ResponsesType, ServiceType,
    },
};

use std::sync::Arc;

use core_api_support::{Entry, Streamed};
use futures_util::StreamExt;

use super::{
    batch,
    envelope::{self, answer_schema_version},
    links::of,
};
use crate::{
    error::ApiError,
    service::{Context, Service},
};

impl CommonApi for Service {
    /// The message was decoded (and its `schemaVersion` checked) from the request's
    /// representation by the host; answering it is encoding it in the representation `Accept`
    /// names, with the version this service speaks. Nothing is stored.
    async fn transform(
        &self,
        _context: &Context,
        input: ServiceType,
    ) -> Result<ServiceType, ApiError> {
        let mut message = input.0;
        message.schema_version = answer_schema_version();
        Ok(ServiceType(message))
    }

    async fn locales_retrieve(
        &self,
        _context: &Context,
        input: LocaleRequest,
    ) -> Result<PimType, ApiError> {
        let locale = locales::retrieve(&self.database, &input).await?;
        Ok(PimType {
            locales: Some(Locales {
                locale,
                mode: Some("delta".to_string()),
            }),
            ..envelope::answer(self, Some("locale"))
        })
    }

    async fn components_retrieve(
        &self,
        _context: &Context,
        _input: Option<ComponentsRequest>,
    ) -> Result<Components, ApiError> {
        components::retrieve(&self.database).await
    }

    async fn messages_persist(
        &self,
        context: &Context,
        input: MessagesPersistRequest,
    ) -> Result<ResponsesType, ApiError> {
        let answer =
            batch::answer::<messages::Persist>(self, context, &input, &input.messages).await?;
        Ok(envelope::responses_type(answer))
    }

    async fn glossary_entries_persist(
        &self,
        context: &Context,
        input: GlossaryEntriesPersistRequest,
    ) -> Result<PimType, ApiError> {
        let entries = &input.glossary_entries.glossary_entry;
        batch::answer::<glossary::Persist>(self, context, &input, entries).await
    }

    async fn glossary_entries_perform(
        &self,
        context: &Context,
        input: ActionsRequest,
    ) -> Result<ServiceType, ApiError> {
        let actions = &input.actions.action;
        let answer = batch::answer::<glossary::Perform>(self, context, &input, actions).await?;
        Ok(ServiceType(answer))
    }

    async fn links_persist(
        &self,
        context: &Context,
        input: LinksRequest,
    ) -> Result<PimType, ApiError> {
        let links = of(&input.links);
        batch::answer::<links::Persist<'_>>(self, context, &input, &links).await
    }

    async fn keywords_retrieve(
        &self,
        context: &Context,
        input: KeywordRequest,
    ) -> Result<Streamed<ServiceType, Kwd, ApiError>, ApiError> {
        let items = keywords::retrieve(&self.database, Arc::clone(&context.caller), &input).await?;
        Ok(Streamed {
            envelope: ServiceType(PimType {
                kwds: Some(Kwds::default()),
                ..envelope::answer(self, None)
            }),
            collection: 0,
            items: items.map(|item| item.map(Entry::top)).boxed(),
        })
    }

    async fn keywords_persist(
        &self,
        context: &Context,
        input: KeywordsPersistRequest,
    ) -> Result<PimType, ApiError> {
        batch::answer::<keywords::Persist>(self, context, &input, &input.kwds.kwd).await
    }
}
