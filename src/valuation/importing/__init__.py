"""Reading bulk uploads (CSV or XLSX) into strings, and pt-BR numbers and dates, for every importer.

`tabular` is shared; each capability validates its own file (inventory.importer for recovered
items, commission.sheet for assessment sheets, commission.rates for exchange rates).
"""
