//! The operations of the document, reduced to what the generators need.

use anyhow::{Context, Result, bail, ensure};
use serde_json::Value;

use crate::document::{Document, OCTET_STREAM, pascal_case, schema_ref_name};

/// One operation.
pub struct Operation {
    /// `operationId`.
    pub id: String,
    /// `GET` or `POST`.
    pub method: String,
    /// The path.
    pub path: String,
    /// `x-path-aliases`.
    pub aliases: Vec<String>,
    /// The first tag: the specification module.
    pub module: String,
    /// `summary`.
    pub summary: String,
    /// The request body, if any.
    pub request: Option<Body>,
    /// The query parameters, if any, as the schema of a generated query type.
    pub query: Option<QuerySchema>,
    /// The success body.
    pub response: Body,
    /// Every listed status code with the component schema of its body, ascending.
    pub statuses: Vec<(u16, Option<String>)>,
    /// For a batch operation, the collection of its items (`x-batch`).
    pub batch: Option<BatchCollection>,
    /// For an answer written as it is read, the long collections it may stream (`x-streamed`),
    /// in document order; empty for an answer written whole.
    pub streamed: Vec<StreamedCollection>,
}

/// An `x-streamed` collection of an answer: where it is and what it holds.
pub struct StreamedCollection {
    /// Its path from the answer's root, in property names.
    pub path: Vec<String>,
    /// The component schema of its items.
    pub items: String,
    /// For a tree, the collection of each item's children, from the item.
    pub children: Option<Children>,
}

/// The collection inside each item of a streamed tree that holds the item's children.
pub struct Children {
    /// Its path from the item, in property names; the same from every child.
    pub path: Vec<String>,
    /// The component schema of the children.
    pub items: String,
}

/// The `x-batch` array of a request: where it is and what it holds.
pub struct BatchCollection {
    /// Its path from the request's root, in element names (`kwds/kwd`).
    pub path: String,
    /// The component schema of its items.
    pub items: String,
}

/// A request or success-response body.
pub struct Body {
    /// Whether a request body is required (always true for responses).
    pub required: bool,
    /// The component schema, or `None` for binary content.
    pub schema: Option<String>,
    /// Media type names in document order.
    pub media: Vec<String>,
}

/// The query parameters of an operation, as an object schema named after the operation.
pub struct QuerySchema {
    /// `AssetsVersionsBinQuery`.
    pub name: String,
    /// A JSON Schema object with one property per parameter.
    pub schema: Value,
}

/// Reads every operation of the document, in document order.
pub fn operations(document: &Document) -> Result<Vec<Operation>> {
    let paths = document
        .raw
        .get("paths")
        .and_then(Value::as_object)
        .context("the document has no paths")?;
    let mut operations = Vec::new();
    for (path, item) in paths {
        let item = item
            .as_object()
            .with_context(|| format!("path {path} is not an object"))?;
        for (method, operation) in item {
            if !matches!(method.as_str(), "get" | "post") {
                bail!(
                    "{path}: method {method} is not supported by the generator (only get and post)"
                );
            }
            operations.push(
                operation_of(document, path, method, operation)
                    .with_context(|| format!("{} {path}", method.to_uppercase()))?,
            );
        }
    }
    Ok(operations)
}

