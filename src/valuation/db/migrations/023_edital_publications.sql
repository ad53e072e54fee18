-- 023 the publications of a removal order's edital (issue 25 rule 6; Lei 7.542 art. 9 §2).
-- The edital is published once in each outlet the paragraph names (the DOU, a newspaper of the state
-- capital, one of the nearest or main port city, and one of Rio de Janeiro when the things lie off the
-- coast or near oceanic islands); its 15 days run from the last publication
-- (`valuation.deadlines.edital`). One row per outlet and order, append-only; the order's
-- `published_on` (013) is kept equal to the last of them by the one writer
-- (`valuation.registry.removal_orders.record_edital_publication`).
-- Never edit an applied migration: add a new numbered file.

CREATE SEQUENCE seq_edital_publications START 1;

CREATE TABLE edital_publications (
    id               BIGINT PRIMARY KEY DEFAULT nextval('seq_edital_publications'),
    removal_order_id BIGINT NOT NULL,
    outlet           VARCHAR NOT NULL CHECK (outlet IN ('dou', 'capital', 'porto', 'rio')),
    published_on     DATE NOT NULL,
    reference        VARCHAR NOT NULL,                 -- the issue, page or section of the outlet
    recorded_by      VARCHAR NOT NULL,
    recorded_at      TIMESTAMP NOT NULL,
    UNIQUE (removal_order_id, outlet)
);
