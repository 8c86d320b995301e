-- Products classified under classification nodes: the product selectors of attributes retrieve
-- and query read a product's nodes (D-51), in the order they were classified.
CREATE TABLE product_nodes (
    product_id BIGINT NOT NULL REFERENCES products (id) ON DELETE CASCADE,
    node_id BIGINT NOT NULL REFERENCES classification_nodes (id) ON DELETE CASCADE,
    position INTEGER NOT NULL,
    PRIMARY KEY (product_id, node_id)
);
CREATE INDEX product_nodes_node ON product_nodes (node_id);

-- Nodes are addressed by path alone (nodePath), and node attributes, values and product links
-- by their definition (whether a definition is in use, D-49).
CREATE INDEX classification_nodes_path ON classification_nodes (path);
CREATE INDEX node_attributes_definition ON node_attributes (attribute_definition_id);
CREATE INDEX attribute_values_definition ON attribute_values (attribute_definition_id);
CREATE INDEX product_assets_link_type ON product_assets (link_type_id);

-- A localized classification name names one classification in its language (D-24).
CREATE INDEX classification_names_name ON classification_names (loc, name);
