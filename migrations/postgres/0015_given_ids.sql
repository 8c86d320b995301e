-- A record imported from an export keeps its id (`core-server export`, the bootstrap format's
-- `id`): the import's statements name the `id` column and give NULL for a record that has none,
-- as SQLite's `INTEGER PRIMARY KEY` takes it (the next id). On PostgreSQL an identity column
-- refuses an explicit NULL, so this trigger gives such a row the next value of the table's
-- sequence before the row is checked; a given id is written as it is (`import` then continues
-- the sequence after the largest one).
CREATE FUNCTION given_or_next_id() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    NEW.id := nextval(TG_ARGV[0]);
    RETURN NEW;
END
$$;

CREATE TRIGGER users_given_or_next_id BEFORE INSERT ON users FOR EACH ROW WHEN (NEW.id IS NULL)
    EXECUTE FUNCTION given_or_next_id('users_id_seq');
CREATE TRIGGER roles_given_or_next_id BEFORE INSERT ON roles FOR EACH ROW WHEN (NEW.id IS NULL)
    EXECUTE FUNCTION given_or_next_id('roles_id_seq');
CREATE TRIGGER tokens_given_or_next_id BEFORE INSERT ON tokens FOR EACH ROW WHEN (NEW.id IS NULL)
    EXECUTE FUNCTION given_or_next_id('tokens_id_seq');
CREATE TRIGGER locales_given_or_next_id BEFORE INSERT ON locales FOR EACH ROW WHEN (NEW.id IS NULL)
    EXECUTE FUNCTION given_or_next_id('locales_id_seq');
CREATE TRIGGER assets_given_or_next_id BEFORE INSERT ON assets FOR EACH ROW WHEN (NEW.id IS NULL)
    EXECUTE FUNCTION given_or_next_id('assets_id_seq');
CREATE TRIGGER asset_versions_given_or_next_id BEFORE INSERT ON asset_versions FOR EACH ROW WHEN (NEW.id IS NULL)
    EXECUTE FUNCTION given_or_next_id('asset_versions_id_seq');
CREATE TRIGGER keywords_given_or_next_id BEFORE INSERT ON keywords FOR EACH ROW WHEN (NEW.id IS NULL)
    EXECUTE FUNCTION given_or_next_id('keywords_id_seq');
CREATE TRIGGER glossaries_given_or_next_id BEFORE INSERT ON glossaries FOR EACH ROW WHEN (NEW.id IS NULL)
    EXECUTE FUNCTION given_or_next_id('glossaries_id_seq');
CREATE TRIGGER glossary_entries_given_or_next_id BEFORE INSERT ON glossary_entries FOR EACH ROW WHEN (NEW.id IS NULL)
    EXECUTE FUNCTION given_or_next_id('glossary_entries_id_seq');
CREATE TRIGGER glossary_translations_given_or_next_id BEFORE INSERT ON glossary_translations FOR EACH ROW WHEN (NEW.id IS NULL)
    EXECUTE FUNCTION given_or_next_id('glossary_translations_id_seq');
CREATE TRIGGER messages_given_or_next_id BEFORE INSERT ON messages FOR EACH ROW WHEN (NEW.id IS NULL)
    EXECUTE FUNCTION given_or_next_id('messages_id_seq');
CREATE TRIGGER attribute_definitions_given_or_next_id BEFORE INSERT ON attribute_definitions FOR EACH ROW WHEN (NEW.id IS NULL)
    EXECUTE FUNCTION given_or_next_id('attribute_definitions_id_seq');
CREATE TRIGGER channel_types_given_or_next_id BEFORE INSERT ON channel_types FOR EACH ROW WHEN (NEW.id IS NULL)
    EXECUTE FUNCTION given_or_next_id('channel_types_id_seq');
CREATE TRIGGER channels_given_or_next_id BEFORE INSERT ON channels FOR EACH ROW WHEN (NEW.id IS NULL)
    EXECUTE FUNCTION given_or_next_id('channels_id_seq');
CREATE TRIGGER briefing_layouts_given_or_next_id BEFORE INSERT ON briefing_layouts FOR EACH ROW WHEN (NEW.id IS NULL)
    EXECUTE FUNCTION given_or_next_id('briefing_layouts_id_seq');
CREATE TRIGGER briefing_boxes_given_or_next_id BEFORE INSERT ON briefing_boxes FOR EACH ROW WHEN (NEW.id IS NULL)
    EXECUTE FUNCTION given_or_next_id('briefing_boxes_id_seq');
CREATE TRIGGER briefing_images_given_or_next_id BEFORE INSERT ON briefing_images FOR EACH ROW WHEN (NEW.id IS NULL)
    EXECUTE FUNCTION given_or_next_id('briefing_images_id_seq');
CREATE TRIGGER products_given_or_next_id BEFORE INSERT ON products FOR EACH ROW WHEN (NEW.id IS NULL)
    EXECUTE FUNCTION given_or_next_id('products_id_seq');
CREATE TRIGGER peos_given_or_next_id BEFORE INSERT ON peos FOR EACH ROW WHEN (NEW.id IS NULL)
    EXECUTE FUNCTION given_or_next_id('peos_id_seq');
CREATE TRIGGER attribute_values_given_or_next_id BEFORE INSERT ON attribute_values FOR EACH ROW WHEN (NEW.id IS NULL)
    EXECUTE FUNCTION given_or_next_id('attribute_values_id_seq');
CREATE TRIGGER classifications_given_or_next_id BEFORE INSERT ON classifications FOR EACH ROW WHEN (NEW.id IS NULL)
    EXECUTE FUNCTION given_or_next_id('classifications_id_seq');
CREATE TRIGGER classification_nodes_given_or_next_id BEFORE INSERT ON classification_nodes FOR EACH ROW WHEN (NEW.id IS NULL)
    EXECUTE FUNCTION given_or_next_id('classification_nodes_id_seq');
CREATE TRIGGER node_attributes_given_or_next_id BEFORE INSERT ON node_attributes FOR EACH ROW WHEN (NEW.id IS NULL)
    EXECUTE FUNCTION given_or_next_id('node_attributes_id_seq');
CREATE TRIGGER domain_values_given_or_next_id BEFORE INSERT ON domain_values FOR EACH ROW WHEN (NEW.id IS NULL)
    EXECUTE FUNCTION given_or_next_id('domain_values_id_seq');

-- After an import of records with their ids, a table's sequence continues after the largest id
-- (never moving back): an identity column's sequence does not see ids written as given.
CREATE FUNCTION continue_sequence(table_name TEXT) RETURNS BIGINT LANGUAGE plpgsql AS $$
DECLARE
    largest BIGINT;
    sequence_name TEXT := pg_get_serial_sequence(table_name, 'id');
BEGIN
    EXECUTE format('SELECT MAX(id) FROM %I', table_name) INTO largest;
    IF largest IS NULL
        OR largest <= COALESCE(pg_sequence_last_value(CAST(sequence_name AS REGCLASS)), 0) THEN
        RETURN 0;
    END IF;
    RETURN setval(sequence_name, largest);
END
$$;
