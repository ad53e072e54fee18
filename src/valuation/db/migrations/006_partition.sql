-- 006 partition (issue 5): the União's choice, the difficulty rubric, cancellation
-- compensation, survey cost sheets, inspection expenses and partition statements
-- (Lei 7.542/1986 arts. 16 §2, 20–23; NORMAM-10 0301 a 6, 0301 c, 0303 c 2 I, 0305, 0306).
-- The contract terms themselves live in `contracts` (001) with their CHECKs on the caps.
-- No foreign keys: DuckDB refuses updates of rows that a foreign key references.
-- Statements are append-only: the store only ever INSERTs into statements,
-- statement_lines, statement_survey_lines and statement_items (no trigger needed: a draft
-- is a row, issuing inserts a new row, a correction inserts a new version).
-- Never edit an applied migration: add a new numbered file.

CREATE SEQUENCE seq_selection_runs START 1;
CREATE SEQUENCE seq_difficulty START 1;
CREATE SEQUENCE seq_compensation START 1;
CREATE SEQUENCE seq_inspection_expenses START 1;
CREATE SEQUENCE seq_statements START 1;

-- Items the DPC locks in ('give': must be handed over) or out ('keep') of the União's choice.
CREATE TABLE selection_locks (
    contract_id BIGINT NOT NULL,
    item_id     BIGINT NOT NULL,
    lock        VARCHAR NOT NULL CHECK (lock IN ('give', 'keep')),
    set_by      VARCHAR NOT NULL,
    set_at      TIMESTAMP NOT NULL,
    PRIMARY KEY (contract_id, item_id)
);

-- A stored run of the selection (art. 20 §4; art. 21 III): its inputs' fingerprint, the
-- solver's status and certified gap, and the chosen items. The statement reads the latest
-- run of a pool whose fingerprint still matches the stored decisions, terms and locks.
CREATE TABLE selection_runs (
    id                    BIGINT PRIMARY KEY DEFAULT nextval('seq_selection_runs'),
    contract_id           BIGINT NOT NULL,
    pool                  VARCHAR NOT NULL CHECK (pool IN ('historical', 'other')),
    label                 VARCHAR,
    target                DECIMAL(18,2) NOT NULL CHECK (target >= 0),
    tolerance             DECIMAL(9,6) NOT NULL CHECK (tolerance >= 0 AND tolerance <= 1),
    minimise_significance BOOLEAN NOT NULL,
    candidates            INTEGER NOT NULL,
    locks_give            INTEGER NOT NULL,
    locks_keep            INTEGER NOT NULL,
    status                VARCHAR NOT NULL CHECK (status IN ('optimal', 'feasible', 'infeasible')),
    gap                   DECIMAL(24,12) NOT NULL,
    method                VARCHAR NOT NULL,
    message               VARCHAR NOT NULL,
    selected_count        INTEGER NOT NULL,
    selected_value        DECIMAL(18,2) NOT NULL,
    residual              DECIMAL(18,2) NOT NULL,
    significance_handed   INTEGER NOT NULL,
    significance_bound    INTEGER NOT NULL,
    fingerprint           VARCHAR NOT NULL,
    ran_by                VARCHAR NOT NULL,
    ran_at                TIMESTAMP NOT NULL
);

CREATE TABLE selection_run_items (
    run_id  BIGINT NOT NULL,
    item_id BIGINT NOT NULL,
    PRIMARY KEY (run_id, item_id)
);

