"""The tabs of the pages that have many, one module per tab: `page_tabs/<page key>/<tab>.py`.

`pages/<key>.py` stays the one file Streamlit runs for the page (guard, the choices above the tabs, the
tab bar of `ui.tabs.LazyTabs`) and calls the open tab's `render(view)`; `view.py` beside the tabs holds
what every tab of that page works on. A tab module imports the page's capability and the display
helpers of `ui/`, like a page; nothing here is a page of its own (`pages/` is one file per page).
"""
