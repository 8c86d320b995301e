//! What the DAM operation is sent: a well-formed request, and a scenario per rule and item
//! message.

use core_api::messages as msg;

use super::{Scenario, request, scenario};
use core_api::operations as op;

pub(super) fn dam() -> Vec<Scenario> {
    vec![
        request(&op::ASSETS_VERSIONS_BIN).query(|_| "assetTid=CF-A-1&versionNumber=1".into()),
        scenario(
            &op::ASSETS_VERSIONS_BIN,
            "404 for an unknown asset",
            &[msg::ASSET_NOT_FOUND],
        )
        .query(|_| "assetTid=CF-unknown-asset&versionNumber=1".into())
        .refused(404, msg::ASSET_NOT_FOUND),
        scenario(
            &op::ASSETS_VERSIONS_BIN,
            "404 for an unknown version",
            &[msg::ASSET_VERSION_NOT_FOUND],
        )
        .query(|_| "assetTid=CF-A-1&versionNumber=99".into())
        .refused(404, msg::ASSET_VERSION_NOT_FOUND),
        scenario(
            &op::ASSETS_VERSIONS_BIN,
            "404 for an unknown preview",
            &[msg::PREVIEW_FORMAT_NOT_FOUND],
        )
        .query(|_| "versionTid=CF-V-1-1&format=poster".into())
        .refused(404, "Preview 'poster' not found"),
    ]
}
