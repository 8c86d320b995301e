//! The Common module of the specification.
//!
//! No operation of this module is implemented yet: each answers 501 with a ResponseType body
//! naming the operation, through the default methods of the generated `CommonApi` trait.

use core_api::CommonApi;

use crate::service::Service;

impl CommonApi for Service {}
