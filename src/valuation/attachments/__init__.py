"""Photos and documents kept with the record (issue 16).

    kinds.py         owners, kinds of file, accepted types and size limits
    sniff.py         the type of a file from its bytes (magic numbers, bounded ZIP inspection)
    images.py        decoding with a pixel bound, metadata stripped, display copy and thumbnail
    blobs.py         content-addressed storage beside the database (<db dir>/files/ab/cd/<sha256>)
    access.py        who reads and attaches what: the owner row, through the store's scopes
    records.py       attach / list / open (audited) / replace / withdraw / principal photo
    bulk.py          a ZIP of photos named by item code, attached to a contract's items at once
    backup_files.py  the files in backup, restore and `audit verify`
    demo.py          the demo's photographs (drawn with Pillow) and reports
    photo_sheet.py   thumbnails of items for the minutes and statements (a size budget)

Nothing is imported here, so that `python -m valuation` starts without Pillow: import the
module you need (`from valuation.attachments import records`).
"""
