-- 013 legal records (issue 15, second half): the offices' own early-closing dates, the Naval
-- Authority's removal orders and the suspension they record, the owner's balance after a disposal
-- on the owner's account, and the Ministry of Culture's co-signature of contracts over historical
-- things. Stored codes are Portuguese, as the law names them (README "Decisions").
-- No foreign keys: DuckDB refuses updates of rows that a foreign key references.
-- Never edit an applied migration: add a new numbered file.

CREATE SEQUENCE seq_removal_orders START 1;
CREATE SEQUENCE seq_owner_balances START 1;

-- Lei 9.784/1999 art. 66 §1: days on which an office closes before its normal hours, besides the
-- yearly dates of the policy `early_closing_days` (24 and 31 December). DPC maintains them.
CREATE TABLE office_early_closings (
    office_code VARCHAR NOT NULL,
    day         DATE NOT NULL,
    name        VARCHAR NOT NULL,
    PRIMARY KEY (office_code, day)
);

-- A removal or demolition the Naval Authority ordered (Lei 7.542 art. 5), notified personally or
-- by edital (art. 9 I / II; the edital runs 15 days, §2), with the start and end it fixed (art. 5
-- sole paragraph, which it may change), the takeover on the owner's account when the owner does
-- not comply (art. 10) and its end. While it runs it suspends the five years of art. 6 (sole
-- paragraph II): valuation.registry.removal_orders keeps a wreck_suspensions row (ground II)
-- pointing at it, open until the order ends.
CREATE TABLE removal_orders (
    id            BIGINT PRIMARY KEY DEFAULT nextval('seq_removal_orders'),
    wreck_id      BIGINT NOT NULL,
    kind          VARCHAR NOT NULL CHECK (kind IN ('remoção', 'demolição')),
    act           VARCHAR NOT NULL,
    ordered_on    DATE NOT NULL,
    notice        VARCHAR NOT NULL CHECK (notice IN ('pessoal', 'edital')),
    notified_on   DATE,
    published_on  DATE,
    starts_by     DATE NOT NULL,
    ends_by       DATE NOT NULL,
    started_on    DATE,
    taken_over_on DATE,
    ended_on      DATE,
    end_kind      VARCHAR CHECK (end_kind IN ('concluída', 'revogada')),
    reason        VARCHAR NOT NULL,
    recorded_by   VARCHAR NOT NULL,
    recorded_at   TIMESTAMP NOT NULL,
    CHECK (starts_by >= ordered_on AND ends_by >= starts_by),
    CHECK ((ended_on IS NULL) = (end_kind IS NULL)),
    CHECK (ended_on IS NULL OR ended_on >= ordered_on)
);
ALTER TABLE wreck_suspensions ADD COLUMN removal_order_id BIGINT;

-- Art. 13 §2: the positive balance of a disposal of the things on the owner's account, after the
-- União was reimbursed (art. 13 II), held for the owner until five years from the casualty, then
-- União revenue. `paid_on`: handed to the owner.
CREATE TABLE owner_balances (
    id               BIGINT PRIMARY KEY DEFAULT nextval('seq_owner_balances'),
    wreck_id         BIGINT NOT NULL,
    removal_order_id BIGINT,
    disposed_on      DATE NOT NULL,
    proceeds         DECIMAL(18,2) NOT NULL CHECK (proceeds >= 0),
    union_costs      DECIMAL(18,2) NOT NULL CHECK (union_costs >= 0),
    balance          DECIMAL(18,2) NOT NULL CHECK (balance > 0 AND balance = proceeds - union_costs),
    note             VARCHAR,
    paid_on          DATE,
    recorded_by      VARCHAR NOT NULL,
    recorded_at      TIMESTAMP NOT NULL
);

-- Art. 20 §1 (Lei 10.166/2000): a contract or authorisation over things of artistic, historical or
-- archaeological value is signed by the Naval Authority, the concessionaire and a representative of
-- the Ministry of Culture; without that signature it is not in force.
CREATE TABLE co_signatures (
    contract_id BIGINT PRIMARY KEY,
    signed_on   DATE NOT NULL,
    act         VARCHAR NOT NULL,
    signatory   VARCHAR NOT NULL,
    recorded_by VARCHAR NOT NULL,
    recorded_at TIMESTAMP NOT NULL
);
