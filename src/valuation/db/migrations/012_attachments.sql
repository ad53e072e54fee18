-- 012 attachments and comparables (issue 16): photos and documents kept with the record, and
-- the Commission's published decisions indexed for "similar items" (valuation.attachments,
-- valuation.commission.comparables).
-- The files themselves live on disk beside the database, content-addressed
-- (<db dir>/files/ab/cd/<sha256>); these tables hold what the law needs to know about them.
-- Append-only: an attachment is never updated or deleted. A replacement is a new row with
-- the same root_id and version + 1; a withdrawal is such a row with withdrawn = true. The
-- current version of a root is its highest version; it counts unless withdrawn.
-- No foreign keys: the owners (items, contracts, wrecks, deadline events) are updated in place
-- by other modules, and DuckDB refuses updates of rows that a foreign key references.
-- Never edit an applied migration: add a new numbered file.

CREATE SEQUENCE seq_attachments START 1;
CREATE SEQUENCE seq_attachment_principals START 1;

CREATE TABLE attachments (
    id              BIGINT PRIMARY KEY,              -- nextval('seq_attachments'), taken by the store
    root_id         BIGINT NOT NULL,                 -- id of version 1 (itself for version 1)
    version         INTEGER NOT NULL CHECK (version >= 1),
    owner_kind      VARCHAR NOT NULL CHECK (owner_kind IN ('item', 'deadline_event', 'contract', 'wreck')),
    owner_id        BIGINT NOT NULL,
    kind            VARCHAR NOT NULL,                -- photo, report, authorisation, co_signature, edital,
                                                     -- cost_sheet, document (valuation.attachments.kinds)
    original_name   VARCHAR NOT NULL,                -- as uploaded (base name only), for display
    media_type      VARCHAR NOT NULL,                -- detected from the bytes, never from the name
    size_bytes      BIGINT NOT NULL CHECK (size_bytes > 0),       -- the stored file
    sha256          VARCHAR NOT NULL CHECK (length(sha256) = 64), -- the stored file (images: the clean derivative)
    original_sha256 VARCHAR NOT NULL CHECK (length(original_sha256) = 64),  -- the bytes as uploaded (evidence; DPC only)
    original_size   BIGINT NOT NULL CHECK (original_size > 0),
    width           INTEGER,                         -- images only (pixels)
    height          INTEGER,
    preview_sha256  VARCHAR,                         -- images: a display copy (long side ≤ 1600 px)
    thumb_sha256    VARCHAR,                         -- images: a thumbnail (long side ≤ 320 px)
    caption         VARCHAR,
    withdrawn       BOOLEAN NOT NULL DEFAULT false,
    note            VARCHAR,                         -- why a version replaces or withdraws the previous one
    batch           VARCHAR,                         -- the ZIP a bulk upload came from (sha256 of the archive)
    uploaded_by     VARCHAR NOT NULL,
    uploaded_at     TIMESTAMP NOT NULL,
    UNIQUE (root_id, version),
    CHECK (version = 1 OR root_id <> id),
    CHECK (NOT withdrawn OR version > 1)
);
CREATE INDEX idx_attachments_owner ON attachments(owner_kind, owner_id);

-- Which photo of an item is the principal one (append-only: the latest row per item counts;
-- it names the root, so a replaced photo stays principal in its new version).
CREATE TABLE attachment_principals (
    id        BIGINT PRIMARY KEY DEFAULT nextval('seq_attachment_principals'),
    item_id   BIGINT NOT NULL,
    root_id   BIGINT NOT NULL,
    set_by    VARCHAR NOT NULL,
    set_at    TIMESTAMP NOT NULL
);

-- Physical description of an item that the inventory sheet did not have: its dimensions, as
-- written by whoever measured it ('Ø 39 mm', '32 × 21 × 4 cm').
ALTER TABLE items ADD COLUMN dimensions VARCHAR;

