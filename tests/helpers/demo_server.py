"""The web demo (tools/demo/demo_app.py) under uvicorn in a thread on
127.0.0.1, and a multipart client (FastAPI's TestClient needs httpx, which
this environment lacks)."""
import json
import urllib.error
import urllib.request
from typing import Sequence, Tuple

import torch

from mmidc_lab.benchmarks.demo_load import multipart
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
    body, content_type = multipart(fields, files)
    request = urllib.request.Request(url, data=body, headers={
        'Content-Type': content_type})
    try:
        with urllib.request.urlopen(request, timeout=timeout) as response:
            return _reply(response.status, response.read())
    except urllib.error.HTTPError as err:
        return _reply(err.code, err.read())