-- The difficulty rubric of art. 21 §1 (append-only; the latest row per contract is in force).
CREATE TABLE difficulty_assessments (
    id               BIGINT PRIMARY KEY DEFAULT nextval('seq_difficulty'),
    contract_id      BIGINT NOT NULL,
    score_locating   INTEGER NOT NULL CHECK (score_locating BETWEEN 0 AND 4),
    score_exploring  INTEGER NOT NULL CHECK (score_exploring BETWEEN 0 AND 4),
    score_removing   INTEGER NOT NULL CHECK (score_removing BETWEEN 0 AND 4),
    score_preserving INTEGER NOT NULL CHECK (score_preserving BETWEEN 0 AND 4),
    score_restoring  INTEGER NOT NULL CHECK (score_restoring BETWEEN 0 AND 4),
    weights_json     VARCHAR NOT NULL,
    suggested_share  DECIMAL(5,4) NOT NULL CHECK (suggested_share >= 0 AND suggested_share <= 0.70),
    note             VARCHAR,
    assessed_by      VARCHAR NOT NULL,
    assessed_at      TIMESTAMP NOT NULL
);

-- Compensation of a cancelled contract (art. 22 sole paragraph; NORMAM-10 0305), append-only.
CREATE TABLE cancellation_compensation (
    id                 BIGINT PRIMARY KEY DEFAULT nextval('seq_compensation'),
    contract_id        BIGINT NOT NULL,
    compensation_share DECIMAL(5,4) NOT NULL CHECK (compensation_share >= 0 AND compensation_share <= 1),
    compensation_form  VARCHAR NOT NULL CHECK (compensation_form IN ('adjudication', 'sale_proceeds')),
    sale_proceeds      DECIMAL(18,2) CHECK (sale_proceeds >= 0),
    reason             VARCHAR NOT NULL CHECK (length(trim(reason)) >= 5),
    set_by             VARCHAR NOT NULL,
    set_at             TIMESTAMP NOT NULL
);

-- The cost sheet filed with a survey request (planilha de custos, NORMAM-10 0301 a 6) and the
-- final report's actual cost (0301 c), per survey contract.
CREATE TABLE survey_cost_sheets (
    contract_id BIGINT PRIMARY KEY,
    filed_on    DATE NOT NULL,
    filed_by    VARCHAR NOT NULL,
    filed_at    TIMESTAMP NOT NULL,
    reported_on DATE,                       -- final report with the actual cost
    reported_by VARCHAR,
    reported_at TIMESTAMP
);

CREATE TABLE survey_cost_lines (
    contract_id      BIGINT NOT NULL,
    line_no          INTEGER NOT NULL CHECK (line_no >= 1),
    line             VARCHAR NOT NULL CHECK (length(trim(line)) >= 1),
    planned          DECIMAL(18,2) NOT NULL CHECK (planned >= 0),
    actual           DECIMAL(18,2) CHECK (actual >= 0),
    approved_overrun DECIMAL(18,2) NOT NULL DEFAULT 0 CHECK (approved_overrun >= 0),
    overrun_reason   VARCHAR,
    overrun_by       VARCHAR,
    overrun_at       TIMESTAMP,
    PRIMARY KEY (contract_id, line_no),
    CHECK (approved_overrun = 0 OR length(trim(coalesce(overrun_reason, ''))) >= 5)
);

