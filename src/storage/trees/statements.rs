//! The statements of `storage::trees`: each answers a page (`PageText`) that echoes its kind,
//! `0` the classifications, `1` a tree, `2` a page of nodes, and its place.

/// A node's row as `NodeRow` reads it, aggregated over the nodes `n` (SQLite).
macro_rules! sqlite_nodes {
    () => {
        "json_group_array(json_array(n.id, n.parent_id, n.position, n.path, \
           json((SELECT json_group_array(json_array(nn.loc, nn.name)) FROM node_names nn \
                 WHERE nn.node_id = n.id)), \
           json((SELECT json_group_array(json_array(a.id, d.tid, a.level, a.inheritance, \
                 a.restriction, a.localized)) FROM node_attributes a \
                 JOIN attribute_definitions d ON d.id = a.attribute_definition_id \
                 WHERE a.node_id = n.id))))"
    };
}

/// [`sqlite_nodes!`] in PostgreSQL's functions.
macro_rules! postgres_nodes {
    () => {
        "COALESCE(json_agg(json_build_array(n.id, n.parent_id, n.position, n.path, \
           (SELECT COALESCE(json_agg(json_build_array(nn.loc, nn.name)), '[]') \
            FROM node_names nn WHERE nn.node_id = n.id), \
           (SELECT COALESCE(json_agg(json_build_array(a.id, d.tid, a.level, a.inheritance, \
            a.restriction, a.localized)), '[]') FROM node_attributes a \
            JOIN attribute_definitions d ON d.id = a.attribute_definition_id \
            WHERE a.node_id = n.id))), '[]')::text"
    };
}

/// Whether the tree of the classification `$id` is small: at most `PAGE` (512) nodes, counted
/// no further than one more.
macro_rules! small {
    ($id:literal) => {
        concat!(
            "(SELECT count(*) FROM (SELECT 1 FROM classification_nodes \
             WHERE classification_id = ",
            $id,
            " LIMIT 513) l) <= 512"
        )
    };
}

/// The first page: the classifications `$selected` selects (`s`, an id twice when both lists
/// name it), by id, with their names by locale (`$classes`), and, when `$1` asks for nodes, the
/// first one's whole tree (`$nodes` of `n`) when it is small.
macro_rules! classes {
    ($selected:literal, $head:literal, $classes:literal, $nodes:expr) => {
        concat!(
            "WITH s AS (",
            $selected,
            ") SELECT ",
            $head,
            ", (",
            $classes,
            " FROM s JOIN classifications c ON c.id = s.id) AS classes, \
             (SELECT CASE WHEN ",
            small!("f.id"),
            " THEN (SELECT ",
            $nodes,
            " FROM classification_nodes n WHERE n.classification_id = f.id) END \
             FROM (SELECT min(id) AS id FROM s WHERE $1) f WHERE f.id IS NOT NULL) AS tree"
        )
    };
}

/// The first page (SQLite): [`classes!`].
macro_rules! sqlite_classes {
    ($selected:literal) => {
        concat!(classes!(
            $selected,
            "0 AS kind, 0 AS at, 0 AS start, NULL AS bones",
            "SELECT json_group_array(json_array(c.id, c.tid, \
                   json((SELECT json_group_array(json_array(cn.loc, cn.name) ORDER BY cn.loc) \
                         FROM classification_names cn WHERE cn.classification_id = c.id))) \
                   ORDER BY c.id)",
            sqlite_nodes!()
        ))
    };
}

/// The first page (PostgreSQL): [`classes!`].
macro_rules! postgres_classes {
    ($selected:literal) => {
        concat!(classes!(
            $selected,
            "CAST(0 AS BIGINT) AS kind, CAST(0 AS BIGINT) AS at, CAST(0 AS BIGINT) AS start, \
             CAST(NULL AS TEXT) AS bones",
            "SELECT COALESCE(json_agg(json_build_array(c.id, c.tid, \
               (SELECT COALESCE(json_agg(json_build_array(cn.loc, cn.name) ORDER BY cn.loc), \
                '[]') FROM classification_names cn WHERE cn.classification_id = c.id)) \
               ORDER BY c.id), '[]')::text",
            postgres_nodes!()
        ))
    };
}

