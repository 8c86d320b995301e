//! The harness of the contract suite (`tests/contract/`, `harness = false`): each test is an
//! `async fn` listed in its file with [`trials!`](crate::trials) and run by libtest-mimic on a Tokio
//! runtime of its own. When the whole suite has run and passed, the coverage report
//! ([`crate::coverage::report`]) is printed, and the run fails when an implemented operation is
//! not fully covered. A test left out of its file's list is dead code, which the build refuses.

use std::future::Future;

use libtest_mimic::Arguments;
pub use libtest_mimic::Trial;

use crate::{coverage, document};

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

/// Lists the tests of a file: `trials!(first_test, second_test)` defines `trials()`.
#[macro_export]
macro_rules! trials {
    ($($test:ident),* $(,)?) => {
        /// The tests of this file.
        pub(crate) fn trials() -> Vec<$crate::harness::Trial> {
            vec![$($crate::harness::trial(concat!(module_path!(), "::", stringify!($test)), $test)),*]
        }
    };
}

/// Runs the suite's tests, then checks the coverage when all of them ran and passed.
pub fn main(trials: Vec<Trial>) -> ! {
    let arguments = Arguments::from_args();
    let whole = arguments.filter.is_none()
        && arguments.skip.is_empty()
        && !arguments.list
        && !arguments.ignored;
    let conclusion = libtest_mimic::run(&arguments, trials);
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
