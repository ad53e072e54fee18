-- 076 the notification of an appeal's decision (issue 44; Lei 9.784/1999 art. 59: the 10 days run "a partir da
-- ciência ou divulgação oficial da decisão recorrida", an appeal's decision included). One row per appeal whose
-- decision (or full reconsideration) was notified to the party or officially published: `notice` says which,
-- `notified_on` the day — what the next appeal's 10 days run from (valuation.proceedings.appeal_records). Append-only
-- and sealed (valuation.db.seals); no foreign keys (DuckDB refuses updates of referenced rows). Never edit an
-- applied migration.

CREATE SEQUENCE seq_appeal_notices START 1;

CREATE TABLE appeal_notices (
    id          BIGINT PRIMARY KEY DEFAULT nextval('seq_appeal_notices'),
    appeal_id   BIGINT NOT NULL UNIQUE,
    notice      VARCHAR NOT NULL CHECK (notice IN ('notificação', 'publicação')),
    notified_on DATE NOT NULL,
    recorded_by VARCHAR NOT NULL,
    recorded_at TIMESTAMP NOT NULL
);
