//! The harness of the contract suite (`tests/contract/`, `harness = false`): each test is an
//! `async fn` listed in its file with [`trials!`](crate::trials) and run by libtest-mimic on a Tokio
//! runtime of its own. When the whole suite has run and passed, the coverage report
//! ([`crate::coverage::report`]) is printed, and the run fails when an implemented operation is
//! not fully covered, and every XML body the tests exchanged is held to the XML Schema
//! ([`crate::xml_checked`]). A test left out of its file's list is dead code, which the build refuses;
//! a file's list registers itself ([`Tests`]), so no list names the files.

use std::future::Future;

use libtest_mimic::Arguments;
pub use libtest_mimic::Trial;

use crate::{coverage, document, xml_checked};

/// One test: `test` run to completion on a multi-threaded Tokio runtime.
pub fn trial<F, T>(path: &str, test: F) -> Trial
where
    F: FnOnce() -> T + Send + 'static,
    T: Future<Output = ()>,
{
    // `contract::keywords::name` is listed as `keywords::name`.
    let name = path.split_once("::").map_or(path, |(_, name)| name);
    Trial::test(name, move || {
        tokio::runtime::Builder::new_multi_thread()
            .worker_threads(4)
            .enable_all()
            .build()
            .expect("a Tokio runtime")
            .block_on(test());
        Ok(())
    })
}

/// The tests of one file, registered by [`trials!`](crate::trials): the suite finds every file's
/// tests without a list naming the files.
pub struct Tests(pub fn() -> Vec<Trial>);

inventory::collect!(Tests);

#[doc(hidden)]
pub use inventory;

/// Lists and registers the tests of a file: `trials!(first_test, second_test)`.
#[macro_export]
macro_rules! trials {
    ($($test:ident),* $(,)?) => {
        /// The tests of this file.
        fn trials() -> Vec<$crate::harness::Trial> {
            vec![$($crate::harness::trial(concat!(module_path!(), "::", stringify!($test)), $test)),*]
        }

        $crate::harness::inventory::submit!($crate::harness::Tests(trials));
    };
}

/// Runs every registered test (in the order of their names), then checks the coverage when all
/// of them ran and passed.
pub fn main() -> ! {
    let mut trials: Vec<Trial> = inventory::iter::<Tests>
        .into_iter()
        .flat_map(|Tests(trials)| trials())
        .collect();
    trials.sort_by(|a, b| a.name().cmp(b.name()));
    let arguments = Arguments::from_args();
    let whole = arguments.filter.is_none()
        && arguments.skip.is_empty()
        && !arguments.list
        && !arguments.ignored;
    let conclusion = libtest_mimic::run(&arguments, trials);
    if !conclusion.has_failed() {
        match xml_checked::check_kept() {
            Ok(summary) => eprintln!("{summary}"),
            Err(report) => {
                eprintln!("{report}");
                eprintln!(
                    "error: an XML body the suite exchanged is not valid against the XML Schema"
                );
                std::process::exit(101);
            }
        }
    }
    if whole && !conclusion.has_failed() {
        match coverage::report(&document()) {
            Ok(report) => eprintln!("{report}"),
            Err(report) => {
                eprintln!("{report}");
                eprintln!(
                    "error: an implemented operation is not fully covered by a contract test"
                );
                std::process::exit(101);
            }
        }
    }
    conclusion.exit()
}
