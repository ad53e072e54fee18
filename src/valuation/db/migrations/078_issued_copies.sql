-- 078 an act is issued once (issue 43, items 3 and 15):
-- * issued_copies: the registered bytes of an act rendered on demand (the Commission's minutes, a removal order)
--   are kept, so that later downloads serve that copy — one code, one registered document — until what the act
--   says changes. One row per kept copy, append-only and row-sealed (db/seals.py):
--     id           the issued document (issued_documents.id)
--     content_key  the sha256 of what the act says (its data, not its rendering: a new rendering of the same act
--                  is the same act; a changed act is a new issue with a new code)
--     sha256       the kept file (= issued_documents.sha256), content-addressed beside the database (db/blobs.py,
--                  copied by every backup: db/backup_files.py)
--     kept_at      when it was kept (UTC)
-- * issued_documents: one more kind, 'removal_order' — the Naval Authority's order to remove or demolish
--   (Lei 7.542/1986 arts. 5, 9 and 10), issued as a registered, signed act. DuckDB cannot change a CHECK: the
--   table is rebuilt with its rows as they were (same columns, types and order: the row seals still verify; the
--   sequence seq_issued_documents is kept). Never edit an applied migration: add a new numbered file.

CREATE TABLE issued_copies (
    id           BIGINT PRIMARY KEY,
    content_key  VARCHAR NOT NULL CHECK (length(content_key) = 64),
    sha256       VARCHAR NOT NULL CHECK (length(sha256) = 64),
    kept_at      TIMESTAMP NOT NULL
);

CREATE TABLE issued_documents_078 (
    id           BIGINT PRIMARY KEY DEFAULT nextval('seq_issued_documents'),
    code         VARCHAR NOT NULL UNIQUE CHECK (length(code) = 10),
    kind         VARCHAR NOT NULL CHECK (kind IN ('statement', 'minutes', 'wreck_map', 'office_deadlines',
                                                  'photo_sheet', 'case_history', 'removal_order')),
    record_table VARCHAR NOT NULL,
    record_id    BIGINT,
    record_key   VARCHAR,
    office       VARCHAR NOT NULL,
    nup          VARCHAR,
    issued_at    TIMESTAMP NOT NULL,
    crc          VARCHAR NOT NULL CHECK (length(crc) = 8),
    sha256       VARCHAR NOT NULL CHECK (length(sha256) = 64),
    size         BIGINT NOT NULL,
    issued_by    VARCHAR NOT NULL
);
INSERT INTO issued_documents_078 (id, code, kind, record_table, record_id, record_key, office, nup, issued_at, crc,
                                  sha256, size, issued_by)
    SELECT id, code, kind, record_table, record_id, record_key, office, nup, issued_at, crc, sha256, size, issued_by
    FROM issued_documents ORDER BY id;
DROP TABLE issued_documents;
ALTER TABLE issued_documents_078 RENAME TO issued_documents;
