-- 060 requests (requerimentos) to the Naval Authority and their administrative process (issue 26, section 1;
-- Lei 9.784/1999 arts. 24, 26 §2, 41, 42, 44, 49 and 66). `requests`: what is asked (`matter`), of which office,
-- about which wreck, by whom — a responsible party (`requester_id`, an `owners` row) and/or a company
-- (`organisation_id`: an explorer reads its own organisation's requests only, valuation.db.access.request_scope).
-- A licence request of the responsible (arts. 4 and 6) is also a `licence_requests` row (migration 026, the one
-- the five years read): `licence_request_id` links it; any other request never counts for art. 6.
-- `request_steps` is its history, append-only: the instruction opened, an opinion asked and given, a hearing
-- set (`reference_day`: the hearing's day) and the intimation, the instruction ended, the party's allegations,
-- an extension with its written `reason` (arts. 24 sole paragraph and 49), the decision. The deadlines the
-- steps start are computed (valuation.proceedings.periods), never stored. No foreign keys (DuckDB refuses updates
-- of referenced rows). Never edit an applied migration.

CREATE SEQUENCE seq_requests START 1;
CREATE SEQUENCE seq_request_steps START 1;

CREATE TABLE requests (
    id                 BIGINT PRIMARY KEY DEFAULT nextval('seq_requests'),
    office_code        VARCHAR NOT NULL,
    wreck_id           BIGINT NOT NULL,
    matter             VARCHAR NOT NULL CHECK (matter IN ('pesquisa', 'exploração', 'remoção', 'prorrogação',
                                                           'reclamação', 'preferência', 'coisa achada',
                                                           'saldo do responsável', 'recurso')),
    requester_id       BIGINT,
    organisation_id    BIGINT,
    filed_on           DATE NOT NULL,
    licence_request_id BIGINT,
    note               VARCHAR,
    recorded_by        VARCHAR NOT NULL,
    recorded_at        TIMESTAMP NOT NULL,
    CHECK (requester_id IS NOT NULL OR organisation_id IS NOT NULL)
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
