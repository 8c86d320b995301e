//! Arrays and objects rewritten by their form: the items of an object schema's property, an
//! object's `x-compact` form (entries, value, map), and what is written as given or short.

use core_api_support::{Compact, Field, Kind, Schema, Type};
use serde::de::{self, DeserializeSeed, MapAccess, SeqAccess, Visitor};

use super::{
    Form, Piece, Rewrite, alias, decode, dropped, entries, field_of, is_object, items, object_text,
    property_given, string,
};
use crate::{
    error::DecodeError,
    json::check::{Found, Walk},
};

/// An array, rewritten by its form.
pub(super) fn array<'de, A: SeqAccess<'de>>(
    rewrite: Rewrite<'_>,
    seq: A,
) -> Result<Piece, A::Error> {
    let walk = rewrite.walk;
    let (item, text) = match rewrite.form {
        Form::Field { field, depth } => match field.ty {
            Type::Object(schema) if field.repeated => {
                return decoded_items(walk, seq, field, schema, depth);
            }
            Type::Object(schema) => {
                return rewrite.inside(field.name, |walk| {
                    array(
                        Rewrite {
                            walk,
                            form: decode(schema, depth),
                        },
                        seq,
                    )
                });
            }
            // A repeated scalar property's items are written as they are.
            Type::Scalar(_) if field.repeated => (Form::Scalar, None),
            Type::Scalar(_) => (Form::Drop, Some("[]")),
        },
        Form::Decode { schema, depth, .. } => {
            through(walk, seq)?;
            let error = is_object(schema).then(|| walk.error(Found::Array.wrong("object")));
            let text = if depth > walk.max_depth { "null" } else { "[]" };
            return Ok(Piece {
                text: text.into(),
                error,
            });
        }
        Form::Scalar => (Form::Drop, Some("[]")),
        Form::Keep => (Form::Keep, None),
        Form::Drop => (Form::Drop, Some("null")),
    };
    let mut texts = Vec::new();
    items(walk, seq, |_, seq| {
        let Some(piece) = seq.next_element_seed(rewrite.with(item))? else {
            return Ok(false);
        };
        texts.push(piece.text);
        Ok(true)
    })?;
    Ok(Piece::of(text.map_or_else(
        || format!("[{}]", texts.join(",")),
        str::to_string,
    )))
}

/// The items of a repeated property of an object schema, each decoded.
fn decoded_items<'de, A: SeqAccess<'de>>(
    walk: &Walk,
    seq: A,
    field: &'static Field,
    schema: &'static Schema,
    depth: usize,
) -> Result<Piece, A::Error> {
    let mut texts = Vec::new();
    let mut first = None;
    items(walk, seq, |index, seq| {
        walk.path.borrow_mut().push_item(field.name, index);
        let piece = seq.next_element_seed(Rewrite {
            walk,
            form: decode(schema, depth),
        });
        walk.path.borrow_mut().pop();
        let Some(piece) = piece? else {
            return Ok(false);
        };
        if first.is_none() {
            first = piece.error;
        }
        texts.push(piece.text);
        Ok(true)
    })?;
    Ok(Piece {
        text: format!("[{}]", texts.join(",")),
        error: first,
    })
}

/// Reads an array through, writing nothing of it.
pub(super) fn through<'de, A: SeqAccess<'de>>(walk: &Walk, seq: A) -> Result<(), A::Error> {
    items(walk, seq, |_, seq| {
        Ok(seq
            .next_element_seed(Rewrite {
                walk,
                form: Form::Drop,
            })?
            .is_some())
    })
}

