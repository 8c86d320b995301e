//! The CM module of the specification: channels (`project`) queried, retrieved and persisted
//! (`channels.rs`, `persist.rs`) and their briefings (`briefings.rs`).

mod briefings;
mod channels;
mod persist;

use std::sync::Arc;

use core_api::{
    CmApi,
    types::{
        BriefingRequest, ChannelQueryDto, ChannelRequest, ChannelRequestDto, PatchBriefing,
        PimType, Project, Projects, ProjectsPersistRequest,
    },
};
use core_api_support::Streamed;

use super::{batch, envelope};
use crate::{
    error::ApiError,
    service::{Context, Service},
};

/// The `itemInformationType` of answers holding channels.
const PROJECT: &str = "project";

impl CmApi for Service {
    async fn channels_query(
        &self,
        _context: &Context,
        input: ChannelQueryDto,
    ) -> Result<ChannelRequest, ApiError> {
        channels::query(&self.database, &input).await
    }

    async fn channels_retrieve(
        &self,
        context: &Context,
        input: ChannelRequestDto,
    ) -> Result<Streamed<PimType, Project, ApiError>, ApiError> {
        Ok(Streamed {
            envelope: PimType {
                projects: Some(Projects::default()),
                ..envelope::answer(self, Some(PROJECT))
            },
            collection: 0,
            items: channels::retrieve(&self.database, Arc::clone(&context.caller), input),
        })
    }

    async fn channels_persist(
        &self,
        context: &Context,
        input: ProjectsPersistRequest,
    ) -> Result<PimType, ApiError> {
        batch::answer::<persist::Persist>(self, context, &input, &input.projects.project).await
    }

    async fn retrieve_channel_briefings(
        &self,
        _context: &Context,
        input: BriefingRequest,
    ) -> Result<PatchBriefing, ApiError> {
        briefings::retrieve(&self.database, &input).await
    }
}
