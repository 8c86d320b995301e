//! The PIM module of the specification: one file per resource, the operations here.
//!
//! Implemented: every operation of the module — classifications with their nodes
//! (`classes.rs`), node attributes (`attributes.rs`) and attribute definitions
//! (`definitions.rs`). A batch operation is one declaration (its
//! [`Apply`](super::batch::Apply) in the resource's file) handed to `batch::answer`.

mod attributes;
mod classes;
mod definitions;

use core_api::service::ClassesRetrieveItem;
use core_api::{
    PimApi,
    types::{
        ActionsRequest, AttributeDefinitionsQuery, AttributeDefinitionsRequest,
        AttributesQueryRequest, AttributesQueryResponse, AttributesRetrieveRequest, Attrs,
        AttrsPersistRequest, Classes, ClassesPersistRequest, ClassificationRequest, Nodes, PimType,
    },
};
use core_api_support::Streamed;

use self::classes::Form;

use super::{batch, deletion::Deletes, envelope};
use crate::{
    error::ApiError,
    service::{Context, Service},
};

/// The `itemInformationType` of answers holding classifications.
const CLASSIFICATION: &str = "classification";

/// The `itemInformationType` of answers holding attributes.
const ATTRIBUTE: &str = "attribute";

impl Service {
    /// The answer of classes retrieve and of the classifications listing: the nested form's
    /// classifications, or the flat form's nodes, are written as they are read (D-59).
    async fn classes(
        &self,
        request: &ClassificationRequest,
    ) -> Result<Streamed<PimType, ClassesRetrieveItem, ApiError>, ApiError> {
        let classes::Retrieved {
            form,
            classes,
            items,
        } = classes::retrieve(&self.database, request).await?;
        let (nodes, collection) = match form {
            Form::Bare | Form::Nested => (None, NESTED),
            Form::Flat => (Some(Nodes::default()), FLAT),
        };
        Ok(Streamed {
            envelope: PimType {
                classes: Some(Classes { class: classes }),
                nodes,
                ..envelope::answer(self, Some(CLASSIFICATION))
            },
            collection,
            items,
        })
    }
}

/// The streamed collection (`x-streamed`) of the nested form: each `class`, then its nodes.
const NESTED: usize = 0;

/// The streamed collection of the flat form: the top-level `nodes`.
const FLAT: usize = 1;

impl PimApi for Service {
    /// Like classes retrieve with an empty body (D-21).
    async fn get_classes(&self, _context: &Context) -> Result<PimType, ApiError> {
        // Without nodes nothing is streamed: the answer is whole.
        Ok(self
            .classes(&ClassificationRequest::default())
            .await?
            .envelope)
    }

    async fn classes_retrieve(
        &self,
        _context: &Context,
        input: Option<ClassificationRequest>,
    ) -> Result<Streamed<PimType, ClassesRetrieveItem, ApiError>, ApiError> {
        self.classes(&input.unwrap_or_default()).await
    }

    async fn classes_persist(
        &self,
        context: &Context,
        input: ClassesPersistRequest,
    ) -> Result<PimType, ApiError> {
        let items = classes::items(&input)?;
        batch::answer::<classes::Persist<'_>>(self, context, &input, &items).await
    }

    async fn classes_perform(
        &self,
        context: &Context,
        input: ActionsRequest,
    ) -> Result<PimType, ApiError> {
        batch::answer::<Deletes<classes::Perform>>(self, context, &input, &input.actions.action)
            .await
    }

    async fn attributes_retrieve(
        &self,
        context: &Context,
        input: AttributesRetrieveRequest,
    ) -> Result<PimType, ApiError> {
        let selection = attributes::Selection::from(&input);
        let selected = attributes::select(
            &self.database,
            &context.caller,
            &selection,
            input.with_domain_values,
        )
        .await?;
        let attr = attributes::answer(
            selected,
            input.with_domain_values,
            input.with_default_values,
        );
        Ok(PimType {
            attrs: Some(Attrs { attr }),
            ..envelope::answer(self, Some(ATTRIBUTE))
        })
    }

    async fn attributes_query(
        &self,
        context: &Context,
        input: AttributesQueryRequest,
    ) -> Result<AttributesQueryResponse, ApiError> {
        let selection = attributes::Selection::from(&input);
        let selected =
            attributes::select(&self.database, &context.caller, &selection, false).await?;
        Ok(AttributesQueryResponse {
            ids: selected.iter().map(|found| found.attribute.id).collect(),
        })
    }

    async fn attributes_persist(
        &self,
        context: &Context,
        input: AttrsPersistRequest,
    ) -> Result<PimType, ApiError> {
        batch::answer::<attributes::Persist>(self, context, &input, &input.attrs.attr).await
    }

    async fn attributes_perform(
        &self,
        context: &Context,
        input: ActionsRequest,
    ) -> Result<PimType, ApiError> {
        batch::answer::<Deletes<attributes::Perform>>(self, context, &input, &input.actions.action)
            .await
    }

    async fn attribute_definitions_query(
        &self,
        _context: &Context,
        input: AttributeDefinitionsQuery,
    ) -> Result<AttributeDefinitionsRequest, ApiError> {
        definitions::query(&self.database, &input).await
    }

    async fn attribute_definitions_perform(
        &self,
        context: &Context,
        input: ActionsRequest,
    ) -> Result<PimType, ApiError> {
        batch::answer::<Deletes<definitions::Perform>>(self, context, &input, &input.actions.action)
            .await
    }
}
