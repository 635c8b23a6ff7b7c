"""The web demo (tools/demo/app.py) under uvicorn in a thread on 127.0.0.1,
and a multipart client (FastAPI's TestClient needs httpx, which this
environment lacks)."""
import json
import threading
import time
import urllib.error
import urllib.request
import uuid
from contextlib import contextmanager
from typing import Iterator, Sequence, Tuple

import torch

from . import free_port
from .tiny_models import captioner_cfg, retriever_cfg, save_checkpoint, write_config


def tiny_model_files(kind: str, folder) -> Tuple[str, str]:
    """(config, checkpoint) of a tiny random ``'captioner'`` or
    ``'retriever'`` saved in ``folder``."""
    import mmidc  # noqa: F401
    from mmidc.registry import MODELS
    cfg = dict(captioner=captioner_cfg, retriever=retriever_cfg)[kind]()
    torch.manual_seed(0)
    model = MODELS.build(cfg['model'])
    return (write_config(cfg, folder / f'{kind}.py'),
            save_checkpoint(model, folder / f'{kind}.pth'))


@contextmanager
def serve(app) -> Iterator[str]:
    """Serve ``app`` on a free port of 127.0.0.1; yields its base URL."""
    import uvicorn
    server = uvicorn.Server(uvicorn.Config(
        app, host='127.0.0.1', port=free_port(), log_level='warning'))
    thread = threading.Thread(target=server.run, daemon=True)
    thread.start()
    for _ in range(200):
        if server.started:
            break
        time.sleep(0.05)
    assert server.started, 'the demo server did not start in 10 s'
    try:
        yield f'http://127.0.0.1:{server.config.port}'
    finally:
        server.should_exit = True
        thread.join(timeout=10)


def _reply(status: int, body: bytes) -> Tuple[int, dict]:
    try:
        return status, json.loads(body)
    except ValueError:  # e.g. a plain-text 500
        return status, {'detail': body.decode(errors='replace')}


def get_json(url: str, timeout: float = 60) -> Tuple[int, dict]:
    """GET; returns (status, json body)."""
    try:
        with urllib.request.urlopen(url, timeout=timeout) as response:
            return _reply(response.status, response.read())
    except urllib.error.HTTPError as err:
        return _reply(err.code, err.read())


def post_form(url: str, fields: Sequence = (), files: Sequence = (),
              timeout: float = 60) -> Tuple[int, dict]:
    """multipart/form-data POST of ``(name, value)`` fields and ``(name,
    filename, content type, bytes)`` files; returns (status, json body)."""
    boundary = uuid.uuid4().hex
    parts = []
    for name, value in fields:
        parts.append(f'--{boundary}\r\nContent-Disposition: form-data; '
                     f'name="{name}"\r\n\r\n{value}\r\n'.encode())
    for name, filename, content_type, data in files:
        parts.append(f'--{boundary}\r\nContent-Disposition: form-data; '
                     f'name="{name}"; filename="{filename}"\r\nContent-Type: '
                     f'{content_type}\r\n\r\n'.encode() + data + b'\r\n')
    body = b''.join(parts) + f'--{boundary}--\r\n'.encode()
    request = urllib.request.Request(url, data=body, headers={
        'Content-Type': f'multipart/form-data; boundary={boundary}'})
    try:
        with urllib.request.urlopen(request, timeout=timeout) as response:
            return _reply(response.status, response.read())
    except urllib.error.HTTPError as err:
        return _reply(err.code, err.read())
