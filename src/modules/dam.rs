//! The DAM module of the specification.
//!
//! No operation of this module is implemented yet: each answers 501 with a ResponseType body
//! naming the operation, through the default methods of the generated `DamApi` trait.

use core_api::DamApi;

use crate::service::Service;

impl DamApi for Service {}
