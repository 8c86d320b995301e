//! The Common module of the specification: one file per resource, the operations here.
//!
//! Implemented: `transform`, `localesRetrieve`, `keywordsRetrieve`, `keywordsPersist`,
//! `componentsRetrieve`, `messagesPersist`, `glossaryEntriesPersist`, `glossaryEntriesPerform`,
//! `linksPersist`: every operation of the module. The other operations answer 501 with a ResponseType body naming the
//! operation, through the default methods of the generated `CommonApi` trait.

mod components;
mod glossary;
mod keywords;
mod links;
mod locales;
pub(crate) mod messages;

use core_api::{
    CommonApi,
    types::{
        Actions, Components, ComponentsRequest, KeywordRequest, Kwds, LocaleRequest, Locales,
        MessagesPersistRequest, PimType, Responses, ResponsesType, ServiceType,
    },
};

use super::{
    batch,
    envelope::{self, accept_schema_version, answer_schema_version},
};
use crate::{error::ApiError, http::host::Context, service::Service};

impl CommonApi for Service {
    /// The message was decoded from the request's representation by the host; answering it is
    /// encoding it in the representation `Accept` names. Only `schemaVersion` is set to the
    /// version this service speaks; nothing is stored.
    async fn transform(
        &self,
        _context: &Context,
        input: ServiceType,
    ) -> Result<ServiceType, ApiError> {
        let mut message = input.0;
        accept_schema_version(message.schema_version.as_ref())?;
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
        _context: &Context,
        input: MessagesPersistRequest,
    ) -> Result<ResponsesType, ApiError> {
        batch::check_size("messages", input.messages.len())?;
        messages::check(&input.messages)?;
        let response = batch::run(
            &self.database,
            &input.messages,
            messages::echo,
            |transaction, message, now| Box::pin(messages::persist(transaction, message, now)),
        )
        .await;
        let envelope = envelope::answer(self, None);
        Ok(ResponsesType {
            schema_version: envelope.schema_version,
            meta: envelope.meta,
            responses: Some(Responses { response }),
        })
    }

    async fn glossary_entries_persist(
        &self,
        context: &Context,
        input: PimType,
    ) -> Result<PimType, ApiError> {
        envelope::accept(input.schema_version.as_ref(), input.meta.as_ref())?;
        let entries = input
            .glossary_entries
            .ok_or_else(|| ApiError::missing("", "glossaryEntries"))?;
        batch::check_size(
            "glossaryEntries/glossaryEntry",
            entries.glossary_entry.len(),
        )?;
        let user = context.caller.user.clone();
        let response = batch::run(
            &self.database,
            &entries.glossary_entry,
            glossary::echo,
            move |transaction, entry, now| {
                let user = user.clone();
                Box::pin(async move { glossary::persist(transaction, entry, &user, now).await })
            },
        )
        .await;
        Ok(PimType {
            responses: Some(Responses { response }),
            ..envelope::answer(self, None)
        })
    }

    async fn glossary_entries_perform(
        &self,
        _context: &Context,
        input: ServiceType,
    ) -> Result<ServiceType, ApiError> {
        let input = input.0;
        envelope::accept(input.schema_version.as_ref(), input.meta.as_ref())?;
        let Actions { action } = input
            .actions
            .ok_or_else(|| ApiError::missing("", "actions"))?;
        batch::check_size("actions/action", action.len())?;
        glossary::check_actions(&action)?;
        let response = batch::run(
            &self.database,
            &action,
            glossary::echo_action,
            |transaction, action, _now| Box::pin(glossary::perform(transaction, action)),
        )
        .await;
        Ok(ServiceType(PimType {
            responses: Some(Responses { response }),
            ..envelope::answer(self, None)
        }))
    }

    async fn links_persist(&self, context: &Context, input: PimType) -> Result<PimType, ApiError> {
        envelope::accept(input.schema_version.as_ref(), input.meta.as_ref())?;
        let links = input.links.ok_or_else(|| ApiError::missing("", "links"))?;
        let links = links::of(&links);
        batch::check_size("links/itms/itms", links.len())?;
        let caller = context.caller.clone();
        let response = batch::run(
            &self.database,
            &links,
            links::echo,
            move |transaction, link, _now| {
                let caller = caller.clone();
                Box::pin(async move { links::persist(transaction, &caller, link).await })
            },
        )
        .await;
        Ok(PimType {
            responses: Some(Responses { response }),
            ..envelope::answer(self, None)
        })
    }

    async fn keywords_retrieve(
        &self,
        context: &Context,
        input: KeywordRequest,
    ) -> Result<ServiceType, ApiError> {
        let kwd = keywords::retrieve(&self.database, &context.caller, &input).await?;
        Ok(ServiceType(PimType {
            kwds: Some(Kwds { kwd }),
            ..envelope::answer(self, None)
        }))
    }

    async fn keywords_persist(
        &self,
        _context: &Context,
        input: PimType,
    ) -> Result<PimType, ApiError> {
        envelope::accept(input.schema_version.as_ref(), input.meta.as_ref())?;
        let kwds = input.kwds.ok_or_else(|| ApiError::missing("", "kwds"))?;
        batch::check_size("kwds/kwd", kwds.kwd.len())?;
        let response = batch::run(
            &self.database,
            &kwds.kwd,
            keywords::echo,
            |transaction, kwd, now| Box::pin(keywords::persist(transaction, kwd, now)),
        )
        .await;
        Ok(PimType {
            responses: Some(Responses { response }),
            ..envelope::answer(self, None)
        })
    }
}
