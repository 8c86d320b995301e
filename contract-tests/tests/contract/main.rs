//! The contract suite over HTTP, run by the harness of `contract_tests::harness`: every test,
//! then the coverage report of every operation of the document (`contract_tests::coverage`). On
//! SQLite and, when `CORE_TEST_POSTGRES_URL` is set, PostgreSQL (`contract_tests::backends`).
//!
//! One folder per module of the specification (`common/`, `cm/`, `pim/`, `peo/`, `dam/`), one
//! file per resource in it with its tests and its answer scenarios ([`answers`]), and the
//! module's answer snapshots in its `snapshots/`. The files at this level test what crosses
//! operations: authentication, HTTP, limits, the documented examples, the generated client and
//! the conformance runner. Each file registers its tests (`contract_tests::trials!`) and its
//! answer scenarios (`answers::Scenarios`): a new file needs only its `mod` line.

mod answers;
mod auth;
mod client;
mod client_representations;
mod cm;
mod common;
mod conformance;
mod dam;
mod examples;
mod export;
mod http;
mod idempotency;
mod limits;
mod migrate;
mod peo;
mod pim;
mod retries;

fn main() {
    contract_tests::harness::main()
}
