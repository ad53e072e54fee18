-- 030 the contract's valuation date (issue 25, rule 5; Lei 7.542/1986 art. 21 §3). The contract may fix the
-- value of the things before the start or after the end of the operations (`contracts.value_fixed`, 001);
-- `valuation_date` is the day that value refers to. When it is set, the Commission's foreign prices are
-- converted at that day's rate (the latest on or before it), not at each price's own date.
--
-- assessment_log keeps its CHECK (rate_date <= price_date: a price-date conversion never uses a later rate);
-- DuckDB can neither drop nor relax a CHECK. A conversion at the valuation date is therefore recorded apart:
-- `conversion_date` (the valuation date used) and `conversion_rate_date` (the day of the rate used, never
-- after conversion_date, checked by the one writer, valuation.commission.entries), with `rate_date` NULL.
-- Readers take coalesce(conversion_rate_date, rate_date). Never edit an applied migration.

ALTER TABLE contracts ADD COLUMN valuation_date DATE;
ALTER TABLE assessment_log ADD COLUMN conversion_date DATE;
ALTER TABLE assessment_log ADD COLUMN conversion_rate_date DATE;
