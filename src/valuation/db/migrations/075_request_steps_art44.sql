-- 075 the steps of a request's process gain the party's ciência that the instruction ended (issue 44; Lei 9.784/1999
-- art. 44 — "Encerrada a instrução, o interessado terá o direito de manifestar-se no prazo máximo de dez dias" —
-- read with art. 66 caput: "Os prazos começam a correr a partir da data da cientificação oficial"): the kind
-- 'instruction_end_notified', whose `day` is the day the party was officially made aware (ciência) that the
-- instruction ended. The party's 10 days run from it (valuation.proceedings.periods.allegations_due), never from
-- the day the instruction ended.
-- DuckDB cannot change a CHECK constraint: the table is rebuilt with its rows, ids and every column as they were,
-- as migration 068 did, so the rows' seals (valuation.db.seals: `request_steps`) still match and need no new seal;
-- the id sequence is the same one. Never edit an applied migration.

CREATE TABLE request_steps_075 (
    id            BIGINT PRIMARY KEY DEFAULT nextval('seq_request_steps'),
    request_id    BIGINT NOT NULL,
    kind          VARCHAR NOT NULL CHECK (kind IN ('instruction_opened', 'opinion_requested', 'opinion_given',
                                                   'hearing_set', 'intimated', 'instruction_ended',
                                                   'instruction_end_notified', 'allegations_filed', 'act_extended',
                                                   'decision_extended', 'decided', 'information_requested',
                                                   'information_provided')),
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
INSERT INTO request_steps_075 (id, request_id, kind, day, reference_day, reason, note, recorded_by, recorded_at)
    SELECT id, request_id, kind, day, reference_day, reason, note, recorded_by, recorded_at FROM request_steps;
DROP TABLE request_steps;
ALTER TABLE request_steps_075 RENAME TO request_steps;
