-- 004 deadlines (issue 6): the events that start and meet the deadlines of rules.md §7,
-- and the waivers DPC grants with their reason.
-- Both tables are append-only (architecture.md "Storage"): a correction is a new row whose
-- `supersedes` points at the row it replaces; `voided` / `revoked` true withdraws it.
-- Event kinds and their fields are validated by valuation.store.deadline_engine (EVENT_KINDS),
-- so a new kind needs no migration. No foreign keys: contracts and wrecks are updated in
-- place by other modules, and DuckDB refuses updates of rows that a foreign key references.
-- Never edit an applied migration: add a new numbered file.

CREATE SEQUENCE seq_deadline_events START 1;
CREATE SEQUENCE seq_deadline_waivers START 1;

CREATE TABLE deadline_events (
    id              BIGINT PRIMARY KEY DEFAULT nextval('seq_deadline_events'),
    kind            VARCHAR NOT NULL,
    contract_id     BIGINT,            -- contracts.id: reports, start of operations, extension request
    wreck_id        BIGINT,            -- wrecks.id: Maritime Court steps, notices, recoveries, excursions
    office_code     VARCHAR,           -- offices.code: wreck map sent, found things collected/sold
    organisation_id BIGINT,            -- organisations.id: who acted (an excursion's tourism company)
    event_date      DATE NOT NULL,     -- the day it happened (delivered, published, collected, …)
    reference       VARCHAR,           -- month reported 'YYYY-MM', year mapped 'YYYY', excursion day
                                       -- 'YYYY-MM-DD', expiry asked to extend, a deadline key, a description
    note            VARCHAR,
    supersedes      BIGINT,            -- the row this one corrects
    voided          BOOLEAN NOT NULL DEFAULT false,   -- true: this correction withdraws `supersedes`
    recorded_by     VARCHAR NOT NULL,
    recorded_at     TIMESTAMP NOT NULL,
    CHECK (contract_id IS NOT NULL OR wreck_id IS NOT NULL OR office_code IS NOT NULL),
    CHECK (NOT voided OR supersedes IS NOT NULL)
);

-- A waiver (dispensa) or suspension of one deadline, by its stable key
-- (e.g. 'monthly_report:A-1:2025-03'), always with the reason shown next to it.
CREATE TABLE deadline_waivers (
    id           BIGINT PRIMARY KEY DEFAULT nextval('seq_deadline_waivers'),
    deadline_key VARCHAR NOT NULL,
    reason       VARCHAR NOT NULL CHECK (length(trim(reason)) >= 5),
    supersedes   BIGINT,               -- the waiver this row replaces
    revoked      BOOLEAN NOT NULL DEFAULT false,   -- true: the superseded waiver no longer applies
    waived_by    VARCHAR NOT NULL,
    waived_at    TIMESTAMP NOT NULL,
    CHECK (NOT revoked OR supersedes IS NOT NULL)
);
