//! The exchanges the load benchmark measures, and one request of a scenario sent by hand (to
//! check core-server answers it and to give the floor its bytes).

use std::{
    io::{Read, Write},
    net::TcpStream,
};

use anyhow::{Context, Result, bail};
use serde_json::{Value, json};

/// The keyword retrieve path, which the Prism comparison also uses.
const KEYWORDS_RETRIEVE: &str = "/api/core/v1/common/keywords/retrieve";

/// One exchange measured.
pub struct Scenario {
    /// Its name in the tables.
    pub name: &'static str,
    /// The operation's path.
    pub path: &'static str,
    /// The request's representation.
    pub content_type: &'static str,
    /// The answer's representation.
    pub accept: &'static str,
    /// The request body.
    pub body: String,
    /// The body grows a data set (persist): sent to servers of their own, with a unique name per
    /// request made by wrk's script.
    pub persists: bool,
}

/// Every scenario, the keyword retrieve in JSON first.
pub fn all() -> Vec<Scenario> {
    let kwd: Vec<Value> = (0..24)
        .map(|at| json!({"id": at, "path": format!("/Season/Keyword{at:02}"), "name": {"itm": [{"value": format!("Keyword {at:02}")}, {"value": format!("Schlagwort {at:02}"), "loc": "de_DE"}]}}))
        .collect();
    let transform =
        json!({"meta": {"itm": [{"key": "sourceEnv", "value": "bench"}]}, "kwds": {"kwd": kwd}});
    let persist: Vec<Value> = (0..10)
        .map(|at| json!({"parentPath": "/Season", "name": {"itm": [{"value": format!("NAME-{at}")}]}}))
        .collect();
    let keywords = |name, accept| Scenario {
        name,
        path: KEYWORDS_RETRIEVE,
        content_type: "application/json",
        accept,
        body: r#"{"path":"/","level":-1}"#.to_string(),
        persists: false,
    };
    let json = |name, path, body: String, persists| Scenario {
        name,
        path,
        content_type: "application/json",
        accept: "application/json",
        body,
        persists,
    };
    vec![
        keywords("keywords retrieve, JSON", "application/json"),
        keywords("keywords retrieve, XML", "application/xml"),
        keywords(
            "keywords retrieve, compact JSON",
            "application/json+compact",
        ),
        Scenario {
            name: "transform 2 KB JSON → XML",
            path: "/api/core/v1/common/transform",
            content_type: "application/json",
            accept: "application/xml",
            body: transform.to_string(),
            persists: false,
        },
        json(
            "locales retrieve",
            "/api/core/v1/common/locales/retrieve",
            r#"{"mode":"ALL"}"#.to_string(),
            false,
        ),
        json(
            "keywords persist, 10 items",
            "/api/core/v1/common/keywords/persist",
            json!({"kwds": {"kwd": persist}}).to_string(),
            true,
        ),
        json(
            "classes retrieve with nodes",
            "/api/core/v1/pim/classes/retrieve",
            r#"{"tids":["Apparel"],"withNodes":true}"#.to_string(),
            false,
        ),
        json(
            "channels retrieve",
            "/api/core/v1/cm/channels/retrieve",
            r#"{"tids":["CAT-2027","CAT-2027-SHIRTS-P1","WEB-SHOP"]}"#.to_string(),
            false,
        ),
    ]
}

impl Scenario {
    /// One request of the scenario to a server: the status and the body.
    pub fn send(&self, address: &str, token: &str) -> Result<(u16, String)> {
        let mut stream = TcpStream::connect(address)?;
        write!(
            stream,
            "POST {} HTTP/1.1\r\nHost: {address}\r\nAuthorization: Bearer {token}\r\nContent-Type: {}\r\n\
             Accept: {}\r\nContent-Length: {}\r\nConnection: close\r\n\r\n{}",
            self.path,
            self.content_type,
            self.accept,
            self.body.len(),
            self.body
        )?;
        let mut answer = Vec::new();
        stream.read_to_end(&mut answer)?;
        let end = answer
            .windows(4)
            .position(|window| window == b"\r\n\r\n")
            .context("an HTTP head")?;
        let head = String::from_utf8_lossy(&answer[..end]).to_ascii_lowercase();
        let status = head
            .split_whitespace()
            .nth(1)
            .and_then(|status| status.parse().ok())
            .unwrap_or(0);
        if head.contains("transfer-encoding: chunked") {
            bail!(
                "{}: a chunked answer; the floor needs the whole body",
                self.name
            );
        }
        Ok((
            status,
            String::from_utf8_lossy(&answer[end + 4..]).into_owned(),
        ))
    }
}
