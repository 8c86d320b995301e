//! The macros every statement is written with: `sql!` and `sql_in!` register each text as a
//! [`super::Statement`], so that `tests/plans.rs` can ask the database how it runs every one.

/// A statement of the service's SQL: the text itself, registered as a
/// [`crate::storage::Statement`] so that the query-plan test asks the database how it runs every one
/// (D-37: every query is served by an index).
/// `sql!(sqlite: …)` and `sql!(postgres: …)` mark a statement written for one database.
macro_rules! sql {
    (sqlite: $text:expr) => {
        sql!(@ Some($crate::storage::Backend::Sqlite), $text)
    };
    (postgres: $text:expr) => {
        sql!(@ Some($crate::storage::Backend::Postgres), $text)
    };
    (@ $backend:expr, $text:expr) => {{
        const TEXT: &str = $text;
        ::inventory::submit! {
            $crate::storage::Statement {
                text: TEXT,
                backend: $backend,
                file: file!(),
                line: line!(),
            }
        }
        TEXT
    }};
    ($text:expr) => {
        sql!(@ None, $text)
    };
}

/// The parts of a statement that reads the rows whose column is in a list
/// ([`crate::storage::in_list`]), registered like [`sql!`] with a one-value list.
macro_rules! sql_in {
    ($head:ident ! ($($args:tt)*), $tail:literal) => {
        sql_in!(@ ($head!($($args)*)), $tail)
    };
    ($head:literal, $tail:literal) => {
        sql_in!(@ ($head), $tail)
    };
    (@ ($($head:tt)*), $tail:literal) => {{
        const LIST: $crate::storage::InList = $crate::storage::InList {
            head: $($head)*,
            tail: $tail,
        };
        ::inventory::submit! {
            $crate::storage::Statement {
                text: concat!($($head)*, "$1", $tail),
                backend: None,
                file: file!(),
                line: line!(),
            }
        }
        LIST
    }};
}

/// The subtree `tree (id, tid, parent_id, order_sequence, depth)` of the channel whose
/// `$column` is `$root`, down to `$level` generations (through the parent index): the head of a
/// statement that reads it. Channel query and PEO query by project read it.
macro_rules! channel_tree {
    ($column:literal, $root:literal, $level:literal) => {
        concat!(
            "WITH RECURSIVE tree (id, tid, parent_id, order_sequence, depth) AS ( \
               SELECT id, tid, parent_id, order_sequence, 0 FROM channels WHERE ",
            $column,
            " = ",
            $root,
            " UNION ALL \
               SELECT c.id, c.tid, c.parent_id, c.order_sequence, t.depth + 1 \
               FROM channels c JOIN tree t ON c.parent_id = t.id WHERE t.depth < ",
            $level,
            " ) "
        )
    };
}

/// The stored sort key's segment of a keyword (migration 0013): its order number `$order` (its
/// count of digits as one character from '1', then the digits), its name `$name`, then U+0001.
macro_rules! segment {
    (sqlite, $order:literal, $name:literal) => {
        concat!(
            "char(48 + length(",
            $order,
            ")) || ",
            $order,
            " || ",
            $name,
            " || char(1)"
        )
    };
    (postgres, $order:literal, $name:literal) => {
        concat!(
            "chr(48 + length(",
            $order,
            "::text)) || ",
            $order,
            "::text || ",
            $name,
            " || chr(1)"
        )
    };
}

/// The columns of a value item after its owner, as `values::Item` reads them (`v` the value,
/// `d` its definition).
macro_rules! value_columns {
    () => {
        "v.attribute_definition_id, d.tid, v.type, v.origin, v.node, \
         COALESCE(v.data_type, d.type), v.pos, v.loc, v.value"
    };
}

/// A PEO `e` (its product `pr`) as one JSON array that `peos::Stored` reads: its row, the roles
/// it and its product are restricted to, then its nodes and values (`names`: two empty lists,
/// for an answer that shows names only). Channel retrieve and PEO retrieve both read it.
macro_rules! peo_json {
    (sqlite, whole) => {
        peo_json!(@ sqlite, concat!(
            "json((SELECT json_group_array(n.node ORDER BY n.position) FROM peo_nodes n \
               WHERE n.peo_id = e.id)), \
             json((SELECT json_group_array(json_array(v.peo_id, ",
            value_columns!(),
            ") ORDER BY v.id) FROM attribute_values v \
               JOIN attribute_definitions d ON d.id = v.attribute_definition_id \
               WHERE v.peo_id = e.id))"
        ))
    };
    (sqlite, names) => {
        peo_json!(@ sqlite, "json_array(), json_array()")
    };
    (postgres, whole) => {
        peo_json!(@ postgres, concat!(
            "(SELECT COALESCE(json_agg(n.node ORDER BY n.position), '[]') \
               FROM peo_nodes n WHERE n.peo_id = e.id), \
             (SELECT COALESCE(json_agg(json_build_array(v.peo_id, ",
            value_columns!(),
            ") ORDER BY v.id), '[]') FROM attribute_values v \
               JOIN attribute_definitions d ON d.id = v.attribute_definition_id \
               WHERE v.peo_id = e.id)"
        ))
    };
    (postgres, names) => {
        peo_json!(@ postgres, "CAST('[]' AS JSON), CAST('[]' AS JSON)")
    };
    (@ sqlite, $lists:expr) => {
        concat!(
            "json_array(json_array(e.id, e.tid, pr.tid, e.template, e.is_default, e.name, \
               e.created_at, e.modified_at), \
             json((SELECT json_group_array(r.name) FROM access_restrictions ar \
               JOIN roles r ON r.id = ar.role_id WHERE ar.kind = 'peo' AND ar.record_id = e.id)), \
             json((SELECT json_group_array(r.name) FROM access_restrictions ar \
               JOIN roles r ON r.id = ar.role_id \
               WHERE ar.kind = 'product' AND ar.record_id = e.product_id)), ",
            $lists,
            ")"
        )
    };
    (@ postgres, $lists:expr) => {
        concat!(
            "json_build_array(json_build_array(e.id, e.tid, pr.tid, e.template, e.is_default, \
               e.name, e.created_at, e.modified_at), \
             (SELECT COALESCE(json_agg(r.name), '[]') FROM access_restrictions ar \
               JOIN roles r ON r.id = ar.role_id WHERE ar.kind = 'peo' AND ar.record_id = e.id), \
             (SELECT COALESCE(json_agg(r.name), '[]') FROM access_restrictions ar \
               JOIN roles r ON r.id = ar.role_id \
               WHERE ar.kind = 'product' AND ar.record_id = e.product_id), ",
            $lists,
            ")"
        )
    };
}
