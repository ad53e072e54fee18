-- 008 open suspensions (issue 15): a suspension of the five-year lapse may still be running,
-- with no end known yet (Lei 7.542 art. 6 sole paragraph I–II: a removal in progress, an
-- order of the Naval Authority). ends_on NULL = still running: the clock is stopped and the
-- lapse has no due date (valuation.deadlines.five_year_lapse). The CHECK (ends_on >= starts_on)
-- of 001 holds for every closed suspension and lets an open one (NULL) through.
-- Never edit an applied migration: add a new numbered file.
ALTER TABLE wreck_suspensions ALTER COLUMN ends_on DROP NOT NULL;
