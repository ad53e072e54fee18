-- 001 foundation: offices, wrecks, responsible parties, organisations, contracts,
-- recovered items, users, policies and the hash-chained audit log.
-- Never edit an applied migration: add a new numbered file.

CREATE SEQUENCE seq_wrecks START 1;
CREATE SEQUENCE seq_owners START 1;
CREATE SEQUENCE seq_organisations START 1;
CREATE SEQUENCE seq_contracts START 1;
CREATE SEQUENCE seq_items START 1;
CREATE SEQUENCE seq_imports START 1;
CREATE SEQUENCE seq_users START 1;
CREATE SEQUENCE seq_policies START 1;
CREATE SEQUENCE seq_suspensions START 1;
CREATE SEQUENCE seq_deliveries START 1;

-- Capitanias (CP), Delegacias (DL) and Agências (AG) of the Navy: where requests and reports are filed.
CREATE TABLE offices (
    code            VARCHAR PRIMARY KEY,            -- e.g. 'CPRJ'
    name            VARCHAR NOT NULL,               -- 'Capitania dos Portos do Rio de Janeiro'
    kind            VARCHAR NOT NULL CHECK (kind IN ('CP', 'DL', 'AG')),
    state           VARCHAR NOT NULL CHECK (length(state) = 2),
    city            VARCHAR NOT NULL,
    naval_district  INTEGER NOT NULL CHECK (naval_district BETWEEN 1 AND 9)
);

-- Municipal holidays that DPC maintains per office (rules.md §7).
CREATE TABLE local_holidays (
    office_code VARCHAR NOT NULL REFERENCES offices(code),
    day         DATE NOT NULL,
    name        VARCHAR NOT NULL,
    PRIMARY KEY (office_code, day)
);

-- Policies: choices the law leaves to the Naval Authority. Append-only; the current
-- value of a key is its latest row.
CREATE TABLE policies (
    id         BIGINT PRIMARY KEY DEFAULT nextval('seq_policies'),
    key        VARCHAR NOT NULL,
    value_json VARCHAR NOT NULL,
    basis      VARCHAR,
    set_by     VARCHAR NOT NULL,
    set_at     TIMESTAMP NOT NULL DEFAULT current_timestamp
);

-- Responsible parties (owners) of wrecks: Lei 7.542 arts. 3–9.
CREATE TABLE owners (
    id                BIGINT PRIMARY KEY DEFAULT nextval('seq_owners'),
    name              VARCHAR NOT NULL,
    doc_kind          VARCHAR NOT NULL CHECK (doc_kind IN ('CPF', 'CNPJ', 'estrangeiro', 'desconhecido')),
    doc_number        VARCHAR,                       -- digits only; check digits validated on entry
    nationality       VARCHAR NOT NULL,
    whereabouts_known BOOLEAN NOT NULL,              -- art. 9: intimação pessoal vs edital
    address           VARCHAR,
    notes             VARCHAR
);

-- Explorers' registration sheet (NORMAM-10 0401 / Anexo 4-A).
CREATE TABLE organisations (
    id                  BIGINT PRIMARY KEY DEFAULT nextval('seq_organisations'),
    name                VARCHAR NOT NULL,            -- razão social
    trade_name          VARCHAR,
    cnpj                VARCHAR UNIQUE,              -- digits only; NULL for foreign entities
    nationality         VARCHAR NOT NULL,
    address             VARCHAR NOT NULL,
    city                VARCHAR NOT NULL,
    state               VARCHAR,
    country             VARCHAR NOT NULL DEFAULT 'Brasil',
    email               VARCHAR,
    phone               VARCHAR,
    representative_name VARCHAR NOT NULL,
    representative_cpf  VARCHAR,
    experience          VARCHAR,                     -- art. 16 §5: comprovada experiência
    registered_on       DATE NOT NULL,
    status              VARCHAR NOT NULL DEFAULT 'ativo' CHECK (status IN ('ativo', 'suspenso', 'cancelado'))
);