-- The published decisions in force, one row per item, with the keys that make items
-- comparable (category, material, and the denomination or type the description shows:
-- '8 real', '4000 reis', 'pataca'). Derived from decisions + rounds at publication
-- (valuation.commission.comparables.record_published): only a published decision ever
-- enters, so nothing of an open or unpublished round can be read from here.
CREATE TABLE published_comparables (
    item_id       BIGINT PRIMARY KEY,
    contract_id   BIGINT NOT NULL,
    category_key  VARCHAR NOT NULL,
    material_key  VARCHAR NOT NULL,
    denomination  VARCHAR,
    value_brl     DECIMAL(18,2) NOT NULL,
    historical    BOOLEAN NOT NULL,
    decision_id   BIGINT NOT NULL,
    round_id      BIGINT NOT NULL,
    decided_at    TIMESTAMP NOT NULL,
    published_at  TIMESTAMP NOT NULL
);

-- Items whose consensus lies far outside their comparables' range when their round closed
-- (policy comparables_outlier_factor, comparables_min_count), shown to the president beside
-- the spread flag. Quartiles are exact (linear interpolation, quarter cents).
CREATE TABLE comparable_flags (
    round_id      BIGINT NOT NULL,
    item_id       BIGINT NOT NULL,
    comparables   INTEGER NOT NULL,
    q1_brl        DECIMAL(18,4) NOT NULL,
    median_brl    DECIMAL(18,4) NOT NULL,
    q3_brl        DECIMAL(18,4) NOT NULL,
    lower_brl     DECIMAL(24,8) NOT NULL,
    upper_brl     DECIMAL(24,8) NOT NULL,
    consensus_brl DECIMAL(18,2) NOT NULL,
    factor        DECIMAL(9,4) NOT NULL,
    min_count     INTEGER NOT NULL,
    computed_at   TIMESTAMP NOT NULL,
    PRIMARY KEY (round_id, item_id)
);

