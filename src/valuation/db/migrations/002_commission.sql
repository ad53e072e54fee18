-- 002 commission assessment (rules.md §2; Lei 7.542 art. 20 §3, art. 21 §2; NORMAM-10 0303 c).
-- Members are users with role commission / commission_president and a commission_body.
-- The log tables are append-only: a correction is a new row pointing at the one it replaces.

CREATE SEQUENCE seq_rounds START 1;
CREATE SEQUENCE seq_assessments START 1;
CREATE SEQUENCE seq_decisions START 1;

-- Exchange rates (PTAX-style): BRL per unit of currency on a day.
CREATE TABLE fx_rates (
    currency    VARCHAR NOT NULL CHECK (length(currency) = 3),
    day         DATE NOT NULL,
    brl         DECIMAL(18,6) NOT NULL CHECK (brl > 0),
    source      VARCHAR NOT NULL DEFAULT 'manual',
    recorded_by VARCHAR NOT NULL,
    recorded_at TIMESTAMP NOT NULL DEFAULT current_timestamp,
    PRIMARY KEY (currency, day)
);

CREATE TABLE assessment_rounds (
    id               BIGINT PRIMARY KEY DEFAULT nextval('seq_rounds'),
    contract_id      BIGINT NOT NULL REFERENCES contracts(id),
    number           INTEGER NOT NULL,
    previous_round_id BIGINT,
    status           VARCHAR NOT NULL CHECK (status IN ('aberta', 'encerrada', 'decidida', 'publicada')),
    method           VARCHAR NOT NULL CHECK (method IN ('median', 'mean', 'trimmed_mean')),
    quorum           INTEGER NOT NULL,
    spread_threshold DECIMAL(9,4) NOT NULL,
    opened_by        VARCHAR NOT NULL,
    opened_at        TIMESTAMP NOT NULL DEFAULT current_timestamp,
    closed_by        VARCHAR,
    closed_at        TIMESTAMP,
    decided_by       VARCHAR,
    decided_at       TIMESTAMP,
    published_at     TIMESTAMP,
    UNIQUE (contract_id, number)
);

CREATE TABLE round_items (
    round_id BIGINT NOT NULL,
    item_id  BIGINT NOT NULL,
    PRIMARY KEY (round_id, item_id)
);

-- Every vote/value ever entered (the trail).
CREATE TABLE assessment_log (
    id           BIGINT PRIMARY KEY DEFAULT nextval('seq_assessments'),
    round_id     BIGINT NOT NULL,
    item_id      BIGINT NOT NULL,
    member_id    BIGINT NOT NULL,                  -- users.id
    historical   BOOLEAN,                          -- NULL: did not vote
    amount       DECIMAL(18,2) CHECK (amount >= 0),
    currency     VARCHAR CHECK (length(currency) = 3),
    price_date   DATE,
    rate         DECIMAL(18,6),                    -- the rate used (1 for BRL)
    rate_date    DATE,                             -- never later than price_date
    value_brl    DECIMAL(26,8),                    -- amount × rate, exact
    significance INTEGER CHECK (significance BETWEEN 1 AND 5),
    must_keep    BOOLEAN,
    source       VARCHAR CHECK (source IN ('venda_comparavel', 'catalogo', 'avaliacao_externa')),
    source_note  VARCHAR,
    supersedes   BIGINT,                           -- the row this one corrects
    entered_by   VARCHAR NOT NULL,
    entered_at   TIMESTAMP NOT NULL DEFAULT current_timestamp,
    CHECK (rate_date IS NULL OR price_date IS NULL OR rate_date <= price_date)
);

-- The current entry per (round, item, member): a materialised view of assessment_log
-- kept in step by the store, so that the consensus reads 6 rows per item, not the history.
CREATE TABLE assessment_current (
    round_id     BIGINT NOT NULL,
    item_id      BIGINT NOT NULL,
    member_id    BIGINT NOT NULL,
    log_id       BIGINT NOT NULL,
    historical   BOOLEAN,
    value_brl    DECIMAL(26,8),
    significance INTEGER,
    must_keep    BOOLEAN,
    PRIMARY KEY (round_id, item_id, member_id)
);

-- Stored consensus per item and round (pages read these, never recompute medians).
CREATE TABLE item_consensus (
    round_id      BIGINT NOT NULL,
    item_id       BIGINT NOT NULL,
    votes_for     INTEGER NOT NULL,
    votes_against INTEGER NOT NULL,
    quorum_met    BOOLEAN NOT NULL,
    historical    BOOLEAN,
    decided_by    VARCHAR NOT NULL CHECK (decided_by IN ('majority', 'president', 'undecided')),
    n_values      INTEGER NOT NULL,
    value_brl     DECIMAL(18,2),
    spread        DOUBLE,
    flagged       BOOLEAN NOT NULL,
    significance  DECIMAL(4,2),                    -- median of the members' scores (historical items)
    must_keep_votes INTEGER NOT NULL DEFAULT 0,
    computed_at   TIMESTAMP NOT NULL DEFAULT current_timestamp,
    PRIMARY KEY (round_id, item_id)
);

-- Decisions the president records (append-only; supersedes points at a corrected decision).
CREATE TABLE decisions (
    id           BIGINT PRIMARY KEY DEFAULT nextval('seq_decisions'),
    round_id     BIGINT NOT NULL,
    item_id      BIGINT NOT NULL,
    historical   BOOLEAN NOT NULL,
    value_brl    DECIMAL(18,2) NOT NULL CHECK (value_brl >= 0),
    significance INTEGER CHECK (significance BETWEEN 1 AND 5),
    must_keep    BOOLEAN NOT NULL DEFAULT false,
    basis        VARCHAR NOT NULL,
    supersedes   BIGINT,
    decided_by   VARCHAR NOT NULL,
    decided_at   TIMESTAMP NOT NULL DEFAULT current_timestamp
);

-- The decision in force per item (kept in step with `decisions` by the store), so that
-- statements sum one row per item instead of searching the history.
CREATE TABLE item_valuation (
    item_id      BIGINT PRIMARY KEY,
    contract_id  BIGINT NOT NULL,
    decision_id  BIGINT NOT NULL,
    round_id     BIGINT NOT NULL,
    historical   BOOLEAN NOT NULL,
    value_brl    DECIMAL(18,2) NOT NULL,
    significance INTEGER,
    must_keep    BOOLEAN NOT NULL,
    published    BOOLEAN NOT NULL DEFAULT false
);
