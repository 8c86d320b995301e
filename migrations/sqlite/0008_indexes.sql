-- Every statement of the service is served by an index (D-37; tests/plans.rs asks the database
-- how it runs each one): a request costs what it reads, not the size of the catalogue.
-- The PostgreSQL twin of this file is ../postgres/0008_indexes.sql.

-- A user's tokens (revoking them; deleting a user), and what refers to a role (deleting one).
CREATE INDEX tokens_user ON tokens (user_id);
CREATE INDEX token_roles_role ON token_roles (role_id);
CREATE INDEX access_restrictions_role ON access_restrictions (role_id);

-- Briefings: the layouts of a module configuration, a layout's boxes, a box's images.
CREATE INDEX briefing_layouts_module ON briefing_layouts (module_cfg_tid);
CREATE INDEX briefing_boxes_layout ON briefing_boxes (layout_id, position);
CREATE INDEX briefing_images_box ON briefing_images (box_id, position);

-- Attribute definitions by type (attribute-definitions query).
CREATE INDEX attribute_definitions_type ON attribute_definitions (type);

-- PEO query by names (by product and by modification time: migration 0005).
CREATE INDEX peos_name ON peos (name);

-- A localized classification name names one classification in its language (D-24): requests
-- that set one wait for each other, and this index keeps the rule whatever happens. Names
-- that two classifications took at once before it existed are left with the first.
DELETE FROM classification_names WHERE loc <> '' AND EXISTS (
    SELECT 1 FROM classification_names other
    WHERE other.loc = classification_names.loc AND other.name = classification_names.name
      AND other.classification_id < classification_names.classification_id
);
CREATE UNIQUE INDEX classification_names_localized ON classification_names (loc, name)
    WHERE loc <> '';
