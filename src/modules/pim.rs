//! The PIM module of the specification.
//!
//! No operation of this module is implemented yet: each answers 501 with a ResponseType body
//! naming the operation, through the default methods of the generated `PimApi` trait.

use core_api::PimApi;

use crate::service::Service;

impl PimApi for Service {}
