-- 067 the signatures verified on issued documents (issue 27 §2): every upload of a signed PDF of an issued
-- document (issued_documents) is verified (valuation.signatures.verify) and recorded here, one row per new
-- signature the file brings (revision = its number in the file, 1 = the first applied), or one row with
-- revision 0 when the file brought none that could be read. Append-only and row-sealed (db/seals.py).
--   document_id / code   the issued document (issued_documents.id / its verification code)
--   upload_id            one upload; the rows of the same file share it (seq_signature_uploads)
--   signer_cpf / signer_name   as the certificate gives them (ICP-Brasil otherName 2.16.76.1.3.1; NULL: none)
--   signer_user_id       the user whose CPF it is among the required signers (NULL: nobody expected)
--   signed_at            the signing time the signature declares, UTC (NULL: none)
--   outcome              'valid' or 'refused'; reason: the pt-BR reasons, '; '-joined (NULL when valid)
--   file_sha256 / file_size   the uploaded file; a valid one is stored content-addressed (db/blobs.py)
--   revision_end         the signed revision is the file's first revision_end bytes
-- No foreign keys. Never edit an applied migration.

CREATE SEQUENCE seq_document_signatures START 1;
CREATE SEQUENCE seq_signature_uploads START 1;

CREATE TABLE document_signatures (
    id             BIGINT PRIMARY KEY DEFAULT nextval('seq_document_signatures'),
    document_id    BIGINT NOT NULL,
    code           VARCHAR NOT NULL CHECK (length(code) = 10),
    upload_id      BIGINT NOT NULL,
    revision       INTEGER NOT NULL CHECK (revision >= 0),
    signer_cpf     VARCHAR CHECK (signer_cpf IS NULL OR length(signer_cpf) = 11),
    signer_name    VARCHAR,
    signer_user_id BIGINT,
    signed_at      TIMESTAMP,
    outcome        VARCHAR NOT NULL CHECK (outcome IN ('valid', 'refused')),
    reason         VARCHAR,
    file_sha256    VARCHAR NOT NULL CHECK (length(file_sha256) = 64),
    file_size      BIGINT NOT NULL,
    revision_end   BIGINT NOT NULL,
    uploaded_by    VARCHAR NOT NULL,
    uploaded_at    TIMESTAMP NOT NULL
);