fn operation_of(
    document: &Document,
    path: &str,
    method: &str,
    operation: &Value,
) -> Result<Operation> {
    let id = text(operation, "operationId")?;
    let module = operation
        .pointer("/tags/0")
        .and_then(Value::as_str)
        .context("the operation has no tag naming its module")?
        .to_string();
    let aliases = match operation.get("x-path-aliases") {
        Some(list) => list
            .as_array()
            .context("x-path-aliases is not a list")?
            .iter()
            .map(|alias| {
                alias
                    .as_str()
                    .map(str::to_string)
                    .context("an alias is not a string")
            })
            .collect::<Result<_>>()?,
        None => Vec::new(),
    };
    let request = match operation.get("requestBody") {
        Some(body) => {
            let body = document.resolve(body)?;
            Some(Body {
                required: body
                    .get("required")
                    .and_then(Value::as_bool)
                    .unwrap_or(false),
                ..content_of(body).context("request body")?
            })
        }
        None => None,
    };
    let responses = operation
        .get("responses")
        .and_then(Value::as_object)
        .context("the operation has no responses")?;
    let success = responses
        .get("200")
        .context("the operation has no 200 response")?;
    let response = content_of(document.resolve(success)?).context("200 response")?;
    let mut statuses = Vec::new();
    for (code, answer) in responses {
        let status = code
            .parse::<u16>()
            .with_context(|| format!("status {code} is not a number"))?;
        let answer = document.resolve(answer)?;
        // A status without content (304 Not Modified) has no body schema.
        let schema = match answer.get("content") {
            Some(_) => {
                content_of(answer)
                    .with_context(|| format!("{code} response"))?
                    .schema
            }
            None => None,
        };
        statuses.push((status, schema));
    }
    statuses.sort_unstable();
    let query = query_schema(document, &id, operation)?;
    let batch = match request.as_ref().and_then(|body| body.schema.as_deref()) {
        Some(schema) => {
            let mut found = Vec::new();
            batch_collections(
                document,
                schema,
                "",
                &mut vec![schema.to_string()],
                &mut found,
            )?;
            if found.len() > 1 {
                bail!("the request holds more than one x-batch collection");
            }
            found.pop()
        }
        None => None,
    };
    let streamed = match operation.get("x-streamed") {
        Some(streamed) => {
            streamed_collections(document, &response, streamed).context("x-streamed")?
        }
        None => Vec::new(),
    };
    Ok(Operation {
        summary: text(operation, "summary")?,
        id,
        method: method.to_uppercase(),
        path: path.to_string(),
        aliases,
        module,
        request,
        query,
        response,
        statuses,
        batch,
        streamed,
    })
}

/// The collections `x-streamed` names in the success answer: a path (`kwds/kwd`, property
/// names), or a list of objects with a `path` and, for a tree, the `children` path inside each
/// item, which must name the same collection inside every child.
fn streamed_collections(
    document: &Document,
    response: &Body,
    streamed: &Value,
) -> Result<Vec<StreamedCollection>> {
    let root = response
        .schema
        .clone()
        .context("a binary answer has no collection")?;
    let one = |path: &Value, children: Option<&Value>| -> Result<StreamedCollection> {
        let path = steps(path)?;
        let items = collection(document, &root, &path)?;
        let children = match children {
            Some(children) => {
                let path = steps(children)?;
                let children = collection(document, &items, &path).context("children")?;
                let again = collection(document, &children, &path)
                    .context("the children do not hold their children the same way")?;
                ensure!(
                    again == children,
                    "the children's children differ in schema"
                );
                Some(Children {
                    path,
                    items: children,
                })
            }
            None => None,
        };
        Ok(StreamedCollection {
            path,
            items,
            children,
        })
    };
    let collections = match streamed {
        Value::String(_) => vec![one(streamed, None)?],
        Value::Array(collections) => collections
            .iter()
            .map(|collection| {
                let path = collection
                    .get("path")
                    .context("a collection without path")?;
                one(path, collection.get("children"))
            })
            .collect::<Result<_>>()?,
        _ => bail!("neither a path nor a list of collections"),
    };
    ensure!(
        item_schemas(&collections).len() <= 2,
        "the streamed items are of more than two schemas"
    );
    Ok(collections)
}

/// The distinct schemas of the items streamed collections hold, children included, in the order
/// they first come.
pub fn item_schemas(collections: &[StreamedCollection]) -> Vec<&str> {
    let mut schemas: Vec<&str> = Vec::new();
    for collection in collections {
        let children = collection.children.as_ref().map(|children| &children.items);
        for schema in std::iter::once(&collection.items).chain(children) {
            if !schemas.contains(&schema.as_str()) {
                schemas.push(schema);
            }
        }
    }
    schemas
}

/// The property names of a collection's path (`kwds/kwd`).
fn steps(path: &Value) -> Result<Vec<String>> {
    Ok(path
        .as_str()
        .context("the path is not a string")?
        .split('/')
        .map(str::to_string)
        .collect())
}

/// The component schema of the items of the collection at `path` below the schema `from`: each
/// step a property of the schema reached so far (through a one-`$ref` `allOf`), the last an array
/// of component schemas.
fn collection(document: &Document, from: &str, path: &[String]) -> Result<String> {
    let mut schema = from.to_string();
    for (at, name) in path.iter().enumerate() {
        let mut found = document.schema(&schema)?;
        if let Some(parent) = found.pointer("/allOf/0").and_then(schema_ref_name) {
            found = document.schema(parent)?;
        }
        let property = found
            .pointer(&format!("/properties/{name}"))
            .with_context(|| format!("{schema} has no property {name}"))?;
        let last = at + 1 == path.len();
        ensure!(
            !last || property.get("type").and_then(Value::as_str) == Some("array"),
            "{name} is not an array"
        );
        let target = if last {
            property.get("items")
        } else {
            Some(property)
        };
        schema = target
            .and_then(schema_ref_name)
            .with_context(|| format!("{name} is not a component schema"))?
            .to_string();
    }
    Ok(schema)
}

