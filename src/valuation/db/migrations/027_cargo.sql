-- 027 the cargo of a wreck and its responsible (issue 25, rule 3; Lei 7.542 arts. 13 §1 and 14). A vessel
-- with cargo has two responsible parties: the vessel's (wrecks.owner_id) and the cargo's (`owner_id`
-- here, an `owners` row; NULL unknown). The cargo's responsible may declare it lost (art. 3 I) apart from
-- the vessel's; its requests are `licence_requests` rows of part 'carga' (migration 026).
-- One row per wreck; no foreign keys. Never edit an applied migration.

CREATE TABLE wreck_cargoes (
    wreck_id      BIGINT PRIMARY KEY,
    description   VARCHAR NOT NULL,
    owner_id      BIGINT,
    declared_lost DATE,
    recorded_by   VARCHAR NOT NULL,
    recorded_at   TIMESTAMP NOT NULL
);
