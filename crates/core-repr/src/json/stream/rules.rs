//! The rules of an object (`anyOf`, `oneOf` of the tables), held by the fast path as the
//! reference reader holds them (`constraints::rules` on the tree), without a tree: each value a
//! rule looks at notes what the rule asks of it as it is read (a scalar's text, an array's
//! length), and the object's rules are asked of those notes once its last property is read.

use std::cell::RefCell;

use core_api_support::{Field, Schema};

use crate::constraints::{self, Seen};

/// Where what the rules ask of one property is noted as its value is read; nothing is noted of
/// an object.
pub(super) type Noted = RefCell<Option<Fact>>;

/// A property's value as [`Noted`] keeps it, and as the error walk (`json::check`) notes it.
pub(in crate::json) enum Fact {
    /// A string.
    String(String),
    /// A boolean or a number, as text.
    Scalar(String),
    /// An array of this many items.
    Items(usize),
    /// An object, or `null`.
    Other,
}

impl Fact {
    /// The value as a rule's condition sees it.
    pub(in crate::json) fn seen(&self) -> Seen<'_> {
        match self {
            Fact::String(text) => Seen::String(text),
            Fact::Scalar(text) => Seen::Scalar(text.clone()),
            Fact::Items(count) => Seen::Items(*count),
            Fact::Other => Seen::Other,
        }
    }
}

/// Notes a value for the rules of its object, if they look at it.
pub(super) fn note(noted: Option<&Noted>, fact: impl FnOnce() -> Fact) {
    if let Some(noted) = noted {
        *noted.borrow_mut() = Some(fact());
    }
}

/// What the rules of one object ask of its properties, by field index; nothing for an object
/// without rules, or whose rules are not asked (inside a batch item, as `tree::check` leaves
/// them to the batch layer).
pub(super) struct Notes {
    schema: &'static Schema,
    slots: Vec<Noted>,
    asked: bool,
}

impl Notes {
    /// The slots of an object of `schema`: none when it has no rules or they are not `asked`.
    pub(super) fn of(schema: &'static Schema, fields: &[Field], asked: bool) -> Notes {
        let asked = asked && !schema.rules.is_empty();
        let slots = if asked {
            fields.iter().map(|_| Noted::default()).collect()
        } else {
            Vec::new()
        };
        Notes {
            schema,
            slots,
            asked,
        }
    }

    /// Where the value of field `index` is noted, if a rule looks at it.
    pub(super) fn slot(&self, index: usize, field: &Field) -> Option<&Noted> {
        self.slots
            .get(index)
            .filter(|_| ruled(self.schema, field.name))
    }

    /// Whether the object read keeps its schema's rules, `met` holding the properties it gave
    /// by field index, as `constraints::rules` finds it of the same object's tree.
    pub(super) fn kept(&mut self, fields: &[Field], met: u64) -> bool {
        if !self.asked {
            return true;
        }
        let facts: Vec<Option<Fact>> = std::mem::take(&mut self.slots)
            .into_iter()
            .map(RefCell::into_inner)
            .collect();
        constraints::keeps_rules(self.schema, |property| {
            match fields.iter().position(|field| field.name == property) {
                Some(index) if met & (1u64 << index) != 0 => facts
                    .get(index)
                    .and_then(Option::as_ref)
                    .map_or(Seen::Other, Fact::seen),
                _ => Seen::Absent,
            }
        })
    }
}

/// Whether a rule of `schema` looks at the property `name`.
pub(in crate::json) fn ruled(schema: &Schema, name: &str) -> bool {
    schema.rules.iter().any(|rule| {
        rule.alternatives.iter().any(|conditions| {
            conditions
                .iter()
                .any(|condition| condition.property == name)
        })
    })
}
