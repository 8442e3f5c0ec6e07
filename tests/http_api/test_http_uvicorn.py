"""The HTTP API once through a real server: ``turnframe serve`` (uvicorn) on 127.0.0.1."""

from __future__ import annotations

import json
import threading
from pathlib import Path
from typing import Any

import httpx
from server_kit import serving

ACCOUNT = {"X-Turnframe-Account": "demo"}
OTHER = {"X-Turnframe-Account": "someone-else"}
REBOOK = "Rebook the return flight to March 20."
NOTE = "Add a note: aisle seat please."


def _turn(client: httpx.Client, session_id: str, body: dict[str, Any], key: str) -> httpx.Response:
    return client.post(
        f"/v1/sessions/{session_id}/turns", json=body, headers={**ACCOUNT, "Idempotency-Key": key}
    )


class StreamReader(threading.Thread):
    """Reads the session's event stream until ``count`` turns came (or the stream ended)."""

    def __init__(self, url: str, session_id: str, count: int) -> None:
        super().__init__(daemon=True)
        self.url, self.session_id, self.count = url, session_id, count
        self.turns: list[dict[str, Any]] = []
        self.open = threading.Event()
        self.ended = False

    def run(self) -> None:
        with (
            httpx.Client(base_url=self.url, timeout=60) as client,
            client.stream("GET", f"/v1/sessions/{self.session_id}/stream", headers=ACCOUNT) as s,
        ):
            assert s.headers["content-type"].startswith("text/event-stream")
            self.open.set()
            for line in s.iter_lines():
                if line.startswith("data: ") and len(self.turns) < self.count:
                    self.turns.append(json.loads(line[6:]))
            self.ended = True


def test_every_endpoint_through_a_real_uvicorn(tmp_path: Path) -> None:
    store = tmp_path / "served.db"
    with serving(store, "--workflow", "travel-desk") as served:
        with httpx.Client(base_url=served.url, timeout=60) as client:
            assert client.get("/v1/health").json() == {"status": "ok"}
            assert client.get("/v1/workflows").json() == {"workflows": [{"name": "travel-desk"}]}
            opened = client.post("/v1/sessions", json={"workflow": "travel-desk"}, headers=ACCOUNT)
            assert opened.status_code == 201
            session_id = opened.json()["session_id"]
            listed = client.get("/v1/sessions", headers=ACCOUNT).json()["sessions"]
            assert [s["session_id"] for s in listed] == [session_id]

            reader = StreamReader(served.url, session_id, count=3)
            reader.start()
            assert reader.open.wait(60)

            card_turn = _turn(client, session_id, {"text": REBOOK}, "k-1")
            assert card_turn.status_code == 200
            assert _turn(client, session_id, {"text": REBOOK}, "k-1").json() == card_turn.json()
            card = client.get(f"/v1/sessions/{session_id}/card", headers=ACCOUNT).json()["card"]
            assert card["commands"][0]["args"] == {"date": "2026-03-20", "leg": "return"}
            confirmed = _turn(
                client, session_id, {"click": "confirm", "card": card["interaction_id"]}, "k-2"
            )
            assert [b["code"] for b in confirmed.json()["blocks"]] == [
                "turnframe.receipt.committed"
            ]
            double = _turn(
                client, session_id, {"click": "confirm", "card": card["interaction_id"]}, "k-3"
            )
            assert [b["code"] for b in double.json()["blocks"]] == ["turnframe.notice.already_done"]
            assert _turn(client, session_id, {"click": "confirm"}, "k-4").status_code == 409

            stale_card = _turn(
                client, session_id, {"text": "Rebook the return flight to March 22."}, "k-5"
            )
            stale_id = client.get(f"/v1/sessions/{session_id}/card", headers=ACCOUNT).json()["card"]
            _turn(client, session_id, {"text": NOTE}, "k-6")
            stale = _turn(
                client, session_id, {"click": "confirm", "card": stale_id["interaction_id"]}, "k-7"
            )
            assert stale.json()["blocks"][0]["code"] == "turnframe.notice.card_stale"
            assert stale_card.status_code == 200

            turn_id = confirmed.json()["turn_id"]
            assert client.get(f"/v1/turns/{turn_id}", headers=ACCOUNT).json() == confirmed.json()
            replay = client.get(f"/v1/turns/{turn_id}/replay", headers=ACCOUNT).json()
            assert replay["events"][0]["type"] == "rebooked"
            acts = client.get(f"/v1/turns/{turn_id}/acts", headers=ACCOUNT).json()
            assert acts["click"].startswith("option confirm")
            turns = client.get(f"/v1/sessions/{session_id}/turns", headers=ACCOUNT).json()["turns"]
            assert len(turns) == 6

            foreign = client.get(f"/v1/turns/{turn_id}", headers=OTHER)
            unknown = client.get("/v1/turns/turn-nope", headers=OTHER)
            assert foreign.status_code == unknown.status_code == 404
            assert foreign.json()["error"]["code"] == unknown.json()["error"]["code"]
            assert foreign.text.replace(turn_id, "ID") == unknown.text.replace("turn-nope", "ID")

            big = client.post(
                f"/v1/sessions/{session_id}/turns", json={"text": "x" * 20_000}, headers=ACCOUNT
            )
            assert (big.status_code, big.json()["error"]["code"]) == (
                413,
                "turnframe.http.body_too_large",
            )
            bad = client.post(
                f"/v1/sessions/{session_id}/turns",
                content=b"{not json",
                headers={**ACCOUNT, "Content-Type": "application/json"},
            )
            assert (bad.status_code, bad.json()["error"]["code"]) == (
                400,
                "turnframe.http.malformed_body",
            )
            assert (
                len(client.get(f"/v1/sessions/{session_id}/turns", headers=ACCOUNT).json()["turns"])
                == 6
            )
            assert "/v1/sessions/{session_id}/turns" in client.get("/openapi.json").json()["paths"]
            assert "turnframe inspector" in client.get("/").text

        # SIGTERM drains: the open event stream ends, and the server exits 0.
        assert served.stop() == 0
        reader.join(60)
        assert reader.ended
        assert [t["turn_id"] for t in reader.turns] == [t["turn_id"] for t in turns[:3]]

    with serving(store, "--workflow", "travel-desk") as served:
        with httpx.Client(base_url=served.url, timeout=60) as client:
            again = _turn(client, session_id, {"text": REBOOK}, "k-1")
            assert again.json() == card_turn.json()
            assert again.headers["Idempotent-Replayed"] == "true"
        assert served.stop() == 0
