"""Plain HTTP responses of the hub's routes: every one allows any CORS origin (§10)."""

from __future__ import annotations

import json
from http import HTTPStatus
from typing import Any

from websockets.datastructures import Headers
from websockets.http11 import Response

CORS = {
    "Access-Control-Allow-Origin": "*",
    "Access-Control-Allow-Methods": "*",
    "Access-Control-Allow-Headers": "*",
}


def response(status: HTTPStatus, body: str, content_type: str, extra: dict[str, str] | None = None) -> Response:
    payload = body.encode()
    headers = Headers(
        {
            "Content-Type": content_type,
            "Content-Length": str(len(payload)),
            "Connection": "close",
            **CORS,
            **(extra or {}),
        }
    )
    return Response(status.value, status.phrase, headers, payload)


def text(status: HTTPStatus, body: str, extra: dict[str, str] | None = None) -> Response:
    return response(status, body, "text/plain; charset=utf-8", extra)


def json_response(status: HTTPStatus, value: Any) -> Response:
    return response(status, json.dumps(value, ensure_ascii=False), "application/json")
