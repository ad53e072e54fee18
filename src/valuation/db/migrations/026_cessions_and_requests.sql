-- 026 cessions of the owner's rights and the responsible parties' own requests (issue 25, rules 2 and 3).
-- Lei 7.542 art. 8: the responsible may cede its rights of disposal over the things; §1 cedente and
-- cessionário answer jointly; §2 the cession must be communicated to the Naval Authority, else it is void
-- against it (`communicated_on` NULL: not communicated). `part`: the vessel's or the cargo's rights (arts. 13
-- §1 and 14: a wreck with cargo has two responsible parties). Cedente and cessionário are `owners` rows.
-- `licence_requests`: a request filed by a named party for one part (art. 4; art. 14 I–II for the cargo);
-- which of them counts for the five years of art. 6 is the rule of valuation.core.responsible.
-- No foreign keys (DuckDB refuses updates of referenced rows). Never edit an applied migration.

CREATE SEQUENCE seq_cessions START 1;
CREATE SEQUENCE seq_licence_requests START 1;

CREATE TABLE cessions (
    id              BIGINT PRIMARY KEY DEFAULT nextval('seq_cessions'),
    wreck_id        BIGINT NOT NULL,
    part            VARCHAR NOT NULL CHECK (part IN ('embarcação', 'carga')),
    cedent_id       BIGINT NOT NULL,
    cessionary_id   BIGINT NOT NULL,
    ceded_on        DATE NOT NULL,
    communicated_on DATE,
    act             VARCHAR NOT NULL,
    recorded_by     VARCHAR NOT NULL,
    recorded_at     TIMESTAMP NOT NULL,
    CHECK (cedent_id <> cessionary_id),
    CHECK (communicated_on IS NULL OR communicated_on >= ceded_on)
);

CREATE TABLE licence_requests (
    id           BIGINT PRIMARY KEY DEFAULT nextval('seq_licence_requests'),
    wreck_id     BIGINT NOT NULL,
    part         VARCHAR NOT NULL CHECK (part IN ('embarcação', 'carga')),
    requester_id BIGINT NOT NULL,
    requested_on DATE NOT NULL,
    note         VARCHAR,
    recorded_by  VARCHAR NOT NULL,
    recorded_at  TIMESTAMP NOT NULL
);
