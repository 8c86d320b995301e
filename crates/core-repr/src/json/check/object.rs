//! Objects and arrays as the error walk reads them: every entry read to the end (a repeated key
//! stops the parse where the reference's parser stops it), and an object's first error chosen
//! once its last property is read, in `tree::check`'s order: the first unknown property given,
//! then the fields in table order (missing, or their value's first error), then the rules.

use std::collections::HashSet;

use core_api_support::{Field, Kind, Schema, Type};
use serde::de::{self, MapAccess, SeqAccess};

use super::{Duplicate, Expect, Found, Look, Segment, Verdict, Walk};
use crate::{
    constraints::{self, Seen},
    error::{DecodeError, Problem},
    json::{XMLNS, stream::rules::Fact},
    text::same,
};

/// An object: walked against its schema when one is expected of it, else read through.
pub(super) fn map<'de, A: MapAccess<'de>>(look: Look<'_>, map: A) -> Result<Verdict, A::Error> {
    let walk = look.walk;
    if let Expect::Schema {
        schema,
        depth,
        root,
    } = look.expect
        && depth <= walk.max_depth
    {
        let schema = schema.resolve();
        let error = match schema.kind {
            Kind::Object(fields) => object(look, map, schema, fields, (depth, root))?,
            Kind::Map(ref field) => free(walk, map, field)?,
            _ => return through(look, map),
        };
        return Ok(Verdict {
            error,
            fact: Fact::Other,
        });
    }
    through(look, map)
}

/// An object no schema is expected of here: read through, and its mismatch reported.
fn through<'de, A: MapAccess<'de>>(look: Look<'_>, map: A) -> Result<Verdict, A::Error> {
    let walk = look.walk;
    entries(walk, map, |_, map| {
        map.next_value_seed(Look::anything(walk)).map(drop)
    })?;
    Ok(Verdict {
        error: look.mismatch(Found::Object),
        fact: Fact::Other,
    })
}

/// An array: a repeated property's items when one is expected of it, else read through.
pub(super) fn seq<'de, A: SeqAccess<'de>>(
    look: Look<'_>,
    mut items: A,
) -> Result<Verdict, A::Error> {
    let walk = look.walk;
    let (field, rules, expect) = match look.expect {
        Expect::List { field, depth } => (
            Some(field),
            look.rules && !field.batch,
            Expect::of(field, depth),
        ),
        _ => (None, false, Expect::Anything),
    };
    let mut first = None;
    let mut count = 0;
    loop {
        walk.text.borrow_mut().push(Segment::Item(count));
        if let Some(field) = field {
            walk.path.borrow_mut().push_item(field.name, count);
        }
        let item = items.next_element_seed(Look {
            walk,
            expect,
            rules,
        });
        if field.is_some() {
            walk.path.borrow_mut().pop();
        }
        walk.text.borrow_mut().pop();
        let Some(verdict) = item? else { break };
        if first.is_none() {
            first = verdict.error;
        }
        count += 1;
    }
    let error = match field {
        Some(field) => match constraints::items(field, count) {
            Some(problem) => Some(walk.error_in(field.name, problem)),
            None => first,
        },
        None => look.mismatch(Found::Array),
    };
    Ok(Verdict {
        error,
        fact: Fact::Items(count),
    })
}

/// An object of `schema`, at `depth` (the root, or not): its first error.
fn object<'de, A: MapAccess<'de>>(
    look: Look<'_>,
    map: A,
    schema: &'static Schema,
    fields: &'static [Field],
    (depth, root): (usize, bool),
) -> Result<Option<DecodeError>, A::Error> {
    let walk = look.walk;
    let mut unknown = None;
    let mut given: Vec<Option<Verdict>> = fields.iter().map(|_| None).collect();
    entries(walk, map, |key, map| {
        let index = fields.iter().position(|field| same(field.name, key));
        let Some(index) = index.filter(|_| !(root && key == XMLNS)) else {
            // The root's `xmlns` is dropped before the reference checks the tree (D-07).
            if unknown.is_none() && !(root && key == XMLNS) {
                unknown = Some(walk.error(Problem::Unknown {
                    what: "property",
                    name: key.to_string(),
                }));
            }
            return map.next_value_seed(Look::anything(walk)).map(drop);
        };
        let field = &fields[index];
        let verdict = if field.repeated {
            let expect = Expect::List { field, depth };
            map.next_value_seed(Look { expect, ..look })
        } else {
            walk.path.borrow_mut().push(field.name);
            let verdict = map.next_value_seed(Look {
                expect: Expect::of(field, depth),
                ..look
            });
            walk.path.borrow_mut().pop();
            verdict
        };
        given[index] = Some(verdict?);
        Ok(())
    })?;
    if unknown.is_some() {
        return Ok(unknown);
    }
    for (field, verdict) in fields.iter().zip(given.iter_mut()) {
        match verdict {
            None if field.required => {
                return Ok(Some(walk.error(Problem::Missing(field.name.to_string()))));
            }
            Some(Verdict {
                error: error @ Some(_),
                ..
            }) => return Ok(error.take()),
            _ => {}
        }
    }
    if !look.rules {
        return Ok(None);
    }
    let seen = |property: &str| {
        fields
            .iter()
            .position(|field| field.name == property)
            .and_then(|index| given[index].as_ref())
            .map_or(Seen::Absent, |verdict| verdict.fact.seen())
    };
    Ok(constraints::broken_rule(schema, seen).map(|problem| walk.error(problem)))
}

/// An object of free keys, each value held to the map's one field when it is a scalar.
fn free<'de, A: MapAccess<'de>>(
    walk: &Walk,
    map: A,
    field: &'static Field,
) -> Result<Option<DecodeError>, A::Error> {
    let mut first = None;
    entries(walk, map, |key, map| {
        let Type::Scalar(scalar) = field.ty else {
            return map.next_value_seed(Look::anything(walk)).map(drop);
        };
        walk.path.borrow_mut().push(key);
        let verdict = map.next_value_seed(Look {
            walk,
            expect: Expect::Scalar { scalar, field },
            rules: false,
        });
        walk.path.borrow_mut().pop();
        let verdict = verdict?;
        if first.is_none() {
            first = verdict.error;
        }
        Ok(())
    })?;
    Ok(first)
}

/// Reads every entry of an object through `each` (which reads the value), and stops the parse
/// at the object's end if a key was given twice, naming the first repeated, as the reference's
/// parser does.
pub(super) fn entries<'de, A: MapAccess<'de>>(
    walk: &Walk,
    mut map: A,
    mut each: impl FnMut(&str, &mut A) -> Result<(), A::Error>,
) -> Result<(), A::Error> {
    let mut keys = HashSet::new();
    let mut repeated = None;
    while let Some(key) = map.next_key::<String>()? {
        walk.text.borrow_mut().push(Segment::Property(key.clone()));
        let read = each(&key, &mut map);
        walk.text.borrow_mut().pop();
        read?;
        if repeated.is_none() && keys.contains(&key) {
            repeated = Some(key);
        } else {
            keys.insert(key);
        }
    }
    let Some(key) = repeated else {
        return Ok(());
    };
    let message = format!("duplicate key '{key}'");
    let segments = walk.text.borrow().iter().rev().cloned().collect();
    *walk.duplicate.borrow_mut() = Some(Duplicate { key, segments });
    Err(de::Error::custom(message))
}
