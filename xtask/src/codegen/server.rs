//! Operation metadata, one trait per specification module, and the poem router.

use anyhow::{Result, bail};
use proc_macro2::TokenStream;
use quote::{format_ident, quote};

use super::model::{Body, Operation, item_schemas};
use crate::document::Representation as Media;
use crate::document::{pascal_case, screaming_case, snake_case};

/// The trait name of a module tag: `Common` → `CommonApi`, `PIM` → `PimApi`.
pub fn trait_name(module: &str) -> proc_macro2::Ident {
    let mut chars = module.chars();
    let name: String = match chars.next() {
        Some(first) => {
            first.to_ascii_uppercase().to_string() + &chars.as_str().to_ascii_lowercase()
        }
        None => String::new(),
    };
    format_ident!("{}Api", name)
}

/// The modules in the order of their first operation.
pub fn modules(operations: &[Operation]) -> Vec<String> {
    let mut modules: Vec<String> = Vec::new();
    for operation in operations {
        if !modules.contains(&operation.module) {
            modules.push(operation.module.clone());
        }
    }
    modules
}

/// `operations.rs`: one `static` [`Operation`](core_api_support::Operation) per operation.
pub fn operations(operations: &[Operation]) -> Result<TokenStream> {
    let mut statics = Vec::new();
    let mut all = Vec::new();
    let mut variants = Vec::new();
    for operation in operations {
        let ident = format_ident!("{}", screaming_case(&operation.id));
        let Operation {
            id,
            path,
            aliases,
            module,
            summary,
            ..
        } = operation;
        let responses = operation.statuses.iter().map(|(status, schema)| {
            let schema = match schema {
                Some(schema) => {
                    let schema = format_ident!("{}", screaming_case(schema));
                    quote!(Some(&tables::#schema))
                }
                None => quote!(None),
            };
            quote!(StatusBody { status: #status, schema: #schema })
        });
        let method = match operation.method.as_str() {
            "GET" => quote!(Method::Get),
            "POST" => quote!(Method::Post),
            other => bail!("unsupported method {other}"),
        };
        let request = match &operation.request {
            Some(body) => {
                let required = body.required;
                let Some(schema) = &body.schema else {
                    bail!("{id}: binary request bodies are not supported")
                };
                let schema = format_ident!("{}", screaming_case(schema));
                let media = media(body)?;
                quote!(Some(RequestBody { required: #required, schema: &tables::#schema, media: &[#(#media),*] }))
            }
            None => quote!(None),
        };
        let query = match &operation.query {
            Some(query) => {
                let schema = format_ident!("{}", screaming_case(&query.name));
                quote!(Some(&tables::#schema))
            }
            None => quote!(None),
        };
        let response_schema = match &operation.response.schema {
            Some(schema) => {
                let schema = format_ident!("{}", screaming_case(schema));
                quote!(Some(&tables::#schema))
            }
            None => quote!(None),
        };
        let response_media = media(&operation.response)?;
        let batch = match &operation.batch {
            Some(batch) => {
                let path = &batch.path;
                let items = format_ident!("{}", screaming_case(&batch.items));
                quote!(Some(Batch { path: #path, items: &tables::#items }))
            }
            None => quote!(None),
        };
        let streamed = operation.streamed.iter().map(|collection| {
            let steps = &collection.path;
            let children = match &collection.children {
                Some(children) => {
                    let steps = &children.path;
                    quote!(Some(&[#(#steps),*]))
                }
                None => quote!(None),
            };
            quote!(StreamedCollection { path: &[#(#steps),*], children: #children })
        });
        let doc = format!(" `{} {}` ({id}).", operation.method, path);
        statics.push(quote! {
            #[doc = #doc]
            pub static #ident: Operation = Operation {
                id: #id,
                method: #method,
                path: #path,
                aliases: &[#(#aliases),*],
                module: #module,
                summary: #summary,
                request: #request,
                query: #query,
                response: ResponseBody {
                    schema: #response_schema,
                    media: &[#(#response_media),*],
                    streamed: &[#(#streamed),*],
                },
                responses: &[#(#responses),*],
                batch: #batch,
            };
        });
        all.push(ident);
        variants.push((
            format_ident!("{}", pascal_case(&operation.id)),
            operation.id.clone(),
        ));
    }
    let variant_idents: Vec<_> = variants.iter().map(|(variant, _)| variant).collect();
    let variant_ids: Vec<_> = variants.iter().map(|(_, id)| id).collect();
    let variant_docs: Vec<String> = variants.iter().map(|(_, id)| format!(" `{id}`.")).collect();
    Ok(quote! {
        use core_api_support::{
            Batch, Method, Operation, RequestBody, ResponseBody, StatusBody, StreamedCollection,
        };

        use crate::tables;

        #(#statics)*

        /// Every operation, in document order.
        pub static ALL: &[&Operation] = &[#(&#all),*];

        /// Every operation by name: a `match` on it is exhaustive, so code that must handle every
        /// operation (the conformance runner's requests) fails to build until it handles a new one.
        #[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
        pub enum OperationId {
            #(
                #[doc = #variant_docs]
                #variant_idents,
            )*
        }

        impl OperationId {
            /// The name of an operation of this document (none for one of another document).
            pub fn of(operation: &Operation) -> Option<OperationId> {
                match operation.id {
                    #(#variant_ids => Some(OperationId::#variant_idents),)*
                    _ => None,
                }
            }
        }
    })
}

fn media(body: &Body) -> Result<Vec<TokenStream>> {
    media_tokens(&body.media)
}

/// `MediaType` values for media type names.
pub fn media_tokens(names: &[String]) -> Result<Vec<TokenStream>> {
    names
        .iter()
        .map(|name| {
            let essence = name.split(';').next().unwrap_or(name).trim().to_string();
            let representation = match Media::of(&essence) {
                Some(Media::Xml) => quote!(Representation::Xml),
                Some(Media::Json) => quote!(Representation::Json),
                Some(Media::Compact) => quote!(Representation::Compact),
                Some(Media::Binary) => quote!(Representation::Binary),
                None => bail!("media type {essence} has no representation"),
            };
            Ok(quote!(core_api_support::MediaType {
                name: #name,
                essence: #essence,
                representation: core_api_support::#representation,
            }))
        })
        .collect()
}

/// The Rust type of an operation's input, if it takes one.
fn input_type(operation: &Operation) -> Option<TokenStream> {
    if let Some(query) = &operation.query {
        let ty = format_ident!("{}", query.name);
        return Some(quote!(types::#ty));
    }
    let body = operation.request.as_ref()?;
    let ty = format_ident!("{}", body.schema.as_deref()?);
    Some(if body.required {
        quote!(types::#ty)
    } else {
        quote!(Option<types::#ty>)
    })
}

/// The Rust type of an operation's success answer: its typed value, or for an answer written as
/// it is read, that value with its collection's items as a stream.
fn output_type(operation: &Operation) -> TokenStream {
    let items: Vec<_> = item_schemas(&operation.streamed)
        .into_iter()
        .map(|schema| format_ident!("{}", schema))
        .collect();
    match (&operation.response.schema, items.as_slice()) {
        (Some(schema), [items]) => {
            let ty = format_ident!("{}", schema);
            quote!(Streamed<types::#ty, types::#items, Self::Error>)
        }
        (Some(schema), [_, _, ..]) => {
            let ty = format_ident!("{}", schema);
            let items = item_alias(operation);
            quote!(Streamed<types::#ty, #items, Self::Error>)
        }
        (Some(schema), []) => {
            let ty = format_ident!("{}", schema);
            quote!(types::#ty)
        }
        (None, _) => quote!(Binary),
    }
}

/// The name of the item type of a streamed answer whose items are of two schemas
/// (`ClassesRetrieveItem`).
fn item_alias(operation: &Operation) -> proc_macro2::Ident {
    format_ident!("{}Item", pascal_case(&operation.id))
}

/// The aliases of the item types of streamed answers whose items are of two schemas: either one.
fn item_aliases(operations: &[Operation]) -> Vec<TokenStream> {
    operations
        .iter()
        .filter_map(
            |operation| match item_schemas(&operation.streamed).as_slice() {
                [left, right, ..] => {
                    let alias = item_alias(operation);
                    let (left, right) = (format_ident!("{}", left), format_ident!("{}", right));
                    let doc = format!(" An item of the streamed answer of {}.", operation.id);
                    Some(quote! {
                        #[doc = #doc]
                        pub type #alias = Either<types::#left, types::#right>;
                    })
                }
                _ => None,
            },
        )
        .collect()
}

/// `service.rs`: per module a trait with one method per operation. Every method has a default
/// body answering [`NotImplemented`](core_api_support::NotImplemented).
pub fn service(operations: &[Operation]) -> Result<TokenStream> {
    let aliases = item_aliases(operations);
    let mut traits = Vec::new();
    for module in modules(operations) {
        let name = trait_name(&module);
        let mut methods = Vec::new();
        for operation in operations
            .iter()
            .filter(|operation| operation.module == module)
        {
            let method = format_ident!("{}", snake_case(&operation.id));
            let table = format_ident!("{}", screaming_case(&operation.id));
            let output = output_type(operation);
            let doc = format!(
                " {} (`{} {}`).",
                operation.summary, operation.method, operation.path
            );
            let (input, unused) = match input_type(operation) {
                Some(ty) => (quote!(, input: #ty), quote!(let _ = (context, input);)),
                None => (quote!(), quote!(let _ = context;)),
            };
            methods.push(quote! {
                #[doc = #doc]
                fn #method(
                    &self,
                    context: &Self::Context #input
                ) -> impl Future<Output = Result<#output, Self::Error>> + Send {
                    #unused
                    async { Err(NotImplemented { operation: &operations::#table }.into()) }
                }
            });
        }
        let doc = format!(" The operations of the {module} module.");
        traits.push(quote! {
            #[doc = #doc]
            pub trait #name: Host {
                #(#methods)*
            }
        });
    }
    Ok(quote! {
        use std::future::Future;

        #[allow(unused_imports)]
        use core_api_support::{Binary, Either, Host, NotImplemented, Streamed};

        use crate::{operations, types};

        #(#aliases)*

        #(#traits)*
    })
}

/// `router.rs`: one poem endpoint per operation and `router`, which mounts them all.
pub fn router(operations: &[Operation]) -> Result<TokenStream> {
    let modules = modules(operations);
    let bounds: Vec<_> = modules.iter().map(|module| trait_name(module)).collect();
    let mut handlers = Vec::new();
    // (path as written, path expression, method endpoint) in document order; aliases follow their
    // operation. Entries that share a path are mounted on one `RouteMethod`.
    let mut mounts: Vec<(String, TokenStream, Vec<TokenStream>)> = Vec::new();
    for operation in operations {
        let handler = format_ident!("{}", snake_case(&operation.id));
        let table = format_ident!("{}", screaming_case(&operation.id));
        let bound = trait_name(&operation.module);
        let read = match (&operation.query, &operation.request) {
            (Some(query), _) => {
                let ty = format_ident!("{}", query.name);
                quote!(let input = service.query::<types::#ty>(&context, &request)?;)
            }
            (None, Some(body)) => {
                let Some(schema) = &body.schema else {
                    bail!("binary request bodies are not supported")
                };
                let ty = format_ident!("{}", schema);
                if body.required {
                    quote!(let input = service.body::<types::#ty>(&context, body).await?;)
                } else {
                    quote!(let input = service.optional_body::<types::#ty>(&context, body).await?;)
                }
            }
            (None, None) => quote!(),
        };
        let call = if input_type(operation).is_some() {
            quote!(service.#handler(&context, input).await?)
        } else {
            quote!(service.#handler(&context).await?)
        };
        let respond = match &operation.response.schema {
            Some(_) if !operation.streamed.is_empty() => {
                quote!(service.respond_stream(&context, output).await)
            }
            Some(_) => quote!(service.respond(&context, output)),
            None => quote!(service.respond_binary(&context, output)),
        };
        let doc = format!(" The endpoint of {}.", operation.id);
        handlers.push(quote! {
            #[doc = #doc]
            fn #handler<S: #bound>(service: Arc<S>) -> impl Endpoint<Output = Response> {
                make(move |mut request: Request| {
                    let service = Arc::clone(&service);
                    async move {
                        let operation = &operations::#table;
                        #[allow(unused_variables)]
                        let body = request.take_body();
                        let result = async {
                            let context = service.begin(operation, &request).await?;
                            #read
                            let output = #call;
                            #respond
                        }
                        .await;
                        result.unwrap_or_else(|error| service.fail(operation, &request, error))
                    }
                })
            }
        });
        let method = format_ident!("{}", operation.method.to_lowercase());
        let endpoint = quote!(.#method(#handler(Arc::clone(&service))));
        let mut paths = vec![(operation.path.clone(), quote!(operations::#table.path))];
        for (alias, path) in operation.aliases.iter().enumerate() {
            paths.push((path.clone(), quote!(operations::#table.aliases[#alias])));
        }
        for (path, expression) in paths {
            match mounts.iter_mut().find(|(existing, _, _)| *existing == path) {
                Some((_, _, endpoints)) => endpoints.push(endpoint.clone()),
                None => mounts.push((path, expression, vec![endpoint.clone()])),
            }
        }
    }
    let routes = mounts
        .into_iter()
        .map(|(_, path, endpoints)| quote!(.at(#path, RouteMethod::new() #(#endpoints)*)));
    Ok(quote! {
        use std::sync::Arc;

        use poem::{Endpoint, Request, Response, Route, RouteMethod, endpoint::make};

        use crate::{operations, service::*, types};

        /// Mounts every operation (and every alias path) on its method and path.
        pub fn router<S>(service: Arc<S>) -> Route
        where
            S: #(#bounds)+*,
        {
            Route::new() #(#routes)*
        }

        #(#handlers)*
    })
}
