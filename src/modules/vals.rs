//! The `vals` of channels and PEOs, assembled from stored value items: one `val` per attribute in
//! the order it was first saved, `multiple` items by `pos`, `localized` items by `loc`.

use std::collections::HashMap;

use core_api::types::{Itm, Val, ValType, Vals};

use crate::storage::values::Item;

/// The `vals` of every owner among `items` (which come by owner and row).
pub(crate) fn by_owner(items: Vec<Item>) -> HashMap<i64, Vals> {
    // Per owner its vals in order, and where each attribute's val is among them.
    let mut owners: HashMap<i64, (Vec<Val>, HashMap<i64, usize>)> = HashMap::new();
    for item in items {
        let (vals, places) = owners.entry(item.owner).or_default();
        let at = *places.entry(item.definition).or_insert_with(|| {
            vals.push(val_of(&item));
            vals.len() - 1
        });
        vals[at].itm.push(Itm {
            key: None,
            pos: item.pos.and_then(|pos| i32::try_from(pos).ok()),
            loc: item.loc,
            value: item.value,
        });
    }
    owners
        .into_iter()
        .map(|(owner, (vals, _))| {
            let val = vals
                .into_iter()
                .map(|mut val| {
                    match val.type_ {
                        Some(ValType::Multiple) => val.itm.sort_by_key(|itm| itm.pos),
                        Some(ValType::Localized) => {
                            val.itm.sort_by(|a, b| a.loc.cmp(&b.loc));
                        }
                        None => {}
                    }
                    val
                })
                .collect();
            (owner, Vals { val })
        })
        .collect()
}

/// A `val` without items, from the first stored item of its attribute.
fn val_of(item: &Item) -> Val {
    Val {
        attr: item.attr.clone(),
        type_: match item.kind.as_deref() {
            Some("multiple") => Some(ValType::Multiple),
            Some("localized") => Some(ValType::Localized),
            _ => None,
        },
        origin: item.origin.clone(),
        node: item.node.clone(),
        data_type: Some(item.data_type.clone()),
        itm: Vec::new(),
    }
}
