//! Exchanges with a test server, addressed by operation: the path, the method and the media types
//! come from the generated operation metadata, and every call is recorded as coverage evidence.

use core_api_support::{Method, Operation, Representation};
use serde_json::Value;

use crate::{
    TestServer, coverage,
    xml_checked::{self, XmlBody},
};

/// The suite's codec: the default XML namespace, the default limits.
pub fn codec() -> core_server::repr::Codec {
    core_server::repr::Codec::new(
        core_api::document::XML_NAMESPACE_DEFAULT,
        core_server::repr::Limits::default(),
    )
}

/// The media type an operation lists for a representation, as the document names it (the
/// runner's lookup; a test asking for one the operation does not list is a mistake of the test).
pub fn media(operation: &Operation, representation: Representation) -> &'static str {
    core_conformance::exchange::media(operation, representation)
        .unwrap_or_else(|| panic!("{} lists no {representation:?} media type", operation.id))
}

/// One request to an operation, built up and then sent.
pub struct Call<'s> {
    server: &'s TestServer,
    operation: &'static Operation,
    authorization: Option<String>,
    path: &'static str,
    query: String,
    content_type: Option<&'static str>,
    accept: Option<&'static str>,
    headers: Vec<(&'static str, String)>,
    body: Option<Vec<u8>>,
}

/// An answer: its status, `Content-Type` and text.
#[derive(Debug)]
pub struct Answer {
    /// The status code.
    pub status: u16,
    /// The `Content-Type`, empty when absent.
    pub content_type: String,
    /// Every header.
    pub headers: reqwest::header::HeaderMap,
    /// The body as text (lossy for bytes that are not UTF-8).
    pub text: String,
    /// The body as received (a binary answer's bytes).
    pub bytes: Vec<u8>,
}

impl Answer {
    /// The body as JSON.
    pub fn json(&self) -> Value {
        serde_json::from_str(&self.text)
            .unwrap_or_else(|error| panic!("not JSON ({error}): {}", self.text))
    }
}

impl TestServer {
    /// A request to `operation` with the server's `admin` token.
    pub fn call(&self, operation: &'static Operation) -> Call<'_> {
        Call {
            server: self,
            operation,
            authorization: Some(format!("Bearer {}", self.token)),
            path: operation.path,
            query: String::new(),
            content_type: None,
            accept: None,
            headers: Vec::new(),
            body: None,
        }
    }
}

impl Call<'_> {
    /// Sends this token instead of the `admin` one.
    pub fn token(mut self, token: &str) -> Self {
        self.authorization = Some(format!("Bearer {token}"));
        self
    }

    /// Sends this `Authorization` header, or none.
    pub fn authorization(mut self, authorization: Option<&str>) -> Self {
        self.authorization = authorization.map(str::to_string);
        self
    }

    /// Sends to another path the operation serves (`x-path-aliases`).
    pub fn at(mut self, path: &'static str) -> Self {
        assert!(
            path == self.operation.path || self.operation.aliases.contains(&path),
            "{} does not serve {path}",
            self.operation.id
        );
        self.path = path;
        self
    }

    /// Adds a query string (`a=1&b=2`).
    pub fn query(mut self, query: &str) -> Self {
        self.query = format!("?{query}");
        self
    }

    /// A JSON body.
    pub fn json(self, body: &Value) -> Self {
        self.body(Representation::Json, body.to_string())
    }

    /// A body in a representation, with the media type the operation lists for it.
    pub fn body(mut self, representation: Representation, body: impl Into<Vec<u8>>) -> Self {
        self.content_type = Some(media(self.operation, representation));
        self.body = Some(body.into());
        self
    }

    /// A body with a `Content-Type` of the test's choosing (one the operation may refuse).
    pub fn raw(mut self, content_type: &'static str, body: impl Into<Vec<u8>>) -> Self {
        self.content_type = Some(content_type);
        self.body = Some(body.into());
        self
    }

    /// Asks for the answer in a representation the operation lists.
    pub fn accept(mut self, representation: Representation) -> Self {
        self.accept = Some(media(self.operation, representation));
        self
    }

    /// Adds a header of the test's choosing (`Range`, `If-None-Match`, …).
    pub fn header(mut self, name: &'static str, value: &str) -> Self {
        self.headers.push((name, value.to_string()));
        self
    }

    /// Asks for the answer with an `Accept` header of the test's choosing.
    pub fn accept_raw(mut self, accept: &'static str) -> Self {
        self.accept = Some(accept);
        self
    }

