"""A fake model-provider HTTP server on 127.0.0.1: real HTTP/1.1, scripted replies.

Each connection carries one request and is closed after the reply (``connection: close``), which
keeps the parser tiny and is valid HTTP that httpx handles.
"""

from __future__ import annotations

import json
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from typing import Any

import anyio
import attrs
from anyio.abc import SocketAttribute, SocketStream
from anyio.streams.buffered import BufferedByteReceiveStream


@attrs.frozen(kw_only=True)
class Reply:
    status: int = 200
    body: Any = None
    raw: bytes | None = None
    headers: dict[str, str] = attrs.field(factory=dict)


@attrs.frozen(kw_only=True)
class Received:
    method: str
    path: str
    headers: dict[str, str]
    body: Any


@attrs.define
class FakeProviderServer:
    replies: list[Reply]
    url: str = ""
    received: list[Received] = attrs.field(factory=list)

    async def handle(self, stream: SocketStream) -> None:
        async with stream:
            buffered = BufferedByteReceiveStream(stream)
            head = await buffered.receive_until(b"\r\n\r\n", 65536)
            request_line, *header_lines = head.decode("latin-1").split("\r\n")
            method, path, _ = request_line.split(" ", 2)
            headers = {
                k.strip().lower(): v.strip()
                for k, v in (line.split(":", 1) for line in header_lines if line)
            }
            length = int(headers.get("content-length", "0"))
            body = await buffered.receive_exactly(length) if length else b""
            self.received.append(
                Received(
                    method=method,
                    path=path,
                    headers=headers,
                    body=json.loads(body) if body else None,
                )
            )
            await stream.send(self._encode(self.replies.pop(0)))

    @staticmethod
    def _encode(reply: Reply) -> bytes:
        if reply.raw is not None:
            payload, kind = reply.raw, "text/html"
        else:
            payload, kind = json.dumps(reply.body).encode(), "application/json"
        lines = [
            f"HTTP/1.1 {reply.status} Scripted",
            f"content-type: {kind}",
            f"content-length: {len(payload)}",
            "connection: close",
            *(f"{k}: {v}" for k, v in reply.headers.items()),
        ]
        return ("\r\n".join(lines) + "\r\n\r\n").encode("latin-1") + payload


@asynccontextmanager
async def fake_provider_server(*replies: Reply) -> AsyncIterator[FakeProviderServer]:
    server = FakeProviderServer(replies=list(replies))
    listener = await anyio.create_tcp_listener(local_host="127.0.0.1", local_port=0)
    server.url = f"http://127.0.0.1:{listener.extra(SocketAttribute.local_port)}"
    async with listener, anyio.create_task_group() as tg:
        tg.start_soon(listener.serve, server.handle)
        try:
            yield server
        finally:
            tg.cancel_scope.cancel()


def openai_answer(content: str | None, *, finish: str = "stop", refusal: str | None = None) -> Any:
    return {
        "id": "chatcmpl-1",
        "object": "chat.completion",
        "model": "gpt-test",
        "choices": [
            {
                "index": 0,
                "message": {"role": "assistant", "content": content, "refusal": refusal},
                "finish_reason": finish,
            }
        ],
    }


def openai_error(code: str, message: str = "scripted error") -> Any:
    return {"error": {"message": message, "type": "invalid_request_error", "code": code}}


def anthropic_answer(content: list[Any], *, stop: str = "tool_use") -> Any:
    return {
        "id": "msg_1",
        "type": "message",
        "role": "assistant",
        "model": "claude-test",
        "content": content,
        "stop_reason": stop,
    }


def anthropic_error(kind: str, message: str = "scripted error") -> Any:
    return {"type": "error", "error": {"type": kind, "message": message}}
