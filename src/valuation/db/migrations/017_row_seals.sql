-- 017 row seals (issue 14, item 9): the rows of the append-only tables (issued statements with
-- their PDF digest, decisions, the assessment log) and users' roles are digested as they are
-- written, and the digests are recorded in the audit chain, so `audit verify` finds a row changed,
-- added or removed behind the application's back (valuation/db/seals.py).
-- `audit_log.seals_json` (hashed with the row when present) holds, per sealed table, the count and
-- the digest of the row digests that the transaction recorded in `row_seals`.
-- Never edit an applied migration: add a new numbered file.

ALTER TABLE audit_log ADD COLUMN seals_json VARCHAR;

CREATE TABLE row_seals (
    tbl      VARCHAR NOT NULL,      -- the sealed table
    row_id   BIGINT NOT NULL,       -- its id
    digest   VARCHAR NOT NULL,      -- sha256 of the row's sealed columns (valuation.db.seals)
    audit_id BIGINT NOT NULL        -- the audit row whose seals_json covers this digest
);
-- While `row_seals` is empty, the next write seals every row already there (the baseline of a
-- database that predates sealing); from then on only what each transaction writes.
