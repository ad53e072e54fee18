"""The tabs of a wreck's detail on Naufrágios (pages/wrecks.py): its responsible parties — cessions of
the owner's rights (Lei 7.542 art. 8) and the cargo's responsible (arts. 13 §1 and 14) — and its
registration as an archaeological site (Constituição art. 20 X; Lei 3.924/1961)."""
