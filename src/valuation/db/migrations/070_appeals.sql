-- 070 the administrative process's decisions and the appeals against them (issue 26 §2; Lei 7.542/1986 art. 33;
-- Lei 9.784/1999 arts. 56–65).
-- `administrative_decisions`: every decision of the Naval Authority that can be appealed, as a record with the
-- day it was notified to the interested party or officially published (the 10 days of art. 59 run from it).
-- `kind` says what was decided; `record_table`/`record_id` point at the product's record of it where there is
-- one (a removal order, a Commission round, an issued statement, a request, a found thing, a contract's
-- cancellation); `wreck_id`, `contract_id`, `organisation_id` say whose case it is (the access scope).
-- `authority` is who decided, as the act names it. Append-only: what an appeal does to a decision is read
-- from the appeal's outcome, never by changing this row.
-- `appeals`: one appeal per instance of one decision (art. 57: at most three, in order); `on_time` is read at
-- filing from the notification (art. 63 I: a late appeal is recorded and not known); the suspensive effect is
-- granted only with its written reason (art. 61 sole paragraph).
-- `appeal_steps`: its history, append-only — the deciding authority's reconsideration or its forwarding to the
-- superior (art. 56 §1; the forwarding day is the receipt of the case, art. 59 §1), the other parties'
-- intimation and allegations (art. 62), the extension of the decision with its reason (art. 59 §2), the
-- decision with its outcome. No foreign keys (DuckDB refuses updates of referenced rows). Never edit an
-- applied migration.

CREATE SEQUENCE seq_administrative_decisions START 1;
CREATE SEQUENCE seq_appeals START 1;
CREATE SEQUENCE seq_appeal_steps START 1;

CREATE TABLE administrative_decisions (
    id              BIGINT PRIMARY KEY DEFAULT nextval('seq_administrative_decisions'),
    kind            VARCHAR NOT NULL CHECK (kind IN ('removal_order', 'domain_incorporation', 'request',
                                                     'preference', 'found_thing_lost', 'cancellation', 'round',
                                                     'statement')),
    record_table    VARCHAR,
    record_id       BIGINT,
    office_code     VARCHAR NOT NULL,
    wreck_id        BIGINT,
    contract_id     BIGINT,
    organisation_id BIGINT,
    summary         VARCHAR NOT NULL CHECK (length(trim(summary)) > 0),
    authority       VARCHAR NOT NULL CHECK (length(trim(authority)) > 0),
    decided_on      DATE NOT NULL,
    notice          VARCHAR NOT NULL CHECK (notice IN ('notificação', 'publicação')),
    notified_on     DATE NOT NULL,
    recorded_by     VARCHAR NOT NULL,
    recorded_at     TIMESTAMP NOT NULL,
    CHECK (notified_on >= decided_on),
    UNIQUE (record_table, record_id)
);

CREATE TABLE appeals (
    id                BIGINT PRIMARY KEY DEFAULT nextval('seq_appeals'),
    decision_id       BIGINT NOT NULL,
    instance          INTEGER NOT NULL CHECK (instance BETWEEN 1 AND 3),
    filed_on          DATE NOT NULL,
    appellant         VARCHAR NOT NULL CHECK (length(trim(appellant)) > 0),
    organisation_id   BIGINT,
    grounds           VARCHAR NOT NULL CHECK (length(trim(grounds)) > 0),
    on_time           BOOLEAN NOT NULL,
    suspensive        BOOLEAN NOT NULL,
    suspensive_reason VARCHAR,
    recorded_by       VARCHAR NOT NULL,
    recorded_at       TIMESTAMP NOT NULL,
    UNIQUE (decision_id, instance),
    CHECK (NOT suspensive OR length(trim(suspensive_reason)) > 0)
);

CREATE TABLE appeal_steps (
    id          BIGINT PRIMARY KEY DEFAULT nextval('seq_appeal_steps'),
    appeal_id   BIGINT NOT NULL,
    kind        VARCHAR NOT NULL CHECK (kind IN ('reconsidered', 'forwarded', 'others_intimated',
                                                 'allegations_filed', 'decision_extended', 'decided')),
    day         DATE NOT NULL,
    outcome     VARCHAR CHECK (outcome IN ('provido', 'parcialmente provido', 'não provido', 'não conhecido')),
    reason      VARCHAR,
    note        VARCHAR,
    recorded_by VARCHAR NOT NULL,
    recorded_at TIMESTAMP NOT NULL,
    CHECK ((kind IN ('decided', 'reconsidered')) = (outcome IS NOT NULL)),
    CHECK (kind <> 'decision_extended' OR length(trim(reason)) > 0)
);
