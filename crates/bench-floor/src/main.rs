//! The floor of the HTTP load benchmark (`cargo xtask bench-http`): what poem alone costs for the
//! same exchange. It serves, at each path of an answers file, the fixed answer core-server gave
//! for one scenario, after reading the request body whole, as core-server reads it.
//!
//! `bench-floor <bind address> <answers.json>`; the file holds `[{"path", "contentType",
//! "body"}]`.

use std::sync::Arc;

use poem::{
    Body, EndpointExt, Response, Route, Server, endpoint::make, http::StatusCode,
    listener::TcpListener, post,
};
use serde::Deserialize;

#[global_allocator]
static ALLOCATOR: mimalloc::MiMalloc = mimalloc::MiMalloc;

/// One fixed answer.
#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
struct Answer {
    path: String,
    content_type: String,
    body: String,
}

fn main() -> Result<(), String> {
    let arguments: Vec<String> = std::env::args().skip(1).collect();
    let [bind, answers] = arguments.as_slice() else {
        return Err("usage: bench-floor <bind address> <answers.json>".to_string());
    };
    let text = std::fs::read_to_string(answers).map_err(|error| format!("{answers}: {error}"))?;
    let answers: Vec<Answer> =
        serde_json::from_str(&text).map_err(|error| format!("{answers}: {error}"))?;
    let mut route = Route::new();
    for answer in answers {
        let path = answer.path.clone();
        let answer = Arc::new((answer.content_type, bytes::Bytes::from(answer.body)));
        route = route.at(
            &path,
            post(make(move |mut request: poem::Request| {
                let answer = Arc::clone(&answer);
                async move {
                    let read = request.take_body().into_bytes_limit(10 << 20).await;
                    match read {
                        Ok(_) => Response::builder()
                            .content_type(answer.0.as_str())
                            .body(Body::from_bytes(answer.1.clone())),
                        Err(_) => Response::builder().status(StatusCode::BAD_REQUEST).finish(),
                    }
                }
            })),
        );
    }
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
        .map_err(|error| error.to_string())?;
    runtime
        .block_on(Server::new(TcpListener::bind(bind.as_str())).run(route.boxed()))
        .map_err(|error| error.to_string())
}
