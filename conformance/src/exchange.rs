//! Requests to the server under test, addressed by operation: the path, the method and the media
//! types come from the generated operation metadata, never from the checks.

use core_api_support::{Method, Operation, Representation};
use serde_json::Value;

use crate::{Fail, Target, xml_schema::XmlBody};

/// The media type an operation lists for a representation, as the document names it.
pub fn media(operation: &Operation, representation: Representation) -> Option<&'static str> {
    operation
        .request
        .iter()
        .flat_map(|body| body.media)
        .chain(operation.response.media)
        .find(|media| media.representation == representation)
        .map(|media| media.name)
}

/// How many times a request the rate limit refused is sent, at most.
const RATE_LIMITED_TRIES: u32 = 5;

/// One request to an operation, built up and then sent.
pub struct Call<'t> {
    target: &'t Target,
    operation: &'static Operation,
    authorization: Option<String>,
    query: String,
    content_type: Option<String>,
    accept: Option<String>,
    headers: Vec<(&'static str, String)>,
    body: Option<Vec<u8>>,
}

/// An answer: its status, headers and body.
#[derive(Debug)]
pub struct Answer {
    /// The status code.
    pub status: u16,
    /// The `Content-Type`, empty when absent.
    pub content_type: String,
    /// Every header.
    pub headers: reqwest::header::HeaderMap,
    /// The body as received.
    pub bytes: Vec<u8>,
}

impl Answer {
    /// The body as text (lossy for bytes that are not UTF-8).
    pub fn text(&self) -> String {
        String::from_utf8_lossy(&self.bytes).into_owned()
    }

    /// The body as JSON, or a failure quoting it.
    pub fn json(&self) -> Result<Value, Fail> {
        serde_json::from_slice(&self.bytes).map_err(|error| {
            Fail::because(format!(
                "the body is not JSON ({error}): {}",
                self.excerpt()
            ))
        })
    }

    /// Fails unless the status is `expected`.
    pub fn status(&self, expected: u16) -> Result<&Answer, Fail> {
        if self.status == expected {
            Ok(self)
        } else {
            Err(Fail::because(format!(
                "expected status {expected}, got {}: {}",
                self.status,
                self.excerpt()
            )))
        }
    }

    /// The first 300 characters of the body, for a failure's reason.
    pub fn excerpt(&self) -> String {
        let text = self.text();
        match text.char_indices().nth(300) {
            Some((at, _)) => format!("{}…", &text[..at]),
            None => text,
        }
    }
}

impl Target {
    /// A request to `operation` with the target's token.
    pub fn call(&self, operation: &'static Operation) -> Call<'_> {
        Call {
            target: self,
            operation,
            authorization: Some(format!("Bearer {}", self.token)),
            query: String::new(),
            content_type: None,
            accept: None,
            headers: Vec::new(),
            body: None,
        }
    }
}

impl Call<'_> {
    /// Keeps the XML bodies of an exchange for the target's XML Schema: the request when the
    /// server took it (a 2xx answer; checks send malformed XML on purpose), and the answer.
    fn keep_xml(&self, answer: &Answer) {
        let request = self.content_type.as_deref().zip(self.body.as_deref());
        let answered = (answer.content_type.as_str(), answer.bytes.as_slice());
        for body in XmlBody::of_exchange(self.operation.id, request, answer.status, answered) {
            self.target.exchanged(body);
        }
    }

    /// Sends this token instead of the target's.
    pub fn token(mut self, token: &str) -> Self {
        self.authorization = Some(format!("Bearer {token}"));
        self
    }

    /// Sends no `Authorization` header.
    pub fn anonymous(mut self) -> Self {
        self.authorization = None;
        self
    }

    /// Adds a query string (`a=1&b=2`).
    pub fn query(mut self, query: &str) -> Self {
        if !query.is_empty() {
            self.query = format!("?{query}");
        }
        self
    }

    /// A JSON body.
    pub fn json(self, body: &Value) -> Self {
        self.body(Representation::Json, body.to_string())
    }

    /// A body in a representation, with the media type the operation lists for it.
    pub fn body(mut self, representation: Representation, body: impl Into<Vec<u8>>) -> Self {
        self.content_type = media(self.operation, representation).map(str::to_string);
        self.body = Some(body.into());
        self
    }

    /// A body with a `Content-Type` of the check's choosing (one the operation may refuse).
    pub fn raw(mut self, content_type: &str, body: impl Into<Vec<u8>>) -> Self {
        self.content_type = Some(content_type.to_string());
        self.body = Some(body.into());
        self
    }

    /// Asks for the answer in a representation the operation lists.
    pub fn accept(mut self, representation: Representation) -> Self {
        self.accept = media(self.operation, representation).map(str::to_string);
        self
    }

    /// Adds a header of the check's choosing (`Idempotency-Key`).
    pub fn header(mut self, name: &'static str, value: &str) -> Self {
        self.headers.push((name, value.to_string()));
        self
    }

    /// Asks for the answer with an `Accept` header of the check's choosing.
    pub fn accept_raw(mut self, accept: &str) -> Self {
        self.accept = Some(accept.to_string());
        self
    }

    /// Sends the request and reads the answer; a request that gets no answer fails the check.
    /// A 429 (the server's rate limit, D-37) is waited out as its `Retry-After` says and the
    /// request sent again, as a well-behaved client does, a few times at most.
    pub async fn send(self) -> Result<Answer, Fail> {
        let mut tries = 0;
        loop {
            let answer = self.send_once().await?;
            tries += 1;
            if answer.status != 429 || tries >= RATE_LIMITED_TRIES {
                return Ok(answer);
            }
            let wait = answer
                .headers
                .get("retry-after")
                .and_then(|value| value.to_str().ok())
                .and_then(|value| value.trim().parse::<u64>().ok())
                .unwrap_or(1)
                .min(10);
            tokio::time::sleep(std::time::Duration::from_secs(wait)).await;
        }
    }

    /// Sends the request once and reads the answer, a 429 included (the rate limit's check).
    pub async fn send_once(&self) -> Result<Answer, Fail> {
        let url = self
            .target
            .url(&format!("{}{}", self.operation.path, self.query));
        let client = &self.target.client;
        let mut request = match self.operation.method {
            Method::Get => client.get(url),
            Method::Post => client.post(url),
        };
        if let Some(authorization) = &self.authorization {
            request = request.header("Authorization", authorization);
        }
        if let Some(content_type) = &self.content_type {
            request = request.header("Content-Type", content_type);
        }
        if let Some(accept) = &self.accept {
            request = request.header("Accept", accept);
        }
        for (name, value) in &self.headers {
            request = request.header(*name, value);
        }
        if let Some(body) = &self.body {
            request = request.body(body.clone());
        }
        let answer = request.send().await.map_err(|error| {
            Fail::because(format!("{} got no answer: {error}", self.operation.id))
        })?;
        let status = answer.status().as_u16();
        let headers = answer.headers().clone();
        let content_type = headers
            .get("content-type")
            .and_then(|value| value.to_str().ok())
            .unwrap_or_default()
            .to_string();
        let bytes = answer
            .bytes()
            .await
            .map_err(|error| Fail::because(format!("the body could not be read: {error}")))?
            .to_vec();
        let answer = Answer {
            status,
            content_type,
            headers,
            bytes,
        };
        self.keep_xml(&answer);
        Ok(answer)
    }
}
