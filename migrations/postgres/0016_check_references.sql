-- Checks every foreign key of this schema's tables at once, for a load that wrote its rows with
-- the per-row checks off (`session_replication_role = replica`: `core-server migrate` into an
-- empty database, D-01): one anti-join per constraint, each reading its two tables once, instead
-- of a lookup and a row lock per row written. A row whose referencing columns are all set and
-- match no row of the table it refers to fails the load with the error the per-row check raises
-- (`foreign_key_violation`, worded alike); else the function answers how many constraints it
-- checked. Constraints are taken from the catalogue, so a table or a key added by a later
-- migration is checked without a change here.
-- The SQLite twin of this file is ../sqlite/0016_check_references.sql.
CREATE FUNCTION check_references() RETURNS integer LANGUAGE plpgsql AS $$
DECLARE
    reference record;
    broken boolean;
    checked integer := 0;
BEGIN
    FOR reference IN
        SELECT c.conname AS name, c.conrelid::regclass AS child, c.confrelid::regclass AS parent,
               (SELECT string_agg(format('c.%I IS NOT NULL', a.attname), ' AND ' ORDER BY k.n)
                  FROM unnest(c.conkey) WITH ORDINALITY AS k(attnum, n)
                  JOIN pg_attribute a ON a.attrelid = c.conrelid AND a.attnum = k.attnum) AS given,
               (SELECT string_agg(format('p.%I = c.%I', pa.attname, ca.attname), ' AND ' ORDER BY k.n)
                  FROM unnest(c.conkey, c.confkey) WITH ORDINALITY AS k(child_attnum, parent_attnum, n)
                  JOIN pg_attribute ca ON ca.attrelid = c.conrelid AND ca.attnum = k.child_attnum
                  JOIN pg_attribute pa ON pa.attrelid = c.confrelid AND pa.attnum = k.parent_attnum)
                 AS matched
          FROM pg_constraint c
         WHERE c.contype = 'f'
           AND c.connamespace = (SELECT n.oid FROM pg_namespace n WHERE n.nspname = current_schema())
         ORDER BY c.conrelid::regclass::text, c.conname
    LOOP
        EXECUTE format(
            'SELECT EXISTS (SELECT 1 FROM %s c WHERE %s AND NOT EXISTS (SELECT 1 FROM %s p WHERE %s))',
            reference.child, reference.given, reference.parent, reference.matched)
        INTO broken;
        IF broken THEN
            RAISE EXCEPTION 'insert or update on table "%" violates foreign key constraint "%"',
                reference.child, reference.name
                USING ERRCODE = 'foreign_key_violation';
        END IF;
        checked := checked + 1;
    END LOOP;
    RETURN checked;
END
$$;
