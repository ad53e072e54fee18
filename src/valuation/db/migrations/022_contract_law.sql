-- 022 the law of the contract's date (issue 25; Lei 7.542/1986 arts. 20–21; rules.md §4).
-- A contract or authorisation act signed before Lei 10.166/2000 came into force (28/12/2000) follows
-- the original arts. 20–21: no reward for the historical items, and no 70 % cap on the share of the
-- other items in modalities II and III. The signing date is `contracts.signed_on` (001), which decides
-- the text (`valuation.partition.rules.law_text_of`).
--
-- `contracts.other_share` keeps its CHECK (0 to 0.70, the amended art. 21): DuckDB can neither drop,
-- relax nor add a CHECK, nor rename a column, of a table that foreign keys reference. The share of a
-- contract under the original text is therefore kept in `other_share_original` (0 to 1, checked by
-- the one writer, `valuation.partition.terms.set_contract_terms`), with `other_share` NULL; readers
-- take coalesce(other_share, other_share_original) (`valuation.partition.terms.OTHER_SHARE_SQL`).
-- Never edit an applied migration: add a new numbered file.

ALTER TABLE contracts ADD COLUMN other_share_original DECIMAL(5,4);

UPDATE contracts SET other_share_original = other_share, other_share = NULL
 WHERE signed_on < DATE '2000-12-28' AND other_share IS NOT NULL;