/// An object, rewritten by its form.
pub(super) fn object<'de, A: MapAccess<'de>>(
    rewrite: Rewrite<'_>,
    map: A,
) -> Result<Piece, A::Error> {
    let walk = rewrite.walk;
    let form = match rewrite.form {
        Form::Decode {
            schema,
            depth,
            root,
        } => {
            let schema = schema.resolve();
            let mut piece = match schema.kind {
                Kind::Object(fields) => match schema.compact {
                    Compact::Map { items, key, value } => {
                        map_form(walk, map, field_of(fields, items), (key, value), depth)?
                    }
                    _ => properties(walk, map, schema, fields, (depth, root))?,
                },
                // Free keys are not rewritten; their values are the one field's.
                Kind::Map(ref field) => written(
                    walk,
                    map,
                    match field.ty {
                        Type::Scalar(_) => Form::Scalar,
                        Type::Object(_) => Form::Keep,
                    },
                )?,
                _ => written(walk, map, Form::Drop).map(|_| Piece::of("{}"))?,
            };
            if depth > walk.max_depth {
                piece.text = "null".into();
            }
            return Ok(piece);
        }
        Form::Field { field, depth } => match field.ty {
            Type::Object(schema) => {
                return rewrite.inside(field.name, |walk| {
                    object(
                        Rewrite {
                            walk,
                            form: decode(schema, depth),
                        },
                        map,
                    )
                });
            }
            Type::Scalar(_) => Form::Scalar,
        },
        form => form,
    };
    match form {
        Form::Keep => written(walk, map, Form::Keep),
        Form::Drop => written(walk, map, Form::Drop).map(|_| Piece::of("null")),
        _ => written(walk, map, Form::Drop).map(|_| Piece::of("{}")),
    }
}

/// An object whose properties are written as they come, each value by `form`.
fn written<'de, A: MapAccess<'de>>(walk: &Walk, map: A, form: Form) -> Result<Piece, A::Error> {
    let mut out: Vec<(String, String)> = Vec::new();
    entries(walk, map, |key, map| {
        let piece = map.next_value_seed(Rewrite { walk, form })?;
        out.push((key.to_string(), piece.text));
        Ok(())
    })?;
    Ok(Piece::of(object_text(
        out.iter().map(|(key, text)| (key.as_str(), text.as_str())),
    )))
}

/// An object of an object schema of the same, entries or value form (`decode`, `decode_val`).
fn properties<'de, A: MapAccess<'de>>(
    walk: &Walk,
    map: A,
    schema: &'static Schema,
    fields: &'static [Field],
    (depth, root): (usize, bool),
) -> Result<Piece, A::Error> {
    let alias = alias(schema);
    let val = matches!(schema.compact, Compact::Val { .. });
    // The form's own errors: the items given under their own name, then a value form's value
    // neither a text nor an array.
    let (mut own, mut wrong) = (None, None);
    let mut out: Vec<(String, Piece)> = Vec::new();
    // Where the renamed items stand, and whether they stay (a value form's empty list does not).
    let mut renamed = None;
    entries(walk, map, |key, map| {
        let form = match alias {
            _ if dropped(root, key) => Form::Drop,
            Some((_, items)) if key == items => {
                own.get_or_insert_with(|| property_given(walk.path.borrow().as_str(), items));
                Form::Drop
            }
            Some((name, items)) if key == name => {
                let field = field_of(fields, items);
                let piece = if val {
                    match map.next_value_seed(ValSeed {
                        walk,
                        field,
                        depth,
                        value: name,
                    })? {
                        Ok(piece) => piece,
                        Err(error) => {
                            wrong = Some(error);
                            Piece::of("null")
                        }
                    }
                } else {
                    let form = field.map_or(Form::Keep, |field| Form::Field { field, depth });
                    map.next_value_seed(Rewrite { walk, form })?
                };
                let stays = !(val && piece.text == "[]");
                out.push((items.to_string(), piece));
                renamed = Some((out.len() - 1, stays));
                return Ok(());
            }
            _ => field_of(fields, key).map_or(Form::Drop, |field| Form::Field { field, depth }),
        };
        let piece = map.next_value_seed(Rewrite { walk, form })?;
        if !dropped(root, key) {
            out.push((key.to_string(), piece));
        }
        Ok(())
    })?;
    if let Some((index, stays)) = renamed {
        let moved = out.swap_remove(index);
        if stays {
            out.push(moved);
        }
    }
    let error = own
        .or(wrong)
        .or_else(|| out.iter_mut().find_map(|(_, piece)| piece.error.take()));
    let text = object_text(
        out.iter()
            .map(|(key, piece)| (key.as_str(), piece.text.as_str())),
    );
    Ok(Piece { text, error })
}

