"""The fake OpenAI server's batch endpoints: /v1/files (upload, retrieve, content) and /v1/batches (create,
retrieve, cancel, list), as OpenAI's Batch API answers them.

A batch's requests are answered by the chat endpoint's own logic (``when`` rules, the script, the
handler; cached tokens for a repeated prefix) when the batch is first asked after (by its id, or in the list)
once ``batch_delay`` seconds have passed since it was created. Each answer goes to the output file (a
200) or the error file (any other status), one JSON line each, as OpenAI writes them. The fake's
options, read at each request:

- ``batches=False``: neither endpoint exists (a 404, as Ollama, llama.cpp and plain vLLM answer);
- ``batch_delay``: seconds before a batch is finished (``in_progress`` until then);
- ``batch_expire=True``: a batch ends ``expired`` with nothing answered (each request in the error file as
  ``batch_expired``);
- ``cancel_batch(id)`` (or POST /v1/batches/{id}/cancel): ``cancelled``, nothing answered (``batch_cancelled``);
- ``lose_batch_creation=True``: the batch is created, and the answer to its creation is a 500;
- ``garble_batch_creation``: the answer to the creation is a 200 no client can read (cut-off JSON), the batch
  ``"created"`` all the same or ``"not created"``;
- ``batch_answer_ids``: a function from a request's ``custom_id`` to the one its answer line carries (an output
  file holding another batch's lines).

``batch_lines`` holds every request a batch carried, in the order answered.
"""

from __future__ import annotations

import email.parser
import email.policy
import itertools
import json
import threading
import time
from collections.abc import Callable
from typing import Any, Literal, Protocol

from .fake_replies import Body, Delay, Raw, Response, error
from .fake_requests import RecordedRequest

FILES, BATCHES = "/v1/files", "/v1/batches"
CHAT = "/v1/chat/completions"
GARBLED = Raw(b'{"id": "batch_', 200)  # a 200 cut off mid-answer: whether a batch was made cannot be read from it


class BatchOptions(Protocol):
    batches: bool
    batch_delay: float
    batch_expire: bool
    lose_batch_creation: bool
    garble_batch_creation: Literal["", "created", "not created"]
    batch_answer_ids: Callable[[str], str] | None

    def _chat_answer(self, record: RecordedRequest) -> tuple[int, dict[str, str], bytes]: ...


def is_batch_path(path: str) -> bool:
    return any(path == p or path.startswith(p + "/") for p in (FILES, BATCHES))