/// The statements of one backend, each answering a `PageText`:
/// - `every`, `listed`: the first page, of every classification (`$1` nodes asked) or of those
///   listed (`$2` ids and `$3` tids as JSON arrays);
/// - `tree`: the classification `$1`'s tree, whole when small, else its skeleton (`$2` its
///   place);
/// - `nodes`: the nodes `$1` lists (a JSON array), a page of the tree at `$2`, from `$3`.
pub(super) struct Statements {
    pub(super) every: &'static str,
    pub(super) listed: &'static str,
    pub(super) tree: &'static str,
    pub(super) nodes: &'static str,
}

pub(super) const SQLITE: Statements = Statements {
    every: sql!(sqlite: sqlite_classes!("SELECT id FROM classifications every")),
    listed: sql!(sqlite: sqlite_classes!(
        "SELECT c.id FROM json_each($2) j JOIN classifications c ON c.id = j.value \
         UNION ALL SELECT c.id FROM json_each($3) j JOIN classifications c ON c.tid = j.value"
    )),
    tree: sql!(sqlite: concat!(
        "WITH t AS (SELECT ",
        small!("$1"),
        " AS small) SELECT 1 AS kind, CAST($2 AS INTEGER) AS at, 0 AS start, NULL AS classes, \
         CASE WHEN t.small THEN (SELECT ",
        sqlite_nodes!(),
        " FROM classification_nodes n WHERE n.classification_id = $1) END AS tree, \
         CASE WHEN NOT t.small THEN (SELECT json_group_array(json_array(id, parent_id, \
         position)) FROM classification_nodes WHERE classification_id = $1) END AS bones \
         FROM t"
    )),
    nodes: sql!(sqlite: concat!(
        "SELECT 2 AS kind, CAST($2 AS INTEGER) AS at, CAST($3 AS INTEGER) AS start, \
         NULL AS classes, ",
        sqlite_nodes!(),
        " AS tree, NULL AS bones \
         FROM json_each($1) j JOIN classification_nodes n ON n.id = j.value"
    )),
};

pub(super) const POSTGRES: Statements = Statements {
    every: sql!(postgres: postgres_classes!("SELECT id FROM classifications every")),
    listed: sql!(postgres: postgres_classes!(
        "SELECT c.id FROM json_array_elements_text($2::json) j \
         JOIN classifications c ON c.id = j.value::bigint \
         UNION ALL SELECT c.id FROM json_array_elements_text($3::json) j \
         JOIN classifications c ON c.tid = j.value"
    )),
    tree: sql!(postgres: concat!(
        "WITH t AS (SELECT ",
        small!("$1"),
        " AS small) SELECT CAST(1 AS BIGINT) AS kind, CAST($2 AS BIGINT) AS at, \
         CAST(0 AS BIGINT) AS start, CAST(NULL AS TEXT) AS classes, \
         CASE WHEN t.small THEN (SELECT ",
        postgres_nodes!(),
        " FROM classification_nodes n WHERE n.classification_id = $1) END AS tree, \
         CASE WHEN NOT t.small THEN (SELECT COALESCE(json_agg(json_build_array(id, parent_id, \
         position)), '[]')::text FROM classification_nodes WHERE classification_id = $1) END \
         AS bones FROM t"
    )),
    nodes: sql!(postgres: concat!(
        "SELECT CAST(2 AS BIGINT) AS kind, CAST($2 AS BIGINT) AS at, \
         CAST($3 AS BIGINT) AS start, CAST(NULL AS TEXT) AS classes, ",
        postgres_nodes!(),
        " AS tree, CAST(NULL AS TEXT) AS bones \
         FROM json_array_elements_text($1::json) j \
         JOIN classification_nodes n ON n.id = j.value::bigint"
    )),
};
