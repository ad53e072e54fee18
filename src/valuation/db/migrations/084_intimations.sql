-- 084 intimations with ciência (issue 42 item 3): the act of the Authority that opens a period for a party in a
-- request's process, issued by the office, delivered to the company in the product (or on paper), and its ciência.
-- Append-only and row-sealed (db/seals.py).
--   intimations          act (the request step it stands for: information asked — Lei 9.784/1999 art. 39 — or the
--                        end of the instruction — art. 44), what it says, the day it fixes (information), delivery
--                        ('sistema' | 'papel'), the company, the office, who issued it and when (issued_on: the
--                        office's day), and the days after which an unopened electronic intimation is taken as known
--                        (tacit_days, the policy in force on that day: Lei 11.419/2006 art. 5 §3).
--   intimation_ciencias  one per intimation: expressa (a representative opened it: who, when), tácita (the period
--                        passed unopened) or AR (the postal receipt of a paper one); the day the period runs from,
--                        and the request step that records it (step_id).
-- No foreign keys. Never edit an applied migration.

CREATE SEQUENCE seq_intimations START 1;

CREATE TABLE intimations (
    id               BIGINT PRIMARY KEY DEFAULT nextval('seq_intimations'),
    request_id       BIGINT NOT NULL,
    act              VARCHAR NOT NULL,
    text             VARCHAR NOT NULL,
    fixed_day        DATE,
    delivery         VARCHAR NOT NULL,
    organisation_id  BIGINT,
    office_code      VARCHAR NOT NULL,
    tacit_days       INTEGER,
    issued_by        VARCHAR NOT NULL,
    issued_at        TIMESTAMP NOT NULL,
    issued_on        DATE NOT NULL
);

CREATE SEQUENCE seq_intimation_ciencias START 1;

CREATE TABLE intimation_ciencias (
    id             BIGINT PRIMARY KEY DEFAULT nextval('seq_intimation_ciencias'),
    intimation_id  BIGINT NOT NULL UNIQUE,
    kind           VARCHAR NOT NULL,
    day            DATE NOT NULL,
    opened_by      VARCHAR,
    step_id        BIGINT NOT NULL,
    recorded_by    VARCHAR NOT NULL,
    recorded_at    TIMESTAMP NOT NULL
);
