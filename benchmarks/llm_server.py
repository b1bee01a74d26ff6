"""A local OpenAI-compatible chat-completions server whose answers the tests script.

It replaces the model (and only the model): requests really go over HTTP through the
official `openai` client. A script is a list of replies, used in order (the last one
repeats); each reply is a function of the request's JSON, or one of:
`{"content": str}`, `{"tool_calls": [...]}`, `{"status": 500}`, `{"delay": seconds, ...}`,
`{"raw": "not json at all"}`. Unscripted, it answers `empty_answer`: the empty answer of the call's kind, which it
tells by the word the system message names the call with (`call_kind`: `EXTRACT`, `CONTRADICTION`, `COORDINATOR`).

It answers `/v1/embeddings` too, deterministically: each word of a text counts towards one axis, its
concept's when it has one (so "release" and "launch" land on the same axis) and a hashed one otherwise;
stop words count for nothing. `embeddings_reply` scripts a failure (`{"status": 500}`, `{"delay": s}`,
`{"raw": ...}`) for every embeddings call until it is set back to None.
"""

from __future__ import annotations

import hashlib
import json
import re
import threading
import time
from collections.abc import Callable
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

Reply = dict[str, Any] | Callable[[dict[str, Any]], dict[str, Any]]


class ScriptedLLM:
    def __init__(self) -> None:
        self.replies: list[Reply] = [empty_answer]
        self.requests: list[dict[str, Any]] = []
        self.embedding_requests: list[dict[str, Any]] = []
        self.embeddings_reply: dict[str, Any] | None = None
        self.dimensions = EMBEDDING_DIMENSIONS
        self._lock = threading.Lock()
        handler = self._handler()
        self.server = ThreadingHTTPServer(("127.0.0.1", 0), handler)
        self.server.daemon_threads = True
        self.thread = threading.Thread(target=self.server.serve_forever, daemon=True)
        self.thread.start()

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.server.server_address[1]}/v1"

    def script(self, *replies: Reply) -> None:
        """The replies to give, in order; the last one is repeated."""
        with self._lock:
            self.replies = list(replies)
            self.requests.clear()

    def close(self) -> None:
        self.server.shutdown()
        self.server.server_close()

    def _embeddings(self, request: dict[str, Any]) -> dict[str, Any]:
        with self._lock:
            self.embedding_requests.append(request)
            return self.embeddings_reply or {"embeddings": True}

    def _next(self, request: dict[str, Any]) -> dict[str, Any]:
        with self._lock:
            self.requests.append(request)
            reply = self.replies.pop(0) if len(self.replies) > 1 else self.replies[0]
        return reply(request) if callable(reply) else reply

    def _handler(self) -> type[BaseHTTPRequestHandler]:
        llm = self

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, format: str, *args: Any) -> None:
                return

            def do_POST(self) -> None:
                length = int(self.headers.get("Content-Length") or 0)
                request = json.loads(self.rfile.read(length) or b"{}")
                embeddings = self.path.rstrip("/").endswith("/embeddings")
                reply = llm._embeddings(request) if embeddings else llm._next(request)
                if reply.get("delay"):
                    # The behaviour a test scripted: a model that takes this long to answer.
                    time.sleep(float(reply["delay"]))
                status = int(reply.get("status", 200))
                if "raw" in reply:
                    body = str(reply["raw"]).encode()
                elif status != 200:
                    body = json.dumps({"error": {"message": reply.get("message", "scripted failure")}}).encode()
                elif embeddings:
                    body = json.dumps(embedding_list(request, llm.dimensions)).encode()
                else:
                    body = json.dumps(completion(reply, request)).encode()
                try:
                    self.send_response(status)
                    self.send_header("Content-Type", "application/json")
                    self.send_header("Content-Length", str(len(body)))
                    self.end_headers()
                    self.wfile.write(body)
                except (BrokenPipeError, ConnectionResetError):
                    return

        return Handler


