-- 065 the registry of issued documents (issue 27, section 1): every PDF the product issues carries a
-- verification code and a CRC on every page; this table says what was issued under each code, for the
-- public /verificar route (valuation.authenticity). One row per issue; append-only and row-sealed
-- (db/seals.py: a row changed or removed behind the application's back is named by audit verify).
--   code        10 symbols of Crockford's base 32 (50 bits, from `secrets`), stored without separator
--   kind        what the document is (statement, minutes, wreck_map, office_deadlines, photo_sheet)
--   record_table / record_id / record_key   the record it belongs to (a row, or a key such as 'CPSP|2026')
--   office      the issuing office as printed ('Diretoria de Portos e Costas', 'CPSP'…)
--   nup         the record's NUP as printed in the footer (NULL: the record had none; issue 26 adds them)
--   crc         CRC-32 (8 hex) of the bytes before the CRC was stamped; sha256 / size: the final bytes
-- No foreign keys. Never edit an applied migration.

CREATE SEQUENCE seq_issued_documents START 1;

CREATE TABLE issued_documents (
    id           BIGINT PRIMARY KEY DEFAULT nextval('seq_issued_documents'),
    code         VARCHAR NOT NULL UNIQUE CHECK (length(code) = 10),
    kind         VARCHAR NOT NULL CHECK (kind IN ('statement', 'minutes', 'wreck_map', 'office_deadlines',
                                                  'photo_sheet')),
    record_table VARCHAR NOT NULL,
    record_id    BIGINT,
    record_key   VARCHAR,
    office       VARCHAR NOT NULL,
    nup          VARCHAR,
    issued_at    TIMESTAMP NOT NULL,
    crc          VARCHAR NOT NULL CHECK (length(crc) = 8),
    sha256       VARCHAR NOT NULL CHECK (length(sha256) = 64),
    size         BIGINT NOT NULL,
    issued_by    VARCHAR NOT NULL
);
