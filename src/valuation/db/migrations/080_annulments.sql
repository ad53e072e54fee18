-- 080 annulments (issue 42 item 5; docs/decisions/142-annulment.md): a step or event recorded by mistake is
-- annulled, never deleted (Lei 9.784/1999 art. 53: the Administration annuls its own acts when illegal; art. 50:
-- with the written reason). One row per annulled record of an append-only table of the process —
--   record_table / record_id   the row annulled: 'deadline_events', 'request_steps' or 'appeal_steps' (the tables
--                              valuation.db.annulments.ANNULLABLE names); the row itself is never changed
--   reason                     why, written by who annulled it (one line)
--   annulled_by / annulled_at  who and when
-- UNIQUE (record_table, record_id): a record is annulled once. Every reader of those tables leaves an annulled row
-- out (valuation.db.annulments.not_annulled), so the deadlines it started are computed again without it; the
-- record's history shows it with its annulment. Append-only and row-sealed (db/seals.py). No foreign keys (DuckDB
-- refuses updates of referenced rows). Never edit an applied migration.

CREATE SEQUENCE seq_annulments START 1;

CREATE TABLE annulments (
    id            BIGINT PRIMARY KEY DEFAULT nextval('seq_annulments'),
    record_table  VARCHAR NOT NULL CHECK (record_table IN ('deadline_events', 'request_steps', 'appeal_steps')),
    record_id     BIGINT NOT NULL,
    reason        VARCHAR NOT NULL CHECK (length(reason) BETWEEN 5 AND 500),
    annulled_by   VARCHAR NOT NULL,
    annulled_at   TIMESTAMP NOT NULL,
    UNIQUE (record_table, record_id)
);