CREATE TABLE wrecks (
    id                      BIGINT PRIMARY KEY DEFAULT nextval('seq_wrecks'),
    code                    VARCHAR NOT NULL UNIQUE,
    name                    VARCHAR NOT NULL,
    vessel_type             VARCHAR,
    flag                    VARCHAR,
    hull_material           VARCHAR NOT NULL CHECK (hull_material IN ('madeira', 'ferro', 'aço', 'concreto', 'compósito', 'alumínio', 'fibra', 'desconhecido')),
    casualty_year           INTEGER NOT NULL,
    casualty_month          INTEGER CHECK (casualty_month BETWEEN 1 AND 12),
    casualty_day            INTEGER CHECK (casualty_day BETWEEN 1 AND 31),
    casualty_precision      VARCHAR NOT NULL CHECK (casualty_precision IN ('day', 'month', 'year', 'century')),
    casualty_type           VARCHAR NOT NULL CHECK (casualty_type IN ('naufrágio', 'encalhe', 'colisão', 'abalroação', 'água aberta', 'explosão', 'incêndio', 'varação', 'arribada', 'alijamento', 'fortuna do mar')),
    -- Position (NORMAM-10 0403 a): degrees, minutes with hundredths, hemisphere, datum.
    lat_deg                 INTEGER NOT NULL CHECK (lat_deg BETWEEN 0 AND 90),
    lat_min                 DECIMAL(4,2) NOT NULL CHECK (lat_min >= 0 AND lat_min < 60),
    lat_hem                 VARCHAR NOT NULL CHECK (lat_hem IN ('N', 'S')),
    lon_deg                 INTEGER NOT NULL CHECK (lon_deg BETWEEN 0 AND 180),
    lon_min                 DECIMAL(4,2) NOT NULL CHECK (lon_min >= 0 AND lon_min < 60),
    lon_hem                 VARCHAR NOT NULL CHECK (lon_hem IN ('E', 'W')),
    datum                   VARCHAR NOT NULL,
    position_approximate    BOOLEAN NOT NULL DEFAULT false,
    depth_m                 DECIMAL(7,2),
    office_code             VARCHAR NOT NULL REFERENCES offices(code),
    situation               VARCHAR NOT NULL CHECK (situation IN ('encalhada', 'soçobrada')),
    visible_high_tide       BOOLEAN NOT NULL DEFAULT false,
    visible_low_tide        BOOLEAN NOT NULL DEFAULT false,
    signalling              VARCHAR,
    protected_area          BOOLEAN NOT NULL DEFAULT false,
    owner_id                BIGINT REFERENCES owners(id),
    owner_declared_lost     DATE,                    -- art. 3 I
    owner_licence_requested DATE,                    -- art. 4
    court_known_on          DATE,                    -- when the office learned of the casualty (L2180 art. 33)
    notes                   VARCHAR,
    created_at              TIMESTAMP NOT NULL DEFAULT current_timestamp
);

-- Suspensions of the five-year lapse (art. 6 sole paragraph I–III) and, as policy, Maritime Court pending.
CREATE TABLE wreck_suspensions (
    id         BIGINT PRIMARY KEY DEFAULT nextval('seq_suspensions'),
    wreck_id   BIGINT NOT NULL REFERENCES wrecks(id),
    ground     VARCHAR NOT NULL CHECK (ground IN ('I', 'II', 'III', 'tribunal')),
    starts_on  DATE NOT NULL,
    ends_on    DATE NOT NULL,
    reason     VARCHAR NOT NULL,
    CHECK (ends_on >= starts_on)
);

-- Authorisations / contracts (autorização, licença, contrato, portaria).
CREATE TABLE contracts (
    id                     BIGINT PRIMARY KEY DEFAULT nextval('seq_contracts'),
    code                   VARCHAR NOT NULL UNIQUE,
    kind                   VARCHAR NOT NULL CHECK (kind IN ('pesquisa', 'exploração', 'remoção', 'demolição')),
    act                    VARCHAR NOT NULL CHECK (act IN ('autorização', 'licença', 'contrato', 'portaria')),
    act_number             VARCHAR,
    organisation_id        BIGINT NOT NULL REFERENCES organisations(id),
    wreck_id               BIGINT NOT NULL REFERENCES wrecks(id),
    office_code            VARCHAR NOT NULL REFERENCES offices(code),
    requested_on           DATE,
    signed_on              DATE,
    starts_on              DATE,                     -- start of operations fixed in the act (art. 22 I)
    expires_on             DATE,
    work_ended_on          DATE,
    status                 VARCHAR NOT NULL CHECK (status IN ('solicitado', 'vigente', 'suspenso', 'concluído', 'cancelado', 'expirado')),
    cancelled_on           DATE,
    cancel_reason          VARCHAR,
    surveyor_organisation_id BIGINT REFERENCES organisations(id),  -- who located it (art. 16 §2 I)
    -- Payment terms (arts. 20–21): NULL until the Authority records them.
    modality               VARCHAR CHECK (modality IN ('I', 'II', 'III', 'IV')),
    historical_share       DECIMAL(5,4) CHECK (historical_share >= 0 AND historical_share <= 0.40),
    historical_payment     VARCHAR CHECK (historical_payment IN ('cash', 'adjudication', 'adjudication_with_cash_balance')),
    other_share            DECIMAL(5,4) CHECK (other_share >= 0 AND other_share <= 0.70),
    fixed_amount           DECIMAL(18,2) CHECK (fixed_amount >= 0),
    salvage_award          DECIMAL(18,2) CHECK (salvage_award >= 0),
    value_fixed            VARCHAR CHECK (value_fixed IN ('antes', 'depois')),   -- art. 21 §3
    caution_amount         DECIMAL(18,2) CHECK (caution_amount >= 0),            -- caução, art. 26
    created_at             TIMESTAMP NOT NULL DEFAULT current_timestamp
);

