//! What the PEO operations are sent: a well-formed request of each, and a scenario per rule and
//! item message.

use core_api::messages as msg;

use super::{Scenario, cm::channel, request, scenario};
use core_api::operations as op;

pub(super) fn peo() -> Vec<Scenario> {
    vec![
        request(&op::PEOS_RETRIEVE).send(body!({"tids": ["CF-PEO-1"], "withMetadata": true})),
        request(&op::PEOS_QUERY).send(body!({"tidProduct": "CF-PR-1"})),
        request(&op::PEOS_LINKS_PERSIST).send(body!({"links": {"itms": [{"type": "peoToProject", "itms": [{"itm": [
            {"key": "peoTid", "value": "CF-PEO-2"}, {"key": "projectTid", "value": "CF-Web"}]}]}]}})),
        scenario(&op::PEOS_RETRIEVE, "404 when no PEO is found", &[msg::NONE_OF_THE_REQUESTED_PEOS_WAS_FOUND])
            .send(body!({"tids": ["CF-{u}"]}))
            .refused(404, msg::NONE_OF_THE_REQUESTED_PEOS_WAS_FOUND),
        scenario(&op::PEOS_QUERY, "404 for an unknown project", &[msg::PROJECT_TID_NOT_FOUND])
            .send(body!({"tidProject": "CF-{u}"}))
            .refused(404, "Project 'CF-{u}' not found"),
        scenario(&op::PEOS_QUERY, "404 for an unknown product", &[msg::PRODUCT_TID_NOT_FOUND])
            .send(body!({"tidProduct": "CF-{u}"}))
            .refused(404, "Product 'CF-{u}' not found"),
        scenario(&op::PEOS_LINKS_PERSIST, "links a PEO to a project", &[msg::THE_LINK_HAS_BEEN_SAVED_SUCCESSFULLY])
            .after(&op::CHANNELS_PERSIST, channel)
            .send(body!({"links": {"itms": [{"type": "peoToProject", "itms": [{"itm": [
                {"key": "peoTid", "value": "CF-PEO-2"}, {"key": "projectTid", "value": "CF-{u}"}]}]}]}}))
            .records(&[("SUCCESS", msg::THE_LINK_HAS_BEEN_SAVED_SUCCESSFULLY)]),
        scenario(&op::PEOS_LINKS_PERSIST, "refuses unknown PEOs and projects", &[msg::PEO_NOT_FOUND, msg::PROJECT_NOT_FOUND])
            .send(body!({"links": {"itms": [{"type": "peoToProject", "itms": [
                {"itm": [{"key": "peoTid", "value": "CF-{u}"}, {"key": "projectTid", "value": "CF-Web"}]},
                {"itm": [{"key": "peoTid", "value": "CF-PEO-2"}, {"key": "projectTid", "value": "CF-{u}"}]}]}]}}))
            .records(&[("ERROR", msg::PEO_NOT_FOUND), ("ERROR", msg::PROJECT_NOT_FOUND)]),
        scenario(&op::PEOS_LINKS_PERSIST, "refuses a PEO the caller may not see", &[msg::PEO_IS_NOT_AVAILABLE_BY_ACCESS_RIGHTS])
            .limited()
            .send(body!({"links": {"itms": [{"type": "peoToProject", "itms": [{"itm": [
                {"key": "peoTid", "value": "CF-PEO-Hidden"}, {"key": "projectTid", "value": "CF-Web"}]}]}]}}))
            .records(&[("ERROR", msg::PEO_IS_NOT_AVAILABLE_BY_ACCESS_RIGHTS)]),
        scenario(&op::PEOS_LINKS_PERSIST, "refuses incomplete link items", &[msg::INVALID_LINK_DEFINITION])
            .send(body!({"links": {"itms": [{"type": "peoToProject", "itms": [
                {"itm": [{"key": "peoTid", "value": "CF-PEO-2"}]},
                {"itm": [{"key": "peoTid", "value": "CF-PEO-2"}, {"key": "projectId", "value": "x"}]}]}]}}))
            .records(&[("ERROR", msg::INVALID_LINK_DEFINITION), ("ERROR", msg::INVALID_LINK_DEFINITION)]),
        scenario(&op::PEOS_LINKS_PERSIST, "refuses an unsupported link type", &[msg::UNSUPPORTED_LINK_TYPE_TYPE])
            .send(body!({"links": {"itms": [{"type": "peoToCF", "itms": [{"itm": [
                {"key": "peoTid", "value": "CF-PEO-2"}, {"key": "projectTid", "value": "CF-Web"}]}]}]}}))
            .records(&[("ERROR", "Unsupported link type 'peoToCF'")]),
    ]
}
