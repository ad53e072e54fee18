-- 085 one process, many documents (issue 42 item 2; decision: docs/decisions/145-one-process.md).
--   process_documents  each act of a case as a document of its process, numbered within it (document_no, from 1, in
--                      the order the acts were recorded): the process is the record that opened the case
--                      (process_subject, process_id: a request, a removal order, a Commission round, an issued
--                      statement or an Authority decision with no record of its own — the subjects of
--                      valuation.process.numbers), whose NUP is the case's; the document is a record of the product
--                      (subject, subject_id: the request itself, a filing, an intimation, the decision, an appeal).
--   adopted_numbers    the NUPs a case brought from the protocol system (SEI/SiGDEM) where it began: taken as its
--                      number (check digits verified) instead of one of the office's own sequence.
-- Existing acts are numbered here in the order they were recorded. Append-only and row-sealed (db/seals.py).
-- No foreign keys. Never edit an applied migration.

CREATE SEQUENCE seq_process_documents START 1;

CREATE TABLE process_documents (
    id               BIGINT PRIMARY KEY DEFAULT nextval('seq_process_documents'),
    process_subject  VARCHAR NOT NULL,
    process_id       BIGINT NOT NULL,
    document_no      INTEGER NOT NULL CHECK (document_no >= 1),
    subject          VARCHAR NOT NULL,
    subject_id       BIGINT NOT NULL,
    recorded_by      VARCHAR NOT NULL,
    recorded_at      TIMESTAMP NOT NULL,
    UNIQUE (process_subject, process_id, document_no),
    UNIQUE (subject, subject_id)
);

CREATE SEQUENCE seq_adopted_numbers START 1;

CREATE TABLE adopted_numbers (
    id                 BIGINT PRIMARY KEY DEFAULT nextval('seq_adopted_numbers'),
    process_number_id  BIGINT NOT NULL UNIQUE,
    recorded_by        VARCHAR NOT NULL,
    recorded_at        TIMESTAMP NOT NULL
);

-- the acts already recorded, each in its process, in the order they were recorded
INSERT INTO process_documents (process_subject, process_id, document_no, subject, subject_id, recorded_by,
                               recorded_at)
WITH decision_process AS (
    SELECT d.id,
           CASE d.kind WHEN 'request' THEN 'request' WHEN 'removal_order' THEN 'removal_order'
                       WHEN 'round' THEN 'round' WHEN 'statement' THEN 'statement'
                       ELSE 'administrative_decision' END AS process_subject,
           CASE WHEN d.kind IN ('request', 'removal_order', 'round', 'statement') THEN d.record_id ELSE d.id END
               AS process_id,
           d.recorded_by, d.recorded_at
    FROM administrative_decisions d
), acts AS (
    -- the opening act: a request (unless a filing opened it), or the record a decision is about
    SELECT 'request' AS process_subject, q.id AS process_id, 0 AS rank, 'request' AS subject, q.id AS subject_id,
           q.recorded_by, q.recorded_at
    FROM requests q WHERE NOT EXISTS (SELECT 1 FROM filings f WHERE f.request_id = q.id AND f.kind = 'requerimento')
    UNION ALL
    SELECT p.process_subject, p.process_id, 0, p.process_subject, p.process_id, p.recorded_by, p.recorded_at
    FROM (SELECT DISTINCT ON (process_subject, process_id) * FROM decision_process
          WHERE process_subject IN ('removal_order', 'round', 'statement') ORDER BY process_subject, process_id,
          recorded_at) p
    UNION ALL
    SELECT 'request', f.request_id, 1, 'filing', f.id, f.filed_by, f.filed_at FROM filings f
    UNION ALL
    SELECT 'request', i.request_id, 1, 'intimation', i.id, i.issued_by, i.issued_at FROM intimations i
    UNION ALL
    SELECT p.process_subject, p.process_id, 1, 'administrative_decision', p.id, p.recorded_by, p.recorded_at
    FROM decision_process p
    UNION ALL
    SELECT p.process_subject, p.process_id, 1, 'appeal', a.id, a.recorded_by, a.recorded_at
    FROM appeals a JOIN decision_process p ON p.id = a.decision_id
)
SELECT process_subject, process_id,
       row_number() OVER (PARTITION BY process_subject, process_id ORDER BY rank, recorded_at, subject, subject_id),
       subject, subject_id, recorded_by, recorded_at
FROM acts;
