//! Objects and arrays as the error walk reads them: every entry read to the end (a repeated key
//! stops the parse where the reference's parser stops it), and an object's first error chosen
//! once its last property is read, in `tree::check`'s order: the first unknown property given,
//! then the fields in table order (missing, or their value's first error), then the rules.

use std::{borrow::Cow, collections::HashSet};

use core_api_support::{Field, Kind, Schema, Type};
use serde::de::{self, MapAccess, SeqAccess};

use super::{Duplicate, Expect, Found, KeyText, Look, Segment, Verdict, Walk};
use crate::{
    constraints::{self, Seen},
    error::{DecodeError, Problem},
    json::{
        XMLNS,
        stream::rules::{Fact, ruled},
    },
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
        walk.enter(|| Segment::Item(count));
        if let Some(field) = field {
            walk.path.borrow_mut().push_item(field.name, count);
        }
        // Past the first item's error, nothing an item holds can be reported: it is only read.
        let expect = if first.is_some() {
            Expect::Anything
        } else {
            expect
        };
        let item = items.next_element_seed(Look {
            walk,
            expect,
            rules,
            noted: false,
        });
        if field.is_some() {
            walk.path.borrow_mut().pop();
        }
        walk.leave();
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
    let rules = look.rules && !schema.rules.is_empty();
    let mut unknown = None;
    let mut inline = [false; 64];
    let mut spilled;
    let met: &mut [bool] = if fields.len() <= inline.len() {
        &mut inline[..fields.len()]
    } else {
        spilled = vec![false; fields.len()];
        &mut spilled
    };
    let mut given = Given {
        met,
        first: None,
        facts: Vec::new(),
    };
    if rules {
        given.facts.resize_with(fields.len(), || None);
    }
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
        // Past an unknown property, or a field after the first error in table order, nothing a
        // value holds can be reported: it is only read.
        if unknown.is_some() || given.first.as_ref().is_some_and(|(at, _)| index > *at) {
            given.met[index] = true;
            return map.next_value_seed(Look::anything(walk)).map(drop);
        }
        let field = &fields[index];
        let noted = rules && ruled(schema, field.name);
        let verdict = if field.repeated {
            let expect = Expect::List { field, depth };
            map.next_value_seed(Look {
                expect,
                noted,
                ..look
            })
        } else {
            walk.path.borrow_mut().push(field.name);
            let verdict = map.next_value_seed(Look {
                expect: Expect::of(field, depth),
                noted,
                ..look
            });
            walk.path.borrow_mut().pop();
            verdict
        }?;
        given.note(index, verdict, noted);
        Ok(())
    })?;
    if unknown.is_some() {
        return Ok(unknown);
    }
    Ok(given.error(walk, schema, fields, rules))
}

/// What an object's properties gave, by field index.
struct Given<'m> {
    /// The fields given.
    met: &'m mut [bool],
    /// The first error of a field's value, in table order.
    first: Option<(usize, DecodeError)>,
    /// What the rules see of the fields they look at (none when the rules are not asked).
    facts: Vec<Option<Fact>>,
}

impl Given<'_> {
    /// Notes what the value of field `index` gave.
    fn note(&mut self, index: usize, verdict: Verdict, noted: bool) {
        self.met[index] = true;
        if let Some(error) = verdict.error
            && self.first.as_ref().is_none_or(|(at, _)| index < *at)
        {
            self.first = Some((index, error));
        }
        if noted {
            self.facts[index] = Some(verdict.fact);
        }
    }

    /// The object's first error in `tree::check`'s order: a field missing or its value's first
    /// error, whichever comes first in table order, then the rules (when `rules`).
    fn error(
        self,
        walk: &Walk,
        schema: &'static Schema,
        fields: &'static [Field],
        rules: bool,
    ) -> Option<DecodeError> {
        let missing = fields
            .iter()
            .zip(self.met.iter())
            .position(|(field, met)| field.required && !met);
        match (missing, self.first) {
            (Some(index), first) if first.as_ref().is_none_or(|(at, _)| index < *at) => {
                return Some(walk.error(Problem::Missing(fields[index].name.to_string())));
            }
            (_, Some((_, error))) => return Some(error),
            _ => {}
        }
        if !rules {
            return None;
        }
        let (met, facts) = (&*self.met, &self.facts);
        let seen = |property: &str| match fields.iter().position(|field| field.name == property) {
            Some(index) if met[index] => facts[index].as_ref().map_or(Seen::Other, Fact::seen),
            _ => Seen::Absent,
        };
        constraints::broken_rule(schema, seen).map(|problem| walk.error(problem))
    }
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
        if first.is_some() {
            return map.next_value_seed(Look::anything(walk)).map(drop);
        }
        walk.path.borrow_mut().push(key);
        let verdict = map.next_value_seed(Look {
            walk,
            expect: Expect::Scalar { scalar, field },
            rules: false,
            noted: false,
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
    let mut keys = Keys::default();
    let mut repeated = None;
    while let Some(key) = map.next_key_seed(KeyText)? {
        walk.enter(|| Segment::Property(key.to_string()));
        let read = each(&key, &mut map);
        walk.leave();
        read?;
        if !keys.insert(key.clone()) && repeated.is_none() {
            repeated = Some(key.into_owned());
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

/// The keys of one object met so far: a short list while they are few, then a set.
#[derive(Default)]
struct Keys<'de> {
    few: Vec<Cow<'de, str>>,
    many: HashSet<Cow<'de, str>>,
}

impl<'de> Keys<'de> {
    /// The most keys looked through one by one.
    const FEW: usize = 16;

    /// Adds `key`; whether it was new.
    fn insert(&mut self, key: Cow<'de, str>) -> bool {
        if self.many.is_empty() {
            if self.few.contains(&key) {
                return false;
            }
            if self.few.len() < Self::FEW {
                self.few.push(key);
                return true;
            }
            self.many.extend(self.few.drain(..));
        }
        self.many.insert(key)
    }
}
