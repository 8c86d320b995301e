//! The PEO module of the specification.
//!
//! No operation of this module is implemented yet: each answers 501 with a ResponseType body
//! naming the operation, through the default methods of the generated `PeoApi` trait.

use core_api::PeoApi;

use crate::service::Service;

impl PeoApi for Service {}
