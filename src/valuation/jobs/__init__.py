"""Scheduled jobs of the service (issue 13): the daily deadline digest by e-mail, the nightly
backup and the nightly audit-chain verification. `runs.run_job` runs one with its retry and
records it; `settings.JobSettings` reads the schedule and SMTP configuration."""
