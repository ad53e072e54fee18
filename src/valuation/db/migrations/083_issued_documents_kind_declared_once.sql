-- 083 the kinds of issued documents are declared once, in the code (issue 47 "kinds declared once"; issue 42 item 1
-- adds 'filing_receipt'): `valuation.authenticity.registry.KIND_LABELS` names every kind and `register` refuses any
-- other, so the table no longer repeats the list in a CHECK that each new kind had to rebuild (migrations 069 and
-- 078). DuckDB cannot drop a CHECK: the table is rebuilt with its rows as they were (same columns, types and order:
-- the row seals still verify; the sequence seq_issued_documents is kept). Never edit an applied migration.

CREATE TABLE issued_documents_083 (
    id           BIGINT PRIMARY KEY DEFAULT nextval('seq_issued_documents'),
    code         VARCHAR NOT NULL UNIQUE CHECK (length(code) = 10),
    kind         VARCHAR NOT NULL,
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
INSERT INTO issued_documents_083 (id, code, kind, record_table, record_id, record_key, office, nup, issued_at, crc,
                                  sha256, size, issued_by)
    SELECT id, code, kind, record_table, record_id, record_key, office, nup, issued_at, crc, sha256, size, issued_by
    FROM issued_documents ORDER BY id;
DROP TABLE issued_documents;
ALTER TABLE issued_documents_083 RENAME TO issued_documents;
