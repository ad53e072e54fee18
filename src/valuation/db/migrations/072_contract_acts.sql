-- 072 a contract's state changes only through a dated act (docs/decisions/001-registry-corrections.md): the act
-- that put an authorisation or contract in force, suspended it, resumed it, ended its works, cancelled it or
-- recorded its expiry — its day, its reference (the Portaria, the ofício), its reason, who recorded it and when.
-- `contracts.status` (and cancelled_on / cancel_reason / work_ended_on, which the deadlines read) is the state the
-- latest act left; this table is how it got there. Append-only and sealed (db/seals.py).
-- Never edit an applied migration: add a new numbered file.

CREATE SEQUENCE seq_contract_acts START 1;
CREATE TABLE contract_acts (
    id           BIGINT PRIMARY KEY DEFAULT nextval('seq_contract_acts'),
    contract_id  BIGINT NOT NULL,
    act          VARCHAR NOT NULL,       -- registro | vigencia | suspensao | retomada | conclusao | cancelamento | expiracao
    from_status  VARCHAR,                -- NULL for the registration
    to_status    VARCHAR NOT NULL,
    effective_on DATE NOT NULL,
    reference    VARCHAR,                -- the act's number (Portaria DPC nº …, ofício nº …)
    reason       VARCHAR,
    recorded_by  VARCHAR NOT NULL,
    recorded_at  TIMESTAMP NOT NULL
);
