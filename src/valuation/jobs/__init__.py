"""Scheduled jobs of the service (issues 13 and 24): the daily deadline digest by e-mail, the hourly
and nightly backups with their retention schedule and mirror (backups.py, retention.py), the restore
drill that proves each backup and the recovery point's watch (drill.py), and the nightly audit-chain
verification. `runs.run_job` runs one with its retry and records it; `settings.JobSettings` reads the
schedule and SMTP configuration."""