class Batches:
    """The uploaded files and the batches; guarded by the fake's one lock."""

    def __init__(self, lock: threading.Lock) -> None:
        self._lock = lock
        self.files: dict[str, dict[str, Any]] = {}
        self.contents: dict[str, bytes] = {}
        self.batches: dict[str, dict[str, Any]] = {}
        self.lines: list[Body] = []  # every request a batch carried, in the order answered
        self._ids = itertools.count(1)

    def answer(self, record: RecordedRequest, options: BatchOptions) -> Response | Body:
        if not options.batches:
            return error(404, f"Unknown request URL: {record.method} {record.path}", code="unknown_url")
        parts = record.path.rstrip("/").split("/")[2:]  # ["files", id, "content"] / ["batches", id, "cancel"]
        route = (record.method, parts[0], len(parts), parts[-1] if len(parts) == 3 else None)
        if route == ("POST", "files", 1, None):
            return self._upload(record)
        if route[:3] == ("GET", "files", 2):
            return self._file(parts[1])
        if route == ("GET", "files", 3, "content"):
            data = self.contents.get(parts[1])
            return Raw(data, content_type="application/octet-stream") if data is not None else _missing("file")
        if route == ("POST", "batches", 1, None):
            if options.garble_batch_creation == "not created":
                return GARBLED
            created = self._create(record.body)
            if options.garble_batch_creation == "created" and isinstance(created, dict):
                return GARBLED
            return error(500, "The server had an error while processing your request.", type="server_error") \
                if options.lose_batch_creation and isinstance(created, dict) else created
        if route == ("GET", "batches", 1, None):
            with self._lock:
                ids = [b["id"] for b in sorted(self.batches.values(), key=lambda b: b["created_at"], reverse=True)]
            listed = [self._retrieve(batch_id, options) for batch_id in ids]  # asked after, as by its id
            return {"object": "list", "data": listed, "first_id": None, "last_id": None, "has_more": False}
        if route[:3] == ("GET", "batches", 2):
            return self._retrieve(parts[1], options)
        if route == ("POST", "batches", 3, "cancel"):
            return self.cancel(parts[1])
        return error(404, f"Unknown request URL: {record.method} {record.path}", code="unknown_url")

    def _upload(self, record: RecordedRequest) -> Response | Body:
        fields = _multipart(record.headers.get("content-type", ""), record.raw_body)
        if "file" not in fields or fields.get("purpose", (None, b""))[1] != b"batch":
            return error(400, "a file and purpose 'batch' are required", param="file")
        name, data = fields["file"]
        file_id = f"file-fake{next(self._ids)}"
        with self._lock:
            self.contents[file_id] = data
            self.files[file_id] = {"id": file_id, "object": "file", "bytes": len(data), "created_at": int(time.time()),
                                   "filename": name or "upload.jsonl", "purpose": "batch", "status": "processed"}
            return dict(self.files[file_id])

    def _file(self, file_id: str) -> Response | Body:
        with self._lock:
            found = self.files.get(file_id)
            return dict(found) if found else _missing("file")

    def _create(self, body: Any) -> Response | Body:
        if not isinstance(body, dict) or body.get("input_file_id") not in self.contents:
            return error(400, "input_file_id names no uploaded file", param="input_file_id")
        if body.get("endpoint") != CHAT or body.get("completion_window") != "24h":
            return error(400, "endpoint must be /v1/chat/completions and completion_window 24h")
        batch_id = f"batch_fake{next(self._ids)}"
        lines = self.contents[body["input_file_id"]].splitlines()
        batch = {"id": batch_id, "object": "batch", "endpoint": CHAT, "errors": None,
                 "input_file_id": body["input_file_id"], "completion_window": "24h", "status": "in_progress",
                 "output_file_id": None, "error_file_id": None, "created_at": int(time.time()),
                 "in_progress_at": int(time.time()), "expires_at": int(time.time()) + 86400,
                 "completed_at": None, "expired_at": None, "cancelled_at": None,
                 "request_counts": {"total": len(lines), "completed": 0, "failed": 0},
                 "metadata": body.get("metadata") or {}}
        with self._lock:
            self.batches[batch_id] = batch
            batch["_at"] = time.monotonic()
            return _public(batch)

    def _retrieve(self, batch_id: str, options: BatchOptions) -> Response | Body:
        with self._lock:
            batch = self.batches.get(batch_id)
            due = batch is not None and batch["status"] == "in_progress" and not batch.get("_finishing") \
                and time.monotonic() - batch["_at"] >= options.batch_delay
            if due and batch is not None:
                batch["_finishing"] = True  # answered once, however many ask at once
        if batch is None:
            return _missing("batch")
        if due:
            self._finish(batch, "expired" if options.batch_expire else "completed", options)
        return _public(batch)

    def cancel(self, batch_id: str) -> Response | Body:
        """Cancel a batch not finished: nothing of it is answered."""
        with self._lock:
            batch = self.batches.get(batch_id)
            due = batch is not None and batch["status"] == "in_progress" and not batch.get("_finishing")
            if due and batch is not None:
                batch["_finishing"] = True
        if batch is None:
            return _missing("batch")
        if due:
            self._finish(batch, "cancelled", None)
        return _public(batch)

    def _finish(self, batch: dict[str, Any], status: str, options: BatchOptions | None) -> None:
        output: list[dict[str, Any]] = []
        errors: list[dict[str, Any]] = []
        renamed = options.batch_answer_ids if options is not None else None
        for n, raw in enumerate(self.contents[batch["input_file_id"]].splitlines(), start=1):
            line = json.loads(raw)
            if renamed is not None:
                line["custom_id"] = renamed(line["custom_id"])
            if status != "completed" or options is None:
                code = "batch_expired" if status == "expired" else "batch_cancelled"
                errors.append({"id": f"batch_req_{n}", "custom_id": line["custom_id"], "response": None,
                               "error": {"code": code, "message": f"This request could not be executed: {code}."}})
                continue
            self.lines.append(line["body"])
            record = RecordedRequest("POST", CHAT, {}, line["body"], json.dumps(line["body"]).encode())
            code_, _, payload = options._chat_answer(record)
            entry = {"id": f"batch_req_{n}", "custom_id": line["custom_id"], "error": None,
                     "response": {"status_code": code_, "request_id": f"req_b{n}", "body": json.loads(payload)}}
            (output if code_ == 200 else errors).append(entry)
        with self._lock:
            counts = {"total": len(output) + len(errors), "completed": len(output), "failed": len(errors)}
            batch.update(status=status, request_counts=counts, **{f"{status}_at": int(time.time())})
            for kind, entries in (("output_file_id", output), ("error_file_id", errors)):
                if entries:
                    file_id = f"file-fake{next(self._ids)}"
                    data = b"".join(json.dumps(e).encode() + b"\n" for e in entries)
                    self.contents[file_id] = data
                    self.files[file_id] = {"id": file_id, "object": "file", "bytes": len(data), "status": "processed",
                                           "created_at": int(time.time()), "filename": f"{kind}.jsonl",
                                           "purpose": "batch_output"}
                    batch[kind] = file_id


def settled(response: Response | Body) -> Response | Body:
    """A delay means nothing inside a batch: its answer is what it ends with."""
    while isinstance(response, Delay) and response.then is not None:
        response = response.then
    return response


def _public(batch: dict[str, Any]) -> Body:
    return {k: v for k, v in batch.items() if not k.startswith("_")}


def _missing(what: str) -> Response:
    return error(404, f"No such {what}", code=f"{what}_not_found")


def _multipart(content_type: str, raw: bytes) -> dict[str, tuple[str | None, bytes]]:
    """A multipart/form-data body's fields: name -> (file name, bytes)."""
    message = email.parser.BytesParser(policy=email.policy.HTTP).parsebytes(
        b"Content-Type: " + content_type.encode() + b"\r\n\r\n" + raw)
    fields: dict[str, tuple[str | None, bytes]] = {}
    for part in message.iter_parts() if message.is_multipart() else []:
        name = part.get_param("name", header="content-disposition")
        if isinstance(name, str):
            payload = part.get_payload(decode=True)
            fields[name] = (part.get_filename(), payload if isinstance(payload, bytes) else b"")
    return fields
