-- 082 filings (peticionamento eletrônico, issue 42 item 1): what a company files in a request's process, and what an
-- office records of a filing that reached it by another channel. Append-only and row-sealed (db/seals.py).
--   filings         one filing: the process (request) it is a document of, numbered within it (document_no), what it
--                   is (kind, subject), who filed it (organisation, filed_by), the channel and the day it reached the
--                   office (received_on: the service's own day for a filing in the system — never one the filer
--                   typed —, the day the office says for paper, e-mail or SEI), and when it was recorded (filed_at,
--                   the service's clock).
--   filing_files    its files (PDF), content-addressed beside the database (db/blobs.py): name, size, sha256.
--   filing_reviews  the office's examination of a filing (Lei 9.784/1999 art. 24): who, when, what it did.
-- No foreign keys (later migrations may rebuild requests). Never edit an applied migration.

CREATE SEQUENCE seq_filings START 1;

CREATE TABLE filings (
    id               BIGINT PRIMARY KEY DEFAULT nextval('seq_filings'),
    request_id       BIGINT NOT NULL,
    document_no      INTEGER NOT NULL CHECK (document_no >= 1),
    kind             VARCHAR NOT NULL,
    subject          VARCHAR NOT NULL,
    organisation_id  BIGINT,
    office_code      VARCHAR NOT NULL,
    channel          VARCHAR NOT NULL,
    received_on      DATE NOT NULL,
    filed_by         VARCHAR NOT NULL,
    filed_at         TIMESTAMP NOT NULL,
    UNIQUE (request_id, document_no)
);

CREATE SEQUENCE seq_filing_files START 1;

CREATE TABLE filing_files (
    id          BIGINT PRIMARY KEY DEFAULT nextval('seq_filing_files'),
    filing_id   BIGINT NOT NULL,
    position    INTEGER NOT NULL,
    name        VARCHAR NOT NULL,
    media_type  VARCHAR NOT NULL,
    size_bytes  BIGINT NOT NULL,
    sha256      VARCHAR NOT NULL CHECK (length(sha256) = 64),
    UNIQUE (filing_id, position)
);

CREATE SEQUENCE seq_filing_reviews START 1;

CREATE TABLE filing_reviews (
    id           BIGINT PRIMARY KEY DEFAULT nextval('seq_filing_reviews'),
    filing_id    BIGINT NOT NULL UNIQUE,
    note         VARCHAR NOT NULL,
    reviewed_by  VARCHAR NOT NULL,
    reviewed_at  TIMESTAMP NOT NULL
);
