//! The Common module of the specification.
//!
//! Implemented: `transform`. The other operations answer 501 with a ResponseType body naming the
//! operation, through the default methods of the generated `CommonApi` trait.

use core_api::{CommonApi, types::ServiceType};

use super::{accept_schema_version, answer_schema_version};
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
}
