-- 025 archaeological sites (issue 25, rule 4): a wreck site registered as an archaeological site is the
-- União's (Constituição Federal art. 20 X; Lei 3.924/1961), whatever the owner's five years of Lei 7.542
-- art. 6. The registry records the registration: the heritage authority that registered it (Lei 3.924
-- art. 27: the register of the archaeological monuments, today IPHAN's), its number and the day.
-- One registration per wreck; no foreign keys (DuckDB refuses updates of referenced rows).
-- Never edit an applied migration: add a new numbered file.

CREATE TABLE archaeological_sites (
    wreck_id      BIGINT PRIMARY KEY,
    authority     VARCHAR NOT NULL,
    number        VARCHAR NOT NULL,
    registered_on DATE NOT NULL,
    note          VARCHAR,
    recorded_by   VARCHAR NOT NULL,
    recorded_at   TIMESTAMP NOT NULL
);