    /// Keeps the XML bodies of the exchange for the XML Schema ([`xml_checked`]): the request
    /// when the server took it (a 2xx answer; tests send malformed XML on purpose), and the
    /// answer.
    fn keep_xml(&self, answer: &Answer) {
        let request = self.content_type.zip(self.body.as_deref());
        let answered = (answer.content_type.as_str(), answer.bytes.as_slice());
        for body in XmlBody::of_exchange(self.operation.id, request, answer.status, answered) {
            xml_checked::keep(&self.server.xml_namespace, body);
        }
    }

    /// Sends the request and reads the answer.
    pub async fn send(self) -> Answer {
        coverage::sent(self.operation);
        let client = reqwest::Client::new();
        let url = self.server.url(&format!("{}{}", self.path, self.query));
        let mut request = match self.operation.method {
            Method::Get => client.get(url),
            Method::Post => client.post(url),
        };
        if let Some(authorization) = &self.authorization {
            request = request.header("Authorization", authorization);
        }
        if let Some(content_type) = self.content_type {
            request = request.header("Content-Type", content_type);
        }
        if let Some(accept) = self.accept {
            request = request.header("Accept", accept);
        }
        for (name, value) in &self.headers {
            request = request.header(*name, value);
        }
        if let Some(body) = self.body.clone() {
            request = request.body(body);
        }
        let answer = request.send().await.expect("the server answers");
        let status = answer.status().as_u16();
        let headers = answer.headers().clone();
        let content_type = answer
            .headers()
            .get("content-type")
            .and_then(|value| value.to_str().ok())
            .unwrap_or_default()
            .to_string();
        let bytes = answer.bytes().await.expect("a body").to_vec();
        let answer = Answer {
            status,
            content_type,
            headers,
            text: String::from_utf8_lossy(&bytes).into_owned(),
            bytes,
        };
        self.keep_xml(&answer);
        answer
    }
}

/// Posts a JSON body to an operation with a token, asking for JSON; answers the status and the
/// body.
pub async fn post_json(
    server: &TestServer,
    token: &str,
    operation: &'static Operation,
    body: &Value,
) -> (u16, Value) {
    let answer = server
        .call(operation)
        .token(token)
        .json(body)
        .accept(Representation::Json)
        .send()
        .await;
    (answer.status, answer.json())
}

/// Posts a JSON body to an operation with a token; answers the 200's result records
/// (`responses`).
pub async fn records(
    server: &TestServer,
    token: &str,
    operation: &'static Operation,
    body: &Value,
) -> Vec<Value> {
    let (status, body) = post_json(server, token, operation, body).await;
    assert_eq!(status, 200, "{body}");
    body["responses"]["response"]
        .as_array()
        .cloned()
        .unwrap_or_default()
}

/// Posts a JSON body to a streamed read (`x-streamed`, D-59) whose answer is long, asking for
/// `representation`: checks that it came in chunked transfer and that its bytes are the answer
/// written whole (decoded and encoded again by the codec); answers its tree without `meta`,
/// whose message time differs from answer to answer.
pub async fn streamed(
    server: &TestServer,
    operation: &'static Operation,
    body: &Value,
    representation: Representation,
) -> Value {
    let answer = server
        .call(operation)
        .json(body)
        .accept(representation)
        .send()
        .await;
    assert_eq!(answer.status, 200, "{}", answer.text);
    assert!(
        answer.headers.get("content-length").is_none(),
        "{representation:?} {body}: a long answer is streamed"
    );
    let codec = codec();
    let schema = operation.response.schema.expect("a message answer");
    let mut tree = codec
        .decode(representation, &answer.bytes, schema)
        .expect("the answer decodes");
    let whole = codec
        .encode(representation, tree.clone(), schema)
        .expect("the answer encodes");
    assert!(
        whole == answer.bytes,
        "{representation:?} {body}: the streamed answer differs from the whole one"
    );
    tree["meta"] = Value::Null;
    tree
}

/// A streamed read's long answer in every representation ([`streamed`]): each the whole answer
/// byte for byte, and all holding the same typed value (XML writes an empty list as an empty
/// wrapper, which reads back without the list, so trees are compared as typed values); answers
/// the JSON answer's tree.
pub async fn streamed_alike(
    server: &TestServer,
    operation: &'static Operation,
    body: &Value,
) -> Value {
    let json = streamed(server, operation, body, Representation::Json).await;
    let typed = |tree: &Value| -> core_api::types::PimType {
        serde_json::from_value(tree.clone()).expect("the tree is a PimType")
    };
    for representation in [Representation::Xml, Representation::Compact] {
        let other = streamed(server, operation, body, representation).await;
        assert_eq!(
            typed(&json),
            typed(&other),
            "{body}: {representation:?} holds what JSON holds"
        );
    }
    json
}
