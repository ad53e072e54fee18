-- 005 inventory (issue 4): notes on deliveries (art. 23) and things found and handed in
-- by third parties (Lei 7.542 arts. 28–30; NORMAM-10 0405).
-- Both new tables are append-only in use: a found thing's registration is never updated;
-- what happens to it afterwards is a row of found_thing_events (its state is derived).
-- No foreign keys: DuckDB refuses updates of rows that a foreign key references.
-- Never edit an applied migration: add a new numbered file.

-- A delivery row may carry a note: the delivery document (termo de entrega) or, for a
-- correction (a new row for an item already delivered), why the earlier row was wrong.
ALTER TABLE item_deliveries ADD COLUMN note VARCHAR;

CREATE SEQUENCE seq_found_things START 1;
CREATE SEQUENCE seq_found_events START 1;

-- Things found in waters under national jurisdiction, on marine lands or river banks,
-- handed in to a CP/DL/AG (art. 28 II) and kept in its custody (art. 29 caput).
CREATE TABLE found_things (
    id              BIGINT PRIMARY KEY DEFAULT nextval('seq_found_things'),
    office_code     VARCHAR NOT NULL,          -- offices.code: the CP/DL/AG that collected it (its calendar)
    description     VARCHAR NOT NULL,
    quantity        INTEGER NOT NULL DEFAULT 1 CHECK (quantity > 0),
    place           VARCHAR NOT NULL,          -- where it was found
    found_on        DATE,                      -- when the finder found it, when known
    collected_on    DATE NOT NULL,             -- arrecadação: starts the 30 days of art. 29 §2
    finder_name     VARCHAR NOT NULL,
    finder_document VARCHAR,                   -- CPF/CNPJ or another document, as given
    finder_contact  VARCHAR,
    origin          VARCHAR NOT NULL CHECK (origin IN ('nacional', 'estrangeira', 'a_identificar')),
    wreck_id        BIGINT,                    -- wrecks.id when it comes from a registered wreck
    reference       VARCHAR,                   -- termo de arrecadação, ofício
    notes           VARCHAR,
    recorded_by     VARCHAR NOT NULL,
    recorded_at     TIMESTAMP NOT NULL,
    CHECK (found_on IS NULL OR found_on <= collected_on)
);

-- What happened to a found thing (append-only; the state is derived from these rows):
--   origin_identified   the Authority identified the origin (art. 29 caput / art. 30)
--   reclaimed           handed back to its owner, who paid custody costs (art. 29 caput and §1)
--   declared_lost       declared lost after 30 unclaimed days (art. 29 §2)
--   sold                sold at auction or tender as hard to keep (art. 29 §3): amount = proceeds
--   proceeds_claimed    the owner took the proceeds within the 6 months (art. 29 §3)
--   proceeds_to_union   6 months passed: the proceeds became União revenue (art. 29 §3)
--   sent_to_revenue     foreign origin: sent to the Federal Revenue (art. 30)
CREATE TABLE found_thing_events (
    id          BIGINT PRIMARY KEY DEFAULT nextval('seq_found_events'),
    found_id    BIGINT NOT NULL,
    kind        VARCHAR NOT NULL CHECK (kind IN ('origin_identified', 'reclaimed', 'declared_lost', 'sold',
                                                 'proceeds_claimed', 'proceeds_to_union', 'sent_to_revenue')),
    event_date  DATE NOT NULL,
    amount      DECIMAL(18,2) CHECK (amount >= 0),
    party       VARCHAR,                       -- owner, buyer or receiving body
    origin      VARCHAR CHECK (origin IS NULL OR origin IN ('nacional', 'estrangeira')),
    reference   VARCHAR,                       -- edital, processo, ofício
    note        VARCHAR,
    recorded_by VARCHAR NOT NULL,
    recorded_at TIMESTAMP NOT NULL
);
