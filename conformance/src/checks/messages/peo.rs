//! The message scenarios of the PEO operations.

use super::{Scenario, requests::channel, scenario};
use core_api::operations as op;

pub(super) fn peo() -> Vec<Scenario> {
    vec![
        scenario(&op::PEOS_RETRIEVE, "404 when no PEO is found", &["None of the requested PEOs was found"])
            .send(body!({"tids": ["CF-{u}"]}))
            .refused(404, "None of the requested PEOs was found"),
        scenario(&op::PEOS_QUERY, "404 for an unknown project", &["Project '<tid>' not found"])
            .send(body!({"tidProject": "CF-{u}"}))
            .refused(404, "Project 'CF-{u}' not found"),
        scenario(&op::PEOS_QUERY, "404 for an unknown product", &["Product '<tid>' not found"])
            .send(body!({"tidProduct": "CF-{u}"}))
            .refused(404, "Product 'CF-{u}' not found"),
        scenario(&op::PEOS_LINKS_PERSIST, "links a PEO to a project", &["The link has been saved successfully"])
            .after(&op::CHANNELS_PERSIST, channel)
            .send(body!({"links": {"itms": [{"type": "peoToProject", "itms": [{"itm": [
                {"key": "peoTid", "value": "CF-PEO-2"}, {"key": "projectTid", "value": "CF-{u}"}]}]}]}}))
            .records(&[("SUCCESS", "The link has been saved successfully")]),
        scenario(&op::PEOS_LINKS_PERSIST, "refuses unknown PEOs and projects", &["PEO not found", "Project not found"])
            .send(body!({"links": {"itms": [{"type": "peoToProject", "itms": [
                {"itm": [{"key": "peoTid", "value": "CF-{u}"}, {"key": "projectTid", "value": "CF-Web"}]},
                {"itm": [{"key": "peoTid", "value": "CF-PEO-2"}, {"key": "projectTid", "value": "CF-{u}"}]}]}]}}))
            .records(&[("ERROR", "PEO not found"), ("ERROR", "Project not found")]),
        scenario(&op::PEOS_LINKS_PERSIST, "refuses a PEO the caller may not see", &["PEO is not available by access rights"])
            .limited()
            .send(body!({"links": {"itms": [{"type": "peoToProject", "itms": [{"itm": [
                {"key": "peoTid", "value": "CF-PEO-Hidden"}, {"key": "projectTid", "value": "CF-Web"}]}]}]}}))
            .records(&[("ERROR", "PEO is not available by access rights")]),
        scenario(&op::PEOS_LINKS_PERSIST, "refuses incomplete link items", &["Invalid link definition"])
            .send(body!({"links": {"itms": [{"type": "peoToProject", "itms": [
                {"itm": [{"key": "peoTid", "value": "CF-PEO-2"}]},
                {"itm": [{"key": "peoTid", "value": "CF-PEO-2"}, {"key": "projectId", "value": "x"}]}]}]}}))
            .records(&[("ERROR", "Invalid link definition"), ("ERROR", "Invalid link definition")]),
        scenario(&op::PEOS_LINKS_PERSIST, "refuses an unsupported link type", &["Unsupported link type '<type>'"])
            .send(body!({"links": {"itms": [{"type": "peoToCF", "itms": [{"itm": [
                {"key": "peoTid", "value": "CF-PEO-2"}, {"key": "projectTid", "value": "CF-Web"}]}]}]}}))
            .records(&[("ERROR", "Unsupported link type 'peoToCF'")]),
    ]
}
