//! Retrieves the locales and the whole keyword tree of a Core Interface server with the generated
//! client, and prints them; then retrieves the keyword tree again in XML and in compact JSON
//! (`representations::Client`) and says whether each reads as the same typed value. Against the
//! demo catalogue:
//!
//! ```sh
//! core-server serve --demo    # prints the demo token
//! cargo run -p core-client --example retrieve_keywords -- http://127.0.0.1:8080 <token>
//! ```

use core_client::{
    Client,
    representations::{self, Representation},
    types,
};

#[tokio::main]
async fn main() -> Result<(), Box<dyn std::error::Error>> {
    let mut arguments = std::env::args().skip(1);
    let (Some(base_url), Some(token)) = (arguments.next(), arguments.next()) else {
        return Err("usage: retrieve_keywords <base URL> <token>".into());
    };
    // Every operation takes a bearer token: the HTTP client sends it with each request.
    let mut headers = reqwest::header::HeaderMap::new();
    headers.insert(
        reqwest::header::AUTHORIZATION,
        format!("Bearer {token}").parse()?,
    );
    let http = reqwest::Client::builder()
        .default_headers(headers)
        .build()?;
    let client = Client::new_with_client(&base_url, http);

    let locales = client
        .locales_retrieve(&types::LocaleRequest {
            mode: types::LocaleRequestMode::All,
            export_config: false,
            ids: Vec::new(),
            tids: Vec::new(),
        })
        .await?
        .into_inner();
    for locale in locales
        .locales
        .map(|locales| locales.locale)
        .unwrap_or_default()
    {
        println!(
            "locale {} {}",
            locale.tid.unwrap_or_default(),
            locale.name.unwrap_or_default()
        );
    }

    let request = types::KeywordRequest {
        path: "/".to_string(),
        level: -1,
        retrieve_links: false,
    };
    let keywords = client.keywords_retrieve(&request).await?.into_inner();
    let json = serde_json::to_value(&keywords)?;
    for keyword in keywords.0.kwds.map(|kwds| kwds.kwd).unwrap_or_default() {
        let names: Vec<String> = keyword
            .name
            .map(|name| name.itm)
            .unwrap_or_default()
            .into_iter()
            .map(|itm| match itm.loc {
                Some(loc) => format!("{loc}: {}", itm.value),
                None => itm.value,
            })
            .collect();
        println!(
            "keyword {} {}",
            keyword.path.unwrap_or_default(),
            names.join(", ")
        );
    }

    // The same call in XML and in compact JSON: the same typed answer (its messageTime aside).
    for representation in [Representation::Xml, Representation::Compact] {
        let other = representations::Client::new(client.clone(), representation)
            .keywords_retrieve(&request)
            .await?;
        let mut other = serde_json::to_value(&other)?;
        if let (Some(meta), Some(mine)) = (json.get("meta"), other.get_mut("meta")) {
            *mine = meta.clone();
        }
        println!(
            "keywords in {representation:?}: {} the same as in JSON",
            if other == json {
                "read as"
            } else {
                "NOT read as"
            }
        );
    }
    Ok(())
}
