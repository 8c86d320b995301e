//! One module per specification module, each implementing the generated trait of its operations.

mod cm;
mod common;
mod dam;
mod peo;
mod pim;
