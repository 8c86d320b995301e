//! The Common module over HTTP: one file (or folder) per resource, each with its tests and its
//! answer scenarios; the snapshots of the module's answers are in `snapshots/` beside.

mod glossary;
mod keywords;
mod links;
mod locales;
mod messages;
mod transform;

/// The answer scenarios of this module's operations.
pub(crate) fn scenarios() -> Vec<crate::answers::Scenario> {
    [
        glossary::scenarios(),
        keywords::scenarios(),
        links::scenarios(),
        locales::scenarios(),
        messages::scenarios(),
        transform::scenarios(),
    ]
    .into_iter()
    .flatten()
    .collect()
}

/// The tests of this module's operations.
pub(crate) fn trials() -> Vec<contract_tests::harness::Trial> {
    [
        glossary::trials(),
        keywords::trials(),
        links::trials(),
        locales::trials(),
        messages::trials(),
        transform::trials(),
    ]
    .into_iter()
    .flatten()
    .collect()
}
