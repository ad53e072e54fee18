-- 070 the registry's whole life in the product (docs/decisions/001-registry-corrections.md,
-- docs/decisions/002-office-directory.md):
-- * the offices' directory ships with the product (valuation.registry.office_directory, loaded by `db init`):
--   each office says where its row came from (`source`) and may be closed from a day (`closed_on`) — an office
--   that records point at is never deleted;
-- * a company and a responsible party remember the office where they were registered (NORMAM-10 (ed. 2002) 0401:
--   "cadastradas na CP, DL ou AG com jurisdição na área"); NULL for the records of headquarters;
-- * every registry record keeps its versions: `registry_versions` holds, per record, each state it had (version 1
--   when it was registered, or the state found at its first correction for a record older than this table), who
--   wrote it, when and why. The record's own row is its latest version. Append-only and sealed (db/seals.py).
-- Never edit an applied migration: add a new numbered file.

ALTER TABLE offices ADD COLUMN closed_on DATE;
ALTER TABLE offices ADD COLUMN source VARCHAR;
ALTER TABLE organisations ADD COLUMN office_code VARCHAR;
ALTER TABLE owners ADD COLUMN office_code VARCHAR;

CREATE SEQUENCE seq_registry_versions START 1;
CREATE TABLE registry_versions (
    id          BIGINT PRIMARY KEY DEFAULT nextval('seq_registry_versions'),
    entity      VARCHAR NOT NULL,      -- office | organisation | owner | wreck | contract
    record_key  VARCHAR NOT NULL,      -- the record's id (an office's code)
    version     INTEGER NOT NULL CHECK (version >= 1),
    data_json   VARCHAR NOT NULL,      -- the record's columns in this version (valuation.registry.versions)
    reason      VARCHAR,               -- why it was corrected (NULL: its registration, or the state found)
    origin      VARCHAR NOT NULL,      -- created | found | corrected
    changed_by  VARCHAR NOT NULL,
    changed_at  TIMESTAMP NOT NULL,
    UNIQUE (entity, record_key, version)
);