def completion(reply: dict[str, Any], request: dict[str, Any]) -> dict[str, Any]:
    """A chat.completion object carrying the scripted message."""
    message: dict[str, Any] = {"role": "assistant", "content": reply.get("content")}
    finish = "stop"
    if reply.get("tool_calls"):
        message["tool_calls"] = [
            {"id": call.get("id", f"call_{i}"), "type": "function",
             "function": {"name": call["name"], "arguments": call["arguments"] if isinstance(call["arguments"], str) else json.dumps(call["arguments"])}}
            for i, call in enumerate(reply["tool_calls"])
        ]  # fmt: skip
        finish = "tool_calls"
    return {
        "id": "chatcmpl-scripted",
        "object": "chat.completion",
        "created": int(time.time()),
        "model": request.get("model", "scripted"),
        "choices": [{"index": 0, "message": message, "finish_reason": finish}],
        "usage": {"prompt_tokens": 11, "completion_tokens": 7, "total_tokens": 18},
    }


# The word the system message of each kind of call the app makes names it with (docs/model.md); an Analyst's turn,
# with tools, names none.
CALL_KINDS = ("EXTRACT", "CONTRADICTION", "COORDINATOR")
# The answer of each kind that says "nothing": no claims in the fragment, no judgement of any pair.
EMPTY_ANSWERS: dict[str | None, dict[str, Any]] = {"EXTRACT": {"claims": []}, "CONTRADICTION": {"judgements": []}}


def call_kind(request: dict[str, Any]) -> str | None:
    """The kind of call a chat request is, by the word its system message names it with (None: an Analyst's turn)."""
    messages = request.get("messages") or [{}]
    system = str(messages[0].get("content") or "") if messages[0].get("role") == "system" else ""
    return next((kind for kind in CALL_KINDS if kind in system), None)


def empty_answer(request: dict[str, Any]) -> dict[str, Any]:
    """The empty answer of the request's kind: `{"judgements": []}` to a contradiction judgement, `{"claims": []}`
    to anything else."""
    return json_reply(EMPTY_ANSWERS.get(call_kind(request), EMPTY_ANSWERS["EXTRACT"]))


def json_reply(value: Any, *, fenced: bool = False) -> dict[str, Any]:
    """A reply whose content is `value` as JSON, optionally inside a ```json fence with chatter around it."""
    text = json.dumps(value)
    return {"content": f"Here you go:\n```json\n{text}\n```\nDone." if fenced else text}


EMBEDDING_DIMENSIONS = 16
# Words that mean alike share an axis; the first axes are theirs, the others are shared by hashing.
CONCEPTS = [
    {"launch", "launches", "launched", "release", "released", "releases", "ship", "ships", "shipping", "rollout"},
    {"june"},
    {"budget", "cost", "costs", "eur", "money", "spend"},
    {"owns", "owner", "owned", "responsible", "lead"},
    {"office", "berlin", "moves", "move", "relocation"},
]
EMBEDDING_STOP_WORDS = {"the", "a", "an", "is", "are", "in", "of", "to", "when", "what", "who", "it", "on", "at"}


def embedding(text: str, dimensions: int = EMBEDDING_DIMENSIONS) -> list[float]:
    """The text's deterministic vector (unit length; all zeros but one axis for a text of no counted words)."""
    vector = [0.0] * dimensions
    for word in re.findall(r"\w+", text.lower()):
        if word in EMBEDDING_STOP_WORDS:
            continue
        axis = next((i for i, concept in enumerate(CONCEPTS) if word in concept), None)
        if axis is None:
            spare = dimensions - len(CONCEPTS)
            axis = len(CONCEPTS) + int(hashlib.sha256(word.encode()).hexdigest(), 16) % spare
        vector[axis] += 1.0
    norm = sum(x * x for x in vector) ** 0.5
    if not norm:
        vector[-1] = 1.0
        return vector
    return [x / norm for x in vector]


def embedding_list(request: dict[str, Any], dimensions: int) -> dict[str, Any]:
    """An embeddings answer (OpenAI's list shape) for the request's input, a string or a list of them."""
    texts = request.get("input")
    texts = [texts] if isinstance(texts, str) else list(texts or [])
    return {
        "object": "list",
        "model": request.get("model", "scripted-embedder"),
        "data": [
            {"object": "embedding", "index": i, "embedding": embedding(t, dimensions)} for i, t in enumerate(texts)
        ],
        "usage": {"prompt_tokens": len(texts), "total_tokens": len(texts)},
    }