/// The `x-batch` arrays below a schema, with their paths; `stack` holds the schemas being walked,
/// so that recursive schemas end the walk.
fn batch_collections(
    document: &Document,
    schema: &str,
    path: &str,
    stack: &mut Vec<String>,
    found: &mut Vec<BatchCollection>,
) -> Result<()> {
    let properties = document
        .schema(schema)?
        .get("properties")
        .and_then(Value::as_object);
    for (name, property) in properties.into_iter().flatten() {
        let item = property.get("items").unwrap_or(property);
        let element = property
            .pointer("/xml/name")
            .and_then(Value::as_str)
            .unwrap_or(name);
        let here = if path.is_empty() {
            element.to_string()
        } else {
            format!("{path}/{element}")
        };
        let target = schema_ref_name(item);
        if property.get("x-batch").and_then(Value::as_bool) == Some(true) {
            found.push(BatchCollection {
                path: here,
                items: target
                    .context("the items of a batch are component schemas")?
                    .to_string(),
            });
            ensure!(
                property.get("maxItems").is_some(),
                "the batch collection {name} states its maxItems (D-37)"
            );
        } else if let Some(target) = target
            && !stack.iter().any(|walked| walked == target)
        {
            stack.push(target.to_string());
            batch_collections(document, target, &here, stack, found)?;
            stack.pop();
        }
    }
    Ok(())
}

fn content_of(body: &Value) -> Result<Body> {
    let content = body
        .get("content")
        .and_then(Value::as_object)
        .context("no content")?;
    let mut schema = None;
    let mut media = Vec::new();
    for (name, entry) in content {
        media.push(name.clone());
        let this = if name == OCTET_STREAM {
            None
        } else {
            Some(
                schema_ref_name(entry.get("schema").context("a media type without schema")?)
                    .with_context(|| {
                        format!("{name}: the schema must be a reference to a component schema")
                    })?
                    .to_string(),
            )
        };
        if media.len() > 1 && this != schema {
            bail!("media type {name} has a different schema than the others");
        }
        schema = this;
    }
    Ok(Body {
        required: true,
        schema,
        media,
    })
}

fn query_schema(document: &Document, id: &str, operation: &Value) -> Result<Option<QuerySchema>> {
    let Some(parameters) = operation.get("parameters").and_then(Value::as_array) else {
        return Ok(None);
    };
    let mut properties = serde_json::Map::new();
    let mut required = Vec::new();
    for parameter in parameters {
        let parameter = document.resolve(parameter)?;
        let name = text(parameter, "name")?;
        match parameter.get("in").and_then(Value::as_str) {
            Some("query") => {}
            // Headers (`Idempotency-Key`) are read by the server around the operation; the
            // generated handlers and query types do not carry them.
            Some("header") => continue,
            _ => bail!("parameter {name}: only query and header parameters are supported"),
        }
        let mut schema = parameter
            .get("schema")
            .cloned()
            .context("a parameter without schema")?;
        if let (Some(description), Some(object)) =
            (parameter.get("description"), schema.as_object_mut())
        {
            object.insert("description".into(), description.clone());
        }
        if parameter.get("required").and_then(Value::as_bool) == Some(true) {
            required.push(Value::String(name.clone()));
        }
        properties.insert(name, schema);
    }
    if properties.is_empty() {
        return Ok(None);
    }
    let name = format!("{}Query", pascal_case(id));
    let mut schema = serde_json::json!({
        "type": "object",
        "additionalProperties": false,
        "description": format!("The query parameters of {id}."),
        "properties": properties,
    });
    if !required.is_empty() {
        schema["required"] = Value::Array(required);
    }
    Ok(Some(QuerySchema { name, schema }))
}

fn text(value: &Value, key: &str) -> Result<String> {
    value
        .get(key)
        .and_then(Value::as_str)
        .map(str::to_string)
        .with_context(|| format!("missing {key}"))
}
