-- 079 every upload of a signed file is recorded with its outcome (issue 43, item 4): the uploads refused before
-- any signature of theirs was recorded in document_signatures — a file that is no act issued for the record (an
-- altered issued part, another document, a re-saved file: the substitution attempts), a file too large, another
-- signed version registered while it was being checked, a sender refused — are recorded here, one row per upload,
-- by valuation.signatures.records.record_refusal. Append-only and row-sealed (db/seals.py).
--   record_table / record_id   the record whose page received the file (assessment_rounds, statements, …)
--   document_id / code         the issued act the file was taken for (NULL: it is none of the record's acts)
--   reason                     the pt-BR refusal, as the sender read it
--   file_sha256 / file_size    the file sent (never stored)
-- No foreign keys. Never edit an applied migration.

CREATE SEQUENCE seq_signed_upload_refusals START 1;

CREATE TABLE signed_upload_refusals (
    id            BIGINT PRIMARY KEY DEFAULT nextval('seq_signed_upload_refusals'),
    record_table  VARCHAR NOT NULL,
    record_id     BIGINT NOT NULL,
    document_id   BIGINT,
    code          VARCHAR CHECK (code IS NULL OR length(code) = 10),
    reason        VARCHAR NOT NULL,
    file_sha256   VARCHAR NOT NULL CHECK (length(file_sha256) = 64),
    file_size     BIGINT NOT NULL,
    uploaded_by   VARCHAR NOT NULL,
    uploaded_at   TIMESTAMP NOT NULL
);