-- What makes two items comparable, as SQL macros (kept in the schema, so the backfill below,
-- the store's queries and a restored backup all use this one definition; a change of the rule
-- is a new migration with CREATE OR REPLACE MACRO). Category and material compare without case
-- or accents; the denomination is '<number> <unit>' when the description shows one ('Moeda de
-- 4.000 réis' → '4000 reis', '8 reales' → '8 real'), else a named coin type ('pataca',
-- 'soberano'), else NULL (then any denomination of the same category and material compares).
-- Each macro stands alone (EXPORT DATABASE writes macros in name order, so one may not call another).
CREATE MACRO comparable_key(x) AS lower(strip_accents(trim(x)));
CREATE MACRO comparable_denomination(description) AS CASE
    WHEN regexp_matches(lower(strip_accents(trim(description))),
                        '\b(\d{1,3}(?:[.$]\d{3}){1,4}|\d{1,12})\s*(reales|real|reis|escudos|escudo|dobras|dobra|dobroes|dobrao|cruzados|cruzado|florins|florim|pesos|peso|ducados|ducado|maravedis|libras|libra|xelins|xelim|shillings|shilling|pence|guineas|guinea|tostoes|tostao|vintens|vintem|cruzeiros|cruzeiro|dolares|dolar|dollars|dollar|francos|franco)\b')
    THEN CAST(CAST(regexp_replace(regexp_extract(lower(strip_accents(trim(description))),
                                                 '\b(\d{1,3}(?:[.$]\d{3}){1,4}|\d{1,12})\s*(reales|real|reis|escudos|escudo|dobras|dobra|dobroes|dobrao|cruzados|cruzado|florins|florim|pesos|peso|ducados|ducado|maravedis|libras|libra|xelins|xelim|shillings|shilling|pence|guineas|guinea|tostoes|tostao|vintens|vintem|cruzeiros|cruzeiro|dolares|dolar|dollars|dollar|francos|franco)\b', 1),
                                  '[.$]', '', 'g') AS BIGINT) AS VARCHAR) || ' ' ||
         CASE regexp_extract(lower(strip_accents(trim(description))), '\b(\d{1,3}(?:[.$]\d{3}){1,4}|\d{1,12})\s*(reales|real|reis|escudos|escudo|dobras|dobra|dobroes|dobrao|cruzados|cruzado|florins|florim|pesos|peso|ducados|ducado|maravedis|libras|libra|xelins|xelim|shillings|shilling|pence|guineas|guinea|tostoes|tostao|vintens|vintem|cruzeiros|cruzeiro|dolares|dolar|dollars|dollar|francos|franco)\b', 2)
             WHEN 'reales' THEN 'real' WHEN 'dobroes' THEN 'dobrao' WHEN 'tostoes' THEN 'tostao'
             WHEN 'vintens' THEN 'vintem' WHEN 'florins' THEN 'florim' WHEN 'xelins' THEN 'xelim'
             WHEN 'dolares' THEN 'dolar' WHEN 'patacas' THEN 'pataca' WHEN 'soberanos' THEN 'soberano'
             WHEN 'guineus' THEN 'guineu' WHEN 'guineas' THEN 'guinea' WHEN 'reis' THEN 'reis'
             WHEN 'pence' THEN 'pence'
             ELSE regexp_replace(regexp_extract(lower(strip_accents(trim(description))), '\b(\d{1,3}(?:[.$]\d{3}){1,4}|\d{1,12})\s*(reales|real|reis|escudos|escudo|dobras|dobra|dobroes|dobrao|cruzados|cruzado|florins|florim|pesos|peso|ducados|ducado|maravedis|libras|libra|xelins|xelim|shillings|shilling|pence|guineas|guinea|tostoes|tostao|vintens|vintem|cruzeiros|cruzeiro|dolares|dolar|dollars|dollar|francos|franco)\b', 2), 's$', '') END
    WHEN regexp_matches(lower(strip_accents(trim(description))), '\b(soberanos|soberano|patacas|pataca|dobroes|dobrao|leeuwendaalder|daalder|guineus|guineu|cruzados|cruzado)\b')
    THEN CASE regexp_extract(lower(strip_accents(trim(description))), '\b(soberanos|soberano|patacas|pataca|dobroes|dobrao|leeuwendaalder|daalder|guineus|guineu|cruzados|cruzado)\b', 1)
             WHEN 'reales' THEN 'real' WHEN 'dobroes' THEN 'dobrao' WHEN 'tostoes' THEN 'tostao'
             WHEN 'vintens' THEN 'vintem' WHEN 'florins' THEN 'florim' WHEN 'xelins' THEN 'xelim'
             WHEN 'dolares' THEN 'dolar' WHEN 'patacas' THEN 'pataca' WHEN 'soberanos' THEN 'soberano'
             WHEN 'guineus' THEN 'guineu' WHEN 'guineas' THEN 'guinea' WHEN 'reis' THEN 'reis'
             WHEN 'pence' THEN 'pence'
             ELSE regexp_replace(regexp_extract(lower(strip_accents(trim(description))), '\b(soberanos|soberano|patacas|pataca|dobroes|dobrao|leeuwendaalder|daalder|guineus|guineu|cruzados|cruzado)\b', 1), 's$', '') END
    END;

-- Decisions published before this migration enter the comparables as publication would have
-- written them (valuation.commission.comparables.record_published does the same per round).
INSERT INTO published_comparables (item_id, contract_id, category_key, material_key, denomination, value_brl,
                                   historical, decision_id, round_id, decided_at, published_at)
WITH d AS (
    SELECT d.item_id, r.contract_id, d.value_brl, d.historical, d.id AS decision_id, d.round_id, d.decided_at,
           coalesce(r.published_at, d.decided_at) AS published_at
    FROM decisions d JOIN assessment_rounds r ON r.id = d.round_id
    WHERE r.status = 'publicada'
    QUALIFY row_number() OVER (PARTITION BY d.item_id ORDER BY d.id DESC) = 1
)
SELECT d.item_id, d.contract_id, comparable_key(i.category), comparable_key(i.material),
       comparable_denomination(i.description), d.value_brl, d.historical, d.decision_id, d.round_id,
       d.decided_at, d.published_at
FROM d JOIN items i ON i.id = d.item_id;