CREATE TABLE imports (
    id           BIGINT PRIMARY KEY DEFAULT nextval('seq_imports'),
    contract_id  BIGINT NOT NULL REFERENCES contracts(id),
    kind         VARCHAR NOT NULL,
    file_name    VARCHAR NOT NULL,
    sha256       VARCHAR NOT NULL,
    row_count    BIGINT NOT NULL,
    imported_by  VARCHAR NOT NULL,
    imported_at  TIMESTAMP NOT NULL DEFAULT current_timestamp
);

-- Recovered items (art. 23: every item registered and delivered to the Naval Authority).
CREATE TABLE items (
    id           BIGINT PRIMARY KEY DEFAULT nextval('seq_items'),
    contract_id  BIGINT NOT NULL,
    item_code    VARCHAR NOT NULL,
    description  VARCHAR NOT NULL,
    category     VARCHAR NOT NULL,
    material     VARCHAR NOT NULL,
    quantity     INTEGER NOT NULL CHECK (quantity > 0),
    weight_g     DECIMAL(12,2) CHECK (weight_g >= 0),
    recovered_on DATE NOT NULL,
    depth_m      DECIMAL(7,2),
    lot          VARCHAR,
    condition    VARCHAR,
    notes        VARCHAR,
    import_id    BIGINT,
    UNIQUE (contract_id, item_code)
);

-- Deliveries to the Naval Authority (art. 23); append-only, the latest row per item counts.
CREATE TABLE item_deliveries (
    id           BIGINT PRIMARY KEY DEFAULT nextval('seq_deliveries'),
    item_id      BIGINT NOT NULL,
    delivered_on DATE NOT NULL,
    received_by  VARCHAR NOT NULL,
    place        VARCHAR NOT NULL,
    recorded_by  VARCHAR NOT NULL,
    recorded_at  TIMESTAMP NOT NULL DEFAULT current_timestamp
);

CREATE TABLE users (
    id                  BIGINT PRIMARY KEY DEFAULT nextval('seq_users'),
    username            VARCHAR NOT NULL UNIQUE,
    full_name           VARCHAR NOT NULL,
    email               VARCHAR,
    role                VARCHAR NOT NULL CHECK (role IN ('commission', 'commission_president', 'dpc', 'explorer', 'admin')),
    organisation_id     BIGINT REFERENCES organisations(id),   -- required for explorers
    commission_body     VARCHAR CHECK (commission_body IN ('navy', 'culture')),
    password_hash       VARCHAR NOT NULL,
    failed_attempts     INTEGER NOT NULL DEFAULT 0,
    locked_until        TIMESTAMP,
    active              BOOLEAN NOT NULL DEFAULT true,
    created_at          TIMESTAMP NOT NULL DEFAULT current_timestamp,
    CHECK (role <> 'explorer' OR organisation_id IS NOT NULL)
);

-- Hash-chained audit trail: every write, who, when, what, before → after.
CREATE TABLE audit_log (
    id         BIGINT PRIMARY KEY,
    "at"       TIMESTAMP NOT NULL,
    actor      VARCHAR NOT NULL,
    action     VARCHAR NOT NULL,
    entity     VARCHAR NOT NULL,
    entity_id  VARCHAR,
    before_json VARCHAR,
    after_json  VARCHAR,
    prev_hash  VARCHAR NOT NULL,
    hash       VARCHAR NOT NULL
);

CREATE INDEX idx_contracts_org ON contracts(organisation_id);
