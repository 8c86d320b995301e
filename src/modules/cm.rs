//! The CM module of the specification.
//!
//! No operation of this module is implemented yet: each answers 501 with a ResponseType body
//! naming the operation, through the default methods of the generated `CmApi` trait.

use core_api::CmApi;

use crate::service::Service;

impl CmApi for Service {}
