-- 068 the steps of a request's process gain the request for information or evidence of the party (issue 26,
-- section 1; Lei 9.784/1999 art. 39: the intimation names the date, period, form and conditions): the kind
-- 'information_requested' (`reference_day`: the last day the intimation fixed, when it fixed one — else the 5 days
-- of art. 24 run) and 'information_provided' (the party met it). The deadline is computed by
-- valuation.proceedings.periods.information_due, never stored.
-- DuckDB cannot change a CHECK constraint: the table is rebuilt with its rows, ids and every column as they were,
-- so the rows' seals (valuation.db.seals: `request_steps`, keyed by the row's id, digest of its columns) still
-- match and need no new seal; the id sequence is the same one. Never edit an applied migration.

CREATE TABLE request_steps_068 (
    id            BIGINT PRIMARY KEY DEFAULT nextval('seq_request_steps'),
    request_id    BIGINT NOT NULL,
    kind          VARCHAR NOT NULL CHECK (kind IN ('instruction_opened', 'opinion_requested', 'opinion_given',
                                                   'hearing_set', 'intimated', 'instruction_ended',
                                                   'allegations_filed', 'act_extended', 'decision_extended',
                                                   'decided', 'information_requested', 'information_provided')),
    day           DATE NOT NULL,
    reference_day DATE,
    reason        VARCHAR,
    note          VARCHAR,
    recorded_by   VARCHAR NOT NULL,
    recorded_at   TIMESTAMP NOT NULL,
    CHECK (kind <> 'hearing_set' OR reference_day > day),
    CHECK (kind <> 'information_requested' OR reference_day IS NULL OR reference_day > day),
    CHECK (kind NOT IN ('act_extended', 'decision_extended') OR length(trim(reason)) > 0)
);
INSERT INTO request_steps_068 (id, request_id, kind, day, reference_day, reason, note, recorded_by, recorded_at)
    SELECT id, request_id, kind, day, reference_day, reason, note, recorded_by, recorded_at FROM request_steps;
DROP TABLE request_steps;
ALTER TABLE request_steps_068 RENAME TO request_steps;
