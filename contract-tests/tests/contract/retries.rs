//! The generated client's safe retries (D-14) against a server: it sends an `Idempotency-Key`
//! with every batch call, sends a call whose answer was lost again with that key (stored once,
//! answered), and waits out a 429's `Retry-After`.

use contract_tests::TestServer;
use core_api::messages as msg;
use core_client::{Client, types};
use serde_json::json;

use crate::client::{from, said, statuses};

/// How many messages with this subject are stored.
async fn messages(server: &TestServer, subject: &str) -> i64 {
    sqlx::query_scalar("SELECT CAST(COUNT(*) AS BIGINT) FROM messages WHERE subject = $1")
        .bind(subject)
        .fetch_one(server.database.reads())
        .await
        .expect("a count")
}

/// A proxy to the server that takes the first request's answer from the server and then cuts
/// the client's connection without giving it: the answer of a stored batch is lost. Later
/// connections are forwarded whole. Its address.
async fn losing_proxy(server: std::net::SocketAddr) -> std::net::SocketAddr {
    use tokio::io::{AsyncReadExt, AsyncWriteExt};
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0")
        .await
        .expect("a port");
    let address = listener.local_addr().expect("an address");
    tokio::spawn(async move {
        let mut first = true;
        while let Ok((mut client, _)) = listener.accept().await {
            let Ok(mut upstream) = tokio::net::TcpStream::connect(server).await else {
                return;
            };
            if std::mem::take(&mut first) {
                tokio::spawn(async move {
                    let mut request = vec![0u8; 64 * 1024];
                    let Ok(read) = client.read(&mut request).await else {
                        return;
                    };
                    let _ = upstream.write_all(&request[..read]).await;
                    // The server answers (the batch is stored); the client never hears it.
                    let mut answer = vec![0u8; 64 * 1024];
                    let _ = upstream.read(&mut answer).await;
                    drop(client);
                });
            } else {
                tokio::spawn(async move {
                    let _ = tokio::io::copy_bidirectional(&mut client, &mut upstream).await;
                });
            }
        }
    });
    address
}

/// The client sends a key with every batch call, and sends a call whose answer was lost again
/// with that key: the batch is stored once and the caller gets its answer. A 429 is waited out.
async fn the_client_retries_batches_safely() {
    let server = TestServer::start_with(|settings| {
        settings.rate_limit = core_server::settings::RateLimit {
            per_second: 1,
            burst: 1,
        };
    })
    .await;
    let proxy = losing_proxy(server.address).await;
    let client = Client::new_with_client(&format!("http://{proxy}"), server.client());
    let body: types::MessagesPersistRequest =
        from(json!({"messages": [{"subject": "lost answer", "recipientRole": "editor"}]}));
    let answer = client
        .messages_persist(None, &body)
        .await
        .expect("answered on the second try")
        .into_inner();
    assert_eq!(
        statuses(answer.responses),
        [said("Success", msg::THE_MESSAGE_HAS_BEEN_SENT_SUCCESSFULLY)]
    );
    assert_eq!(messages(&server, "lost answer").await, 1, "stored once");
    let keys: i64 = sqlx::query_scalar(
        "SELECT CAST(COUNT(*) AS BIGINT) FROM idempotency_keys WHERE user_name = 'tester'",
    )
    .fetch_one(server.database.reads())
    .await
    .expect("a count");
    assert_eq!(keys, 1, "the client sent a key of its own");
    // The rate limit (one a second) answers the next call 429 with Retry-After; the client waits.
    let again: types::MessagesPersistRequest =
        from(json!({"messages": [{"subject": "limited", "recipientRole": "editor"}]}));
    for _ in 0..2 {
        client
            .messages_persist(None, &again)
            .await
            .expect("answered after Retry-After");
    }
    assert_eq!(messages(&server, "limited").await, 2, "two calls, two keys");
    server.stop().await;
}

contract_tests::trials!(the_client_retries_batches_safely);
