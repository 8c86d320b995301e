//! Channels and PEOs, each with its attribute values (one row per item, grouped back into the
//! values they were saved as) and its links.

use super::{ExportError, Kinds, OwnedBy, take_own};
use crate::{
    bootstrap::{AttributeValue, Channel, Peo, ValueItem},
    storage::export::{self, ChannelRow, Chunked, Owned, OwnedRow, PeoRow, ValueRow, Values},
};

impl OwnedBy for ValueRow {
    fn owner(&self) -> i64 {
        self.owner
    }
}

/// What the records of one chunk own: their values and the owned rows asked for, each list
/// by owner, reversed (the next at the end).
struct Chunk {
    values: Vec<ValueRow>,
    owned: Vec<Vec<OwnedRow>>,
}

impl Chunk {
    /// What `owner` owns: its values, grouped, and its rows of each kind asked for.
    fn of(&mut self, owner: i64) -> (Vec<AttributeValue>, Vec<Vec<String>>) {
        let values = grouped(take_own(&mut self.values, owner));
        let owned = self
            .owned
            .iter_mut()
            .map(|rows| {
                take_own(rows, owner)
                    .into_iter()
                    .map(|row| row.value)
                    .collect()
            })
            .collect();
        (values, owned)
    }
}

impl Kinds<'_, '_> {
    /// Reads what the records of ids in `(after, last]` own.
    async fn chunk_of(
        &mut self,
        values: Values,
        owned: &[Owned],
        after: i64,
        last: i64,
    ) -> Result<Chunk, ExportError> {
        let mut rows = export::values(self.connection, values, after, last).await?;
        rows.reverse();
        let mut lists = Vec::with_capacity(owned.len());
        for &kind in owned {
            let mut list = export::owned(self.connection, kind, after, last).await?;
            list.reverse();
            lists.push(list);
        }
        Ok(Chunk {
            values: rows,
            owned: lists,
        })
    }

    pub(super) async fn channels(&mut self) -> Result<(), ExportError> {
        self.open("channels", "channels").await?;
        let mut after = 0;
        loop {
            let channels: Vec<ChannelRow> =
                export::chunk(self.connection, Chunked::Channels, after).await?;
            let Some(last) = channels.last().map(|channel| channel.id) else {
                break;
            };
            let mut chunk = self
                .chunk_of(Values::Channels, &[Owned::ChannelAssets], after, last)
                .await?;
            self.progress
                .advance(u64::try_from(channels.len()).unwrap_or(u64::MAX));
            for row in channels {
                let (values, mut owned) = chunk.of(row.id);
                let channel = Channel {
                    id: Some(row.id),
                    tid: row.tid,
                    type_: row.type_name,
                    parent: row.parent,
                    name: row.name,
                    order_sequence: row.order_sequence,
                    html_icon: row.html_icon,
                    icon: row.icon,
                    allowed_functions: row
                        .allowed_functions
                        .filter(|functions| !functions.is_empty())
                        .map(|functions| functions.split(',').map(str::to_string).collect())
                        .unwrap_or_default(),
                    created_at: Some(row.created_at),
                    modified_at: Some(row.modified_at),
                    values,
                    assets: owned.pop().unwrap_or_default(),
                };
                self.document.record(&channel)?;
            }
            after = last;
        }
        self.close()
    }

    pub(super) async fn peos(&mut self) -> Result<(), ExportError> {
        self.open("peos", "peos").await?;
        let mut after = 0;
        loop {
            let peos: Vec<PeoRow> = export::chunk(self.connection, Chunked::Peos, after).await?;
            let Some(last) = peos.last().map(|peo| peo.id) else {
                break;
            };
            let kinds = [Owned::PeoNodes, Owned::PeoChannels, Owned::PeoRestrictions];
            let mut chunk = self.chunk_of(Values::Peos, &kinds, after, last).await?;
            self.progress
                .advance(u64::try_from(peos.len()).unwrap_or(u64::MAX));
            for row in peos {
                let (values, owned) = chunk.of(row.id);
                let [nodes, channels, restricted_to] =
                    <[Vec<String>; 3]>::try_from(owned).unwrap_or_default();
                let peo = Peo {
                    id: Some(row.id),
                    tid: row.tid,
                    product: row.product,
                    template: row.template,
                    default: row.is_default.into(),
                    name: row.name,
                    created_at: Some(row.created_at),
                    modified_at: Some(row.modified_at),
                    nodes,
                    channels,
                    values,
                    restricted_to,
                };
                self.document.record(&peo)?;
            }
            after = last;
        }
        self.close()
    }
}

/// Items in the order they were saved, each run of items of one attribute (with the same
/// type, origin, node and data type) as one value.
fn grouped(rows: Vec<ValueRow>) -> Vec<AttributeValue> {
    let mut values: Vec<AttributeValue> = Vec::new();
    for row in rows {
        let item = ValueItem {
            id: Some(row.id),
            value: row.value,
            pos: row.pos,
            loc: row.loc,
        };
        match values.last_mut() {
            Some(last)
                if last.attr == row.attr
                    && last.type_ == row.type_
                    && last.origin == row.origin
                    && last.node == row.node
                    && last.data_type == row.data_type =>
            {
                last.items.push(item);
            }
            _ => values.push(AttributeValue {
                attr: row.attr,
                type_: row.type_,
                origin: row.origin,
                node: row.node,
                data_type: row.data_type,
                items: vec![item],
            }),
        }
    }
    values
}
