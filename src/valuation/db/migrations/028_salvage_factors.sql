-- 028 the salvage award of modality IV with the factors the Naval Authority recorded (issue 25, rule 8).
-- Lei 7.542 art. 21 IV pays "conforme as regras estabelecidas para fixação de pagamento por assistência e
-- salvamento, no que couber": Lei 7.203/1984 art. 10 — an equitable remuneration for a useful result, never
-- above the value of the things saved (§1); without a useful result, the expenses and losses when damage to
-- third parties or the environment was avoided (§2). The factors are the family of the 1910 Brussels
-- Convention (art. 8) and of the 1989 Convention (art. 13): value saved, success, skill and efforts,
-- danger, time, expenses and losses, risk, equipment, damage avoided. Append-only: the latest assessment of a
-- contract is the one in force; recording one also writes contracts.salvage_award (same transaction).
-- No foreign keys. Never edit an applied migration.

CREATE SEQUENCE seq_salvage_assessments START 1;

CREATE TABLE salvage_assessments (
    id             BIGINT PRIMARY KEY DEFAULT nextval('seq_salvage_assessments'),
    contract_id    BIGINT NOT NULL,
    award          DECIMAL(18,2) NOT NULL CHECK (award >= 0),
    useful_result  BOOLEAN NOT NULL,
    value_saved    DECIMAL(18,2) CHECK (value_saved >= 0),
    expenses       DECIMAL(18,2) NOT NULL CHECK (expenses >= 0),
    success        VARCHAR NOT NULL,
    efforts        VARCHAR NOT NULL,
    danger         VARCHAR NOT NULL,
    time_spent     VARCHAR NOT NULL,
    risk           VARCHAR NOT NULL,
    equipment      VARCHAR NOT NULL,
    damage_avoided VARCHAR NOT NULL,
    act            VARCHAR NOT NULL,
    assessed_on    DATE NOT NULL,
    recorded_by    VARCHAR NOT NULL,
    recorded_at    TIMESTAMP NOT NULL
);
