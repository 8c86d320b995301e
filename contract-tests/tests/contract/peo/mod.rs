//! The PEO module over HTTP: [`peos`] (retrieve and query) and [`links`] (links persist); the
//! snapshots of the module's answers are in `snapshots/` beside.

mod links;
mod peos;

/// The answer scenarios of this module's operations.
pub(crate) fn scenarios() -> Vec<crate::answers::Scenario> {
    [links::scenarios(), peos::scenarios()]
        .into_iter()
        .flatten()
        .collect()
}

/// The tests of this module's operations.
pub(crate) fn trials() -> Vec<contract_tests::harness::Trial> {
    [links::trials(), peos::trials()]
        .into_iter()
        .flatten()
        .collect()
}
