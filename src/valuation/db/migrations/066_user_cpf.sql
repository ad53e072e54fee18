-- 066 the CPF of a user (issue 27): the person who must sign an act (the CPF in the signer's certificate —
-- ICP-Brasil's otherName 2.16.76.1.3.1 — must equal it) and the key a gov.br login (whose `sub` is the CPF)
-- maps to. Eleven digits, no punctuation; check digits verified by the one writer (valuation.accounts.users).
-- Unique among users: enforced by that writer (DuckDB's ART indexes refuse an UPDATE of an indexed column
-- in some transactions, so no UNIQUE index). Sealed apart from the user's row (db/seals.py `user_cpf`).
-- Never edit an applied migration.

ALTER TABLE users ADD COLUMN cpf VARCHAR;
