//! The contract suite over HTTP, one file per resource or concern, run by the harness of
//! `contract_tests::harness`: every test, then the coverage report of every operation of the
//! document (`contract_tests::coverage`). On SQLite and, when `CORE_TEST_POSTGRES_URL` is set,
//! PostgreSQL (`contract_tests::backends`).

mod answers;
mod auth;
mod client;
mod cm;
mod conformance;
mod dam;
mod examples;
mod glossary;
mod http;
mod keywords;
mod limits;
mod links;
mod locales;
mod messages;
mod peo;
mod peo_links;
mod pim;
mod transform;

fn main() {
    let trials = [
        answers::trials(),
        auth::trials(),
        client::trials(),
        cm::trials(),
        conformance::trials(),
        dam::trials(),
        examples::trials(),
        glossary::trials(),
        http::trials(),
        keywords::trials(),
        limits::trials(),
        links::trials(),
        locales::trials(),
        messages::trials(),
        peo::trials(),
        peo_links::trials(),
        pim::trials(),
        transform::trials(),
    ];
    contract_tests::harness::main(trials.into_iter().flatten().collect())
}
