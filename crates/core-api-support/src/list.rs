//! How the generated types read a list: into a `Vec` whose capacity fits the list.
//!
//! serde's own `Vec` reader, given no length (XML never states one), starts every list at a
//! capacity of four. Messages of this API are full of one-item lists (a value's single `itm`, a
//! channel's one PEO), so about half of a decoded message's heap was unused capacity, and a
//! large decode spent its time writing memory it never used. [`deserialize`] holds the first
//! few elements on the stack and allocates only once it knows how many there are;
//! `cargo xtask codegen` names it as the reader of every list field of the generated types.

use std::{fmt, marker::PhantomData};

use serde::de::{Deserialize, Deserializer, SeqAccess, Visitor};

/// How many elements are held on the stack before the list is given a heap buffer.
const HELD: usize = 4;

/// The largest capacity a stated length reserves up front (as serde's own, against a hostile
/// length prefix); the list grows past it as elements arrive.
const MAX_RESERVED_BYTES: usize = 1024 * 1024;

/// Reads a list, allocating exactly for lists of up to four elements.
///
/// The result equals what `Vec::<T>::deserialize` gives; only its capacity differs.
pub fn deserialize<'de, D, T>(deserializer: D) -> Result<Vec<T>, D::Error>
where
    D: Deserializer<'de>,
    T: Deserialize<'de>,
{
    deserializer.deserialize_seq(ListVisitor(PhantomData))
}

struct ListVisitor<T>(PhantomData<T>);

impl<'de, T: Deserialize<'de>> Visitor<'de> for ListVisitor<T> {
    type Value = Vec<T>;

    fn expecting(&self, formatter: &mut fmt::Formatter) -> fmt::Result {
        formatter.write_str("a sequence")
    }

    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Vec<T>, A::Error> {
        if let Some(length) = seq.size_hint() {
            return collect(Vec::with_capacity(cautious::<T>(length)), seq);
        }
        let Some(first) = seq.next_element()? else {
            return Ok(Vec::new());
        };
        let Some(second) = seq.next_element()? else {
            return Ok(vec![first]);
        };
        let Some(third) = seq.next_element()? else {
            return Ok(vec![first, second]);
        };
        let Some(fourth) = seq.next_element()? else {
            return Ok(vec![first, second, third]);
        };
        let Some(fifth) = seq.next_element()? else {
            return Ok(vec![first, second, third, fourth]);
        };
        let mut list = Vec::with_capacity(2 * HELD);
        list.extend([first, second, third, fourth, fifth]);
        collect(list, seq)
    }
}

/// Appends the rest of `seq` to `list`.
fn collect<'de, T: Deserialize<'de>, A: SeqAccess<'de>>(
    mut list: Vec<T>,
    mut seq: A,
) -> Result<Vec<T>, A::Error> {
    while let Some(element) = seq.next_element()? {
        list.push(element);
    }
    Ok(list)
}

/// A stated length, capped so that a hostile one cannot reserve more than a megabyte.
fn cautious<T>(length: usize) -> usize {
    let size = std::mem::size_of::<T>().max(1);
    length.min(MAX_RESERVED_BYTES / size)
}

#[cfg(test)]
mod tests {
    use serde::de::{
        IntoDeserializer,
        value::{Error, SeqDeserializer},
    };

    use super::*;

    /// A list of `n` numbers read through a sequence that states no length, as XML's.
    fn read(n: u32, stated: bool) -> Vec<u32> {
        struct Unstated<I>(I);
        impl<'de, I: Iterator<Item = u32>> SeqAccess<'de> for Unstated<I> {
            type Error = Error;
            fn next_element_seed<S: serde::de::DeserializeSeed<'de>>(
                &mut self,
                seed: S,
            ) -> Result<Option<S::Value>, Error> {
                self.0
                    .next()
                    .map(|n| seed.deserialize(n.into_deserializer()))
                    .transpose()
            }
        }
        let result = if stated {
            ListVisitor(PhantomData).visit_seq(SeqDeserializer::<_, Error>::new(0..n))
        } else {
            ListVisitor(PhantomData).visit_seq(Unstated(0..n))
        };
        result.expect("numbers read")
    }

    #[test]
    fn short_lists_get_exactly_their_length_as_capacity() {
        for n in 0..=HELD as u32 {
            let list = read(n, false);
            assert_eq!(list, (0..n).collect::<Vec<_>>());
            assert_eq!(list.capacity(), n as usize, "capacity of a list of {n}");
        }
    }

    #[test]
    fn long_and_stated_lists_keep_every_element_in_order() {
        for n in [5, 8, 9, 1000] {
            assert_eq!(read(n, false), (0..n).collect::<Vec<_>>());
            assert_eq!(read(n, true), (0..n).collect::<Vec<_>>());
        }
    }

    #[test]
    fn a_hostile_stated_length_reserves_at_most_a_megabyte() {
        assert_eq!(cautious::<u64>(usize::MAX), MAX_RESERVED_BYTES / 8);
        assert_eq!(cautious::<()>(3), 3);
    }
}
