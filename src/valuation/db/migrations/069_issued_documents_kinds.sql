-- 069 issued_documents: one more kind of issued document, 'case_history' — the history of one request's
-- process (issue 26, section 4: its NUP, office, parties, steps and the deadlines each step started, with their
-- bases; valuation.proceedings.reports.case_history_pdf), registered and stamped like every issued PDF.
-- DuckDB cannot change a CHECK constraint: the table is rebuilt with its rows, every column and value as they
-- were (same names, types and order), so the row seals of db/seals.py (the sha256 of each row's JSON) still
-- verify; the sequence seq_issued_documents is kept, so ids go on from where they were. The registry stays
-- append-only. Never edit an applied migration: add a new numbered file.

CREATE TABLE issued_documents_069 (
    id           BIGINT PRIMARY KEY DEFAULT nextval('seq_issued_documents'),
    code         VARCHAR NOT NULL UNIQUE CHECK (length(code) = 10),
    kind         VARCHAR NOT NULL CHECK (kind IN ('statement', 'minutes', 'wreck_map', 'office_deadlines',
                                                  'photo_sheet', 'case_history')),
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
INSERT INTO issued_documents_069 (id, code, kind, record_table, record_id, record_key, office, nup, issued_at, crc,
                                  sha256, size, issued_by)
    SELECT id, code, kind, record_table, record_id, record_key, office, nup, issued_at, crc, sha256, size, issued_by
    FROM issued_documents ORDER BY id;
DROP TABLE issued_documents;
ALTER TABLE issued_documents_069 RENAME TO issued_documents;
