-- 077 the calendar DPC keeps (issue 44; Lei 9.784/1999 art. 66 §1): dated records, each with its source, that fix one
-- day of the offices' business-day calendar over the `holidays` library, the local holidays and the policy days —
-- the yearly federal calendar's closures and moved days for every office (`scope` 'BR'; e.g. Portaria MGI nº
-- 9.783/2024: 20/06/2025 without office hours, the Dia do Servidor moved from 28/10 to 27/10/2025), and per office
-- (`scope` its code) a library holiday switched off (`effect` 'open': the day is a business day) or a closed day
-- switched on ('closed'). `moved_from`: a closure moved from that day (which then has office hours). A record is
-- never deleted: it is withdrawn with who, when and why (`withdrawn_*`), and every change is audited
-- (valuation.deadlines.calendars). No foreign keys (DuckDB refuses updates of referenced rows). Never edit an
-- applied migration.

CREATE SEQUENCE seq_calendar_records START 1;

CREATE TABLE calendar_records (
    id               BIGINT PRIMARY KEY DEFAULT nextval('seq_calendar_records'),
    scope            VARCHAR NOT NULL,
    day              DATE NOT NULL,
    effect           VARCHAR NOT NULL CHECK (effect IN ('closed', 'open')),
    moved_from       DATE,
    name             VARCHAR NOT NULL CHECK (length(trim(name)) > 0),
    source           VARCHAR NOT NULL CHECK (length(trim(source)) > 0),
    recorded_by      VARCHAR NOT NULL,
    recorded_at      TIMESTAMP NOT NULL,
    withdrawn_by     VARCHAR,
    withdrawn_at     TIMESTAMP,
    withdrawn_reason VARCHAR,
    CHECK (moved_from IS NULL OR (effect = 'closed' AND moved_from <> day)),
    CHECK ((withdrawn_at IS NULL) = (withdrawn_by IS NULL)),
    CHECK (withdrawn_at IS NULL OR length(trim(withdrawn_reason)) > 0)
);