/// A value form's `value`: one text, the only item's value, or the items' list; anything else is
/// the form's error.
struct ValSeed<'w> {
    walk: &'w Walk,
    /// The items property.
    field: Option<&'static Field>,
    depth: usize,
    /// The item property an only item's text fills.
    value: &'static str,
}

impl<'de> DeserializeSeed<'de> for ValSeed<'_> {
    type Value = Result<Piece, DecodeError>;

    fn deserialize<D: de::Deserializer<'de>>(
        self,
        deserializer: D,
    ) -> Result<Self::Value, D::Error> {
        deserializer.deserialize_any(self)
    }
}

impl ValSeed<'_> {
    fn wrong(&self, found: Found<'_>) -> DecodeError {
        self.walk
            .error_in(self.value, found.wrong("string or array"))
    }
}

impl<'de> Visitor<'de> for ValSeed<'_> {
    type Value = Result<Piece, DecodeError>;

    fn expecting(&self, formatter: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        formatter.write_str("a text or an array")
    }

    fn visit_str<E>(self, text: &str) -> Result<Self::Value, E> {
        Ok(Ok(Piece::of(format!(
            "[{}]",
            object_text([(self.value, string(text).as_str())].into_iter())
        ))))
    }

    fn visit_seq<A: SeqAccess<'de>>(self, seq: A) -> Result<Self::Value, A::Error> {
        let form = self.field.map_or(Form::Keep, |field| Form::Field {
            field,
            depth: self.depth,
        });
        array(
            Rewrite {
                walk: self.walk,
                form,
            },
            seq,
        )
        .map(Ok)
    }

    fn visit_map<A: MapAccess<'de>>(self, map: A) -> Result<Self::Value, A::Error> {
        written(self.walk, map, Form::Drop)?;
        Ok(Err(self.wrong(Found::Object)))
    }

    fn visit_bool<E>(self, value: bool) -> Result<Self::Value, E> {
        Ok(Err(self.wrong(Found::Bool(value))))
    }

    fn visit_i64<E>(self, value: i64) -> Result<Self::Value, E> {
        Ok(Err(self.wrong(Found::Integer(value))))
    }

    fn visit_u64<E>(self, value: u64) -> Result<Self::Value, E> {
        Ok(Err(self.wrong(
            i64::try_from(value).map_or(Found::Large(value), Found::Integer),
        )))
    }

    fn visit_f64<E>(self, value: f64) -> Result<Self::Value, E> {
        Ok(Err(self.wrong(Found::Float(value))))
    }

    fn visit_unit<E>(self) -> Result<Self::Value, E> {
        Ok(Err(self.wrong(Found::Null)))
    }
}

/// A map-form object (`decode_map`): each key an item's key, its value the item's value or its
/// other properties, or an array of those. The first entry's error comes before any item's.
fn map_form<'de, A: MapAccess<'de>>(
    walk: &Walk,
    map: A,
    field: Option<&'static Field>,
    (key, value): (&'static str, &'static str),
    depth: usize,
) -> Result<Piece, A::Error> {
    let Some(field) = field else {
        return written(walk, map, Form::Keep);
    };
    let item = super::entry::Item {
        walk,
        field,
        key,
        value,
        depth: depth + 1,
    };
    let mut entry_error = None;
    let mut pieces: Vec<Piece> = Vec::new();
    entries(walk, map, |map_key, map| {
        let read = map.next_value_seed(item.entry(map_key, pieces.len()))?;
        if entry_error.is_none() {
            entry_error = read.error;
        }
        pieces.extend(read.items);
        Ok(())
    })?;
    let error = entry_error.or_else(|| pieces.iter_mut().find_map(|piece| piece.error.take()));
    let list = format!(
        "[{}]",
        pieces
            .iter()
            .map(|piece| piece.text.as_str())
            .collect::<Vec<_>>()
            .join(",")
    );
    Ok(Piece {
        text: object_text([(field.name, list.as_str())].into_iter()),
        error,
    })
}
