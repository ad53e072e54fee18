-- 060 the administrative process of a request (issue 26, section 1; Lei 9.784/1999 arts. 24, 26 §2, 41, 42, 44,
-- 49 and 66). A request is a `licence_requests` row (migration 026); `request_processes` says what it asks
-- (`matter`) and, when a company filed it, its organisation (an explorer reads its own organisation's requests
-- only: valuation.db.access.request_scope); `request_steps` is its history, append-only: the instruction
-- opened, an opinion asked and given, a hearing set (`reference_day`: the hearing's day) and the intimation,
-- the instruction ended, the party's allegations, an extension with its written `reason` (arts. 24 sole
-- paragraph and 49), the decision. The deadlines the steps start are computed (valuation.process.periods),
-- never stored. No foreign keys (DuckDB refuses updates of referenced rows). Never edit an applied migration.

CREATE SEQUENCE seq_request_steps START 1;

CREATE TABLE request_processes (
    request_id      BIGINT PRIMARY KEY,
    matter          VARCHAR NOT NULL CHECK (matter IN ('pesquisa', 'exploração', 'remoção', 'prorrogação',
                                                        'reclamação', 'preferência', 'coisa achada',
                                                        'saldo do responsável', 'recurso')),
    organisation_id BIGINT,
    recorded_by     VARCHAR NOT NULL,
    recorded_at     TIMESTAMP NOT NULL
);

CREATE TABLE request_steps (
    id            BIGINT PRIMARY KEY DEFAULT nextval('seq_request_steps'),
    request_id    BIGINT NOT NULL,
    kind          VARCHAR NOT NULL CHECK (kind IN ('instruction_opened', 'opinion_requested', 'opinion_given',
                                                   'hearing_set', 'intimated', 'instruction_ended',
                                                   'allegations_filed', 'act_extended', 'decision_extended',
                                                   'decided')),
    day           DATE NOT NULL,
    reference_day DATE,
    reason        VARCHAR,
    note          VARCHAR,
    recorded_by   VARCHAR NOT NULL,
    recorded_at   TIMESTAMP NOT NULL,
    CHECK (kind <> 'hearing_set' OR reference_day > day),
    CHECK (kind NOT IN ('act_extended', 'decision_extended') OR length(trim(reason)) > 0)
);