-- Inspection expenses (travel, food, lodging of the Navy's inspectors) and the inspectors'
-- insurance: the authorised party's costs (NORMAM-10 0306 a and b).
CREATE TABLE inspection_expenses (
    id            BIGINT PRIMARY KEY DEFAULT nextval('seq_inspection_expenses'),
    contract_id   BIGINT NOT NULL,
    kind          VARCHAR NOT NULL CHECK (kind IN ('deslocamento', 'alimentação', 'pousada', 'seguro')),
    description   VARCHAR NOT NULL,
    amount        DECIMAL(18,2) NOT NULL CHECK (amount >= 0),
    incurred_on   DATE NOT NULL,
    inspector     VARCHAR,
    policy_number VARCHAR,                  -- seguro: the policy (apólice)
    coverage_from DATE,
    coverage_to   DATE,
    recorded_by   VARCHAR NOT NULL,
    recorded_at   TIMESTAMP NOT NULL,
    CHECK (coverage_to IS NULL OR coverage_from IS NULL OR coverage_to >= coverage_from)
);

-- Partition statements. A draft ('rascunho') is a row; issuing inserts a new 'emitido' row
-- numbered 'DP-YYYY/NNNN' version 1; a correction inserts version n+1 of the same number,
-- pointing at the version it replaces. The issued PDF is kept with its sha256.
CREATE TABLE statements (
    id                 BIGINT PRIMARY KEY DEFAULT nextval('seq_statements'),
    contract_id        BIGINT NOT NULL,
    status             VARCHAR NOT NULL CHECK (status IN ('rascunho', 'emitido')),
    number             VARCHAR,
    version            INTEGER,
    supersedes         BIGINT,
    draft_id           BIGINT,
    correction_reason  VARCHAR,
    as_of              DATE NOT NULL,
    cancelled          BOOLEAN NOT NULL,
    terms_json         VARCHAR NOT NULL,
    fingerprint        VARCHAR NOT NULL,
    historical_items   BIGINT NOT NULL,
    other_items        BIGINT NOT NULL,
    historical_total   DECIMAL(18,2) NOT NULL,
    historical_reward  DECIMAL(18,2) NOT NULL,
    adjudicated_value  DECIMAL(18,2) NOT NULL,
    cash_balance       DECIMAL(18,2) NOT NULL,
    unpaid_residual    DECIMAL(18,2) NOT NULL,
    other_total        DECIMAL(18,2) NOT NULL,
    other_payment      DECIMAL(18,2) NOT NULL,
    gross              DECIMAL(18,2) NOT NULL,
    survey_deduction   DECIMAL(18,2) NOT NULL,
    survey_uncovered   DECIMAL(18,2) NOT NULL,
    net                DECIMAL(18,2) NOT NULL,
    surveyor_organisation_id BIGINT,
    warnings_json      VARCHAR NOT NULL,
    blockers_json      VARCHAR NOT NULL,
    pdf                BLOB,
    pdf_sha256         VARCHAR,
    created_by         VARCHAR NOT NULL,
    created_at         TIMESTAMP NOT NULL,
    UNIQUE (number, version),
    UNIQUE (contract_id, version),
    CHECK ((status = 'rascunho' AND number IS NULL AND version IS NULL AND pdf IS NULL)
           OR (status = 'emitido' AND number IS NOT NULL AND version >= 1 AND pdf IS NOT NULL
               AND pdf_sha256 IS NOT NULL)),
    CHECK (version IS NULL OR version = 1
           OR (supersedes IS NOT NULL AND length(trim(coalesce(correction_reason, ''))) >= 10))
);

-- Every line with its legal basis.
CREATE TABLE statement_lines (
    statement_id BIGINT NOT NULL,
    line_no      INTEGER NOT NULL,
    section      VARCHAR NOT NULL,
    key          VARCHAR NOT NULL,
    label        VARCHAR NOT NULL,
    amount       DECIMAL(18,2),
    detail       VARCHAR,
    basis        VARCHAR NOT NULL,
    PRIMARY KEY (statement_id, line_no)
);

CREATE TABLE statement_survey_lines (
    statement_id     BIGINT NOT NULL,
    line_no          INTEGER NOT NULL,
    survey_contract  VARCHAR NOT NULL,
    line             VARCHAR NOT NULL,
    planned          DECIMAL(18,2) NOT NULL,
    actual           DECIMAL(18,2) NOT NULL,
    approved_overrun DECIMAL(18,2) NOT NULL,
    overrun_reason   VARCHAR,
    accepted         DECIMAL(18,2) NOT NULL,
    variance         DECIMAL(18,2) NOT NULL,
    PRIMARY KEY (statement_id, line_no)
);

-- The items adjudicated to the concessionaire by this statement.
CREATE TABLE statement_items (
    statement_id BIGINT NOT NULL,
    item_id      BIGINT NOT NULL,
    grp          VARCHAR NOT NULL CHECK (grp IN ('historical', 'other')),
    value_brl    DECIMAL(18,2) NOT NULL,
    significance INTEGER,
    PRIMARY KEY (statement_id, item_id)
);

CREATE INDEX idx_statements_contract ON statements(contract_id);
