"""valuation: wrecks and recovered things under Lei 7.542/1986 (Lei 10.166/2000) and NORMAM-10.

No module of this package imports streamlit: pages call these functions.
"""

__version__ = "0.1.0"
