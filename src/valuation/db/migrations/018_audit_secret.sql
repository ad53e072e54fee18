-- 018 audit secret (issue 24, item 3): the audit log's visible text never holds a position nor the free
-- text of a confidential record (a wreck's notes and signalling, a found thing's place and notes): those
-- values read "sigilosa", and the row keeps an HMAC-SHA256 of them under this database's own secret
-- (valuation.db.audit.redact), so whoever holds the database can still prove what was written. The one
-- row is written by the first write that masks a value; no page, export or query of the store reads it.
-- Never edit an applied migration: add a new numbered file.

CREATE TABLE audit_secret (
    singleton  INTEGER PRIMARY KEY CHECK (singleton = 1),
    secret     VARCHAR NOT NULL,           -- 64 hex characters from the operating system's CSPRNG
    created_at TIMESTAMP NOT NULL
);
