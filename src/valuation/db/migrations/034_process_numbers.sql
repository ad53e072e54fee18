-- 034 process numbers (issue 26, section 3): the Número Único de Protocolo (NUP) of Portaria
-- Interministerial MJSP/ME nº 11/2019, 00000.000000/0000-00 (valuation.core.nup).
-- `protocol_units`: the 5-digit code of the protocol unit of each office (Capitania, Delegacia, Agência)
-- that numbers its requests, decisions and documents. `process_numbers`: one NUP per record (`subject`,
-- `subject_id`: a licence request, a Commission round's decision, an issued statement, a removal order…;
-- the list is valuation.process.numbers.SUBJECTS, not a CHECK, so later kinds need no migration), the
-- sequence restarting every year per unit (allocated in the write that records the act, so one sequence
-- number is never given twice: UNIQUE below). Append-only; sealed (valuation.db.seals).
-- No foreign keys. Never edit an applied migration.

CREATE SEQUENCE seq_process_numbers START 1;

CREATE TABLE protocol_units (
    office_code VARCHAR PRIMARY KEY,
    unit_code   VARCHAR NOT NULL UNIQUE CHECK (regexp_full_match(unit_code, '[0-9]{5}')),
    recorded_by VARCHAR NOT NULL,
    recorded_at TIMESTAMP NOT NULL
);

CREATE TABLE process_numbers (
    id          BIGINT PRIMARY KEY DEFAULT nextval('seq_process_numbers'),
    nup         VARCHAR NOT NULL UNIQUE CHECK (regexp_full_match(nup, '[0-9]{17}')),
    unit_code   VARCHAR NOT NULL,
    year        INTEGER NOT NULL CHECK (year BETWEEN 1900 AND 9999),
    sequence    INTEGER NOT NULL CHECK (sequence BETWEEN 1 AND 999999),
    subject     VARCHAR NOT NULL,
    subject_id  BIGINT NOT NULL,
    office_code VARCHAR NOT NULL,
    act_on      DATE NOT NULL,
    assigned_by VARCHAR NOT NULL,
    assigned_at TIMESTAMP NOT NULL,
    UNIQUE (unit_code, year, sequence),
    UNIQUE (subject, subject_id)
);
