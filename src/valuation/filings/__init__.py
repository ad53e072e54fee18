"""Filings (peticionamento eletrônico, issue 42 item 1): what a company files in a request's process, with its
receipt, and what an office records of a filing that reached it by another channel; the office's queue of filings
to examine (Lei 9.784/1999 art. 24). `records`: the store functions; `receipt`: the receipt's PDF."""
