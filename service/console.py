"""What the service writes to its terminal (issue 23 item 17): one line per HTTP request, and one human
line once it is ready instead of uvicorn's English start-up lines.

Why requests were logged twice: uvicorn's own logging configuration gives the `uvicorn.access` logger a
handler (to stdout, "INFO:     127.0.0.1:… - "GET … HTTP/1.1" 200 OK"), and importing Streamlit adds its
console handler to the same logger (`streamlit.logger.init_uvicorn_logs`, to stderr with a timestamp).
`one_line_per_request` keeps Streamlit's (the timestamped one, formatted like every other line of the
service) and removes the others; without Streamlit's handler nothing is removed.
"""
from __future__ import annotations

import logging
import sys
from typing import TextIO

ACCESS_LOGGER = "uvicorn.access"
# uvicorn's lines after the lifespan's start-up, which the ready line replaces (it names the address)
_REPLACED = ("Application startup complete", "Uvicorn running on")


class _DropStartupLines(logging.Filter):
    def filter(self, record: logging.LogRecord) -> bool:
        return not str(record.msg).startswith(_REPLACED)


def quiet_startup() -> None:
    """Drop uvicorn's "Application startup complete." and "Uvicorn running on …" (the ready line says it)."""
    logger = logging.getLogger("uvicorn.error")
    if not any(isinstance(f, _DropStartupLines) for f in logger.filters):
        logger.addFilter(_DropStartupLines())


def one_line_per_request() -> int:
    """Leave `uvicorn.access` one handler (Streamlit's console handler when it has one); returns how many
    handlers it has now."""
    logger = logging.getLogger(ACCESS_LOGGER)
    keep = getattr(logger, "streamlit_console_handler", None)
    if keep is not None and keep in logger.handlers:
        for handler in list(logger.handlers):
            if handler is not keep:
                logger.removeHandler(handler)
    return len(logger.handlers)


WEBSOCKET_LOGGER = "streamlit.web.server.starlette.starlette_websocket"
_NOT_A_MESSAGE = "Error deserializing back message"


class _OneLineFrames(logging.Filter):
    """Streamlit logs a WebSocket frame that is not one of its messages with the parser's whole traceback (issue
    45, item 11: 30 of them in a hostile run, before any login); one line says the same."""

    def filter(self, record: logging.LogRecord) -> bool:
        if str(record.msg).startswith(_NOT_A_MESSAGE) and record.exc_info:
            error = record.exc_info[1]
            record.msg = "WebSocket: a binary frame that is not a Streamlit message (%s); connection closed"
            record.args = (type(error).__name__ if error is not None else "?",)
            record.exc_info = None
            record.exc_text = None
        return True


def one_line_frames() -> None:
    """Make Streamlit's line for a frame that is not one of its messages one line, without its traceback."""
    logger = logging.getLogger(WEBSOCKET_LOGGER)
    if not any(isinstance(f, _OneLineFrames) for f in logger.filters):
        logger.addFilter(_OneLineFrames())


def ready_line(host: str, port: int, *, demo: bool) -> str:
    """The one line a person reads when the service is ready."""
    shown = f"[{host}]" if ":" in host else host
    line = f"Painel em http://{shown}:{port}"
    return line + ("; usuários de demonstração no README" if demo else "")


def announce(host: str, port: int, *, demo: bool, out: TextIO | None = None) -> None:
    stream = out or sys.stdout
    print(ready_line(host, port, demo=demo), file=stream, flush=True)
