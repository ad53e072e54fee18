"""The Commission's capability (the folder the restructure moves the rest into later).

    comparables.py   earlier published decisions on similar items; the comparable-outlier flag
    item_facts.py    what the entry form shows of an item (physical data, lot, depth, recovery)
"""
