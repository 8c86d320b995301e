//! The message scenarios of the DAM operations.

use super::{Scenario, scenario};
use core_api::operations as op;

pub(super) fn dam() -> Vec<Scenario> {
    vec![
        scenario(
            &op::ASSETS_VERSIONS_BIN,
            "404 for an unknown asset",
            &["Asset not found"],
        )
        .query(|_| "assetTid=CF-unknown-asset&versionNumber=1".into())
        .refused(404, "Asset not found"),
        scenario(
            &op::ASSETS_VERSIONS_BIN,
            "404 for an unknown version",
            &["Asset version not found"],
        )
        .query(|_| "assetTid=CF-A-1&versionNumber=99".into())
        .refused(404, "Asset version not found"),
        scenario(
            &op::ASSETS_VERSIONS_BIN,
            "404 for an unknown preview",
            &["Preview '<format>' not found"],
        )
        .query(|_| "versionTid=CF-V-1-1&format=poster".into())
        .refused(404, "Preview 'poster' not found"),
    ]
}
