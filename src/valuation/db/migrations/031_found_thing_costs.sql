-- 031 the custody and conservation costs of a found thing (issue 25, rule 7; Lei 7.542/1986 art. 29 §1).
-- The owner may reclaim found things not yet sold by the Naval Authority — also after they were declared
-- lost under §2, until the sale — "pagando o interessado as custas e despesas de guarda e conservação".
-- Each cost the office incurs is one row (append-only: a wrong row is offset by no edit; the DPC records
-- what was spent); the sum up to a day is what the owner must pay to take the thing back on that day
-- (`valuation.inventory.found_costs`). No foreign keys. Never edit an applied migration.

CREATE SEQUENCE seq_found_thing_costs START 1;

CREATE TABLE found_thing_costs (
    id          BIGINT PRIMARY KEY DEFAULT nextval('seq_found_thing_costs'),
    found_id    BIGINT NOT NULL,
    kind        VARCHAR NOT NULL CHECK (kind IN ('guarda', 'conservação', 'custas')),
    incurred_on DATE NOT NULL,
    amount      DECIMAL(18,2) NOT NULL CHECK (amount > 0),
    description VARCHAR NOT NULL,
    reference   VARCHAR,
    recorded_by VARCHAR NOT NULL,
    recorded_at TIMESTAMP NOT NULL
);
