-- 009 policy history (issue 11): why a policy value was set and from when it applies.
-- Never edit an applied migration: add a new numbered file.
--
-- `policies` stays append-only (one row per change). `reason` is the justification the
-- DPC gives for the change (shown in the history); `effective_from` is the first day on
-- which the value applies (NULL: from the moment it was set). Dated values (NORMAM
-- parameters revised by the DPC) are read by valuation.store.policies.policy_in_force.
ALTER TABLE policies ADD COLUMN reason VARCHAR;
ALTER TABLE policies ADD COLUMN effective_from DATE;
