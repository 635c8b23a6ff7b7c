"""The local web demo (``tools/demo/app.py``): caption two images, show
attention maps and retrieval.

A FastAPI app over an :class:`IDCInferencer` (and optionally an
:class:`IDCRetrievalInferencer`) with a static HTML/JS page
(``static/`` beside this file; no CDN, nothing external); ``?example=N`` in the page's
URL captions example N on load. The model runs on one worker thread, so the
server keeps answering while it works; at most ``max_queue`` caption
requests are accepted at a time (more get a 503). Uploads are refused with a
4xx naming the upload: wrong type (415), too many bytes or pixels (413),
malformed (400), pair mismatch (422). A request body larger than two uploads
of the limit (:class:`BodyLimit`) is refused with a 413 on its
``Content-Length`` before it is read, or as soon as the bytes read pass the
limit: nothing past it reaches the temp folder.
"""
import asyncio
import base64
import io
import threading
import time
from concurrent.futures import ThreadPoolExecutor
from contextlib import asynccontextmanager, contextmanager
from pathlib import Path
from typing import Iterator, List, Optional, Sequence

__all__ = ['BodyLimit', 'create_app', 'load_candidates', 'serve_app']

STATIC_DIR = Path(__file__).resolve().parent / 'static'
ALLOWED_TYPES = ('image/png', 'image/jpeg', 'image/webp', 'image/bmp',
                 'image/tiff')
DEFAULT_MAX_UPLOAD_MB = 10.0
DEFAULT_MAX_MEGAPIXELS = 16.0
DEFAULT_MAX_QUEUE = 4
#: Bytes of a caption request besides its two images: the multipart
#: boundaries, part headers and form fields.
FORM_OVERHEAD_BYTES = 64 << 10


class BodyLimit:
    """ASGI middleware: refuse an HTTP request body over ``max_bytes`` with
    a 413, without reading (or storing) what lies past the limit.

    A ``Content-Length`` over the limit is answered before any of the body
    is read; a body without one (chunked) is counted as it is read and the
    request fails with a 413 (FastAPI's ``HTTPException``) once the count
    passes the limit.

    Args:
        app: The ASGI app.
        max_bytes (int): The largest body accepted.
        what (str): How to describe the limit in the message.
    """

    def __init__(self, app, max_bytes: int, what: str = ''):
        self.app = app
        self.max_bytes = max_bytes
        self.what = what

    def message(self, size: str) -> str:
        return (f'request body {size} is larger than the '
                f'{self.max_bytes / 2**20:.1f} MB allowed{self.what}')

    async def __call__(self, scope, receive, send):
        if scope['type'] != 'http':
            return await self.app(scope, receive, send)
        from fastapi import HTTPException
        from fastapi.responses import JSONResponse
        length = dict(scope.get('headers') or ()).get(b'content-length')
        if length is not None and length.strip().isdigit() and \
                int(length) > self.max_bytes:
            response = JSONResponse(
                dict(detail=self.message(f'of {int(length)} bytes')),
                status_code=413, headers={'Connection': 'close'})
            return await response(scope, receive, send)
        received = 0

        async def receive_limited():
            nonlocal received
            message = await receive()
            if message['type'] == 'http.request':
                received += len(message.get('body', b''))
                if received > self.max_bytes:
                    raise HTTPException(413, self.message(
                        f'of more than {self.max_bytes} bytes'))
            return message

        return await self.app(scope, receive_limited, send)


def create_app(captioner,
               ranker=None,
               examples: Sequence = (),
               candidates: Sequence[str] = (),
               max_upload_bytes: int = int(DEFAULT_MAX_UPLOAD_MB * 2**20),
               topk: int = 5,
               max_pixels: int = int(DEFAULT_MAX_MEGAPIXELS * 1e6),
               max_queue: int = DEFAULT_MAX_QUEUE):
    """The FastAPI app.

    The model runs on one worker thread, off the server's event loop, so
    the page and ``/api/info`` answer while a pair is being captioned. At
    most ``max_queue`` caption requests are accepted at a time (one running,
    the others waiting); more get a 503 with ``Retry-After``.

    Args:
        captioner (IDCInferencer): captions and attention maps.
        ranker (IDCRetrievalInferencer, optional): ranks ``candidates``.
        examples (Sequence[PairRecord]): pairs offered on the page.
        candidates (Sequence[str]): captions to rank for a pair.
        max_upload_bytes (int): largest accepted upload, per image; a
            request body over two of them (and
            :data:`FORM_OVERHEAD_BYTES`) is refused on its
            ``Content-Length`` or once that much is read (:class:`BodyLimit`).
        topk (int): retrieved captions shown.
        max_pixels (int): pixel budget per uploaded image; larger JPEGs are
            decoded at reduced size, other images refused with a 413.
        max_queue (int): caption requests accepted at a time.
    """
    from fastapi import FastAPI, File, Form, HTTPException, UploadFile
    from fastapi.responses import FileResponse
    from fastapi.staticfiles import StaticFiles

    from mmidc.apis import (ImageDecodeError, ImageInputError,
                            ImageTooLargeError, load_rgb_image)

    if max_queue < 1:
        raise ValueError(f'max_queue must be >= 1, got {max_queue}')
    value_range = getattr(captioner, 'value_range', None) or 'full'
    # one thread: one forward pass at a time, in arrival order
    model_thread = ThreadPoolExecutor(1, thread_name_prefix='demo-model')

    @asynccontextmanager
    async def lifespan(app):
        yield
        model_thread.shutdown(wait=False, cancel_futures=True)

    # No API pages and no schema: /docs, /redoc and /openapi.json are 404.
    app = FastAPI(title='mmidc demo', docs_url=None, redoc_url=None,
                  openapi_url=None, lifespan=lifespan)
    app.mount('/static', StaticFiles(directory=STATIC_DIR), name='static')
    app.add_middleware(
        BodyLimit, max_bytes=2 * max_upload_bytes + FORM_OVERHEAD_BYTES,
        what=f' (two images of at most {max_upload_bytes / 2**20:.1f} MB '
        'each)')
    app.state.queued = 0  # caption requests accepted and not yet answered
    examples = list(examples)
    candidates = list(dict.fromkeys(candidates))  # unique, order kept

    @app.get('/')
    def index():
        return FileResponse(STATIC_DIR / 'index.html')

    @app.get('/api/info')
    def info():
        return dict(
            # the page's subtitle: the loaded model's class, not a fixed name
            model=type(getattr(captioner, 'model', captioner)).__name__,
            examples=[dict(index=i, pair_id=e.pair_id, captions=e.captions)
                      for i, e in enumerate(examples)],
            retrieval=ranker is not None and bool(candidates),
            num_candidates=len(candidates),
            max_upload_mb=max_upload_bytes / 2**20,
            max_megapixels=max_pixels / 1e6,
            queued=app.state.queued, max_queue=max_queue)

    @app.get('/api/examples/{index}/{side}')
    def example_image(index: int, side: str):
        if not 0 <= index < len(examples) or side not in ('before', 'after'):
            raise HTTPException(404, f'no example {index}/{side}')
        example = examples[index]
        return FileResponse(example.img1 if side == 'before' else example.img2)

    async def read_upload(upload: UploadFile, field: str) -> bytes:
        if upload.content_type not in ALLOWED_TYPES:
            raise HTTPException(
                415, f'{field} ({upload.filename}): unsupported type '
                f'{upload.content_type!r}; send PNG, JPEG, WebP, BMP or TIFF')
        data = await upload.read(max_upload_bytes + 1)
        if len(data) > max_upload_bytes:
            raise HTTPException(
                413, f'{field} ({upload.filename}): larger than the '
                f'{max_upload_bytes / 2**20:.1f} MB limit')
        if not data:
            raise HTTPException(400, f'{field} ({upload.filename}): empty file')
        return data

    def run_model(pair, names, decode) -> dict:
        """Decode, caption, draw and rank one pair (on the model thread)."""
        # decoded as the captioner reads images (its config's value_range:
        # 16-bit and float PNG/TIFF mapped to 8 bits as in training)
        images = [load_rgb_image(img, max_pixels, name, value_range)
                  for img, name in zip(pair, names)]
        result = captioner(*images, **decode)
        figure = captioner.visualize_attention(*images, title=result['caption'])
        retrieved = (ranker.rank_captions(*images, candidates, topk)
                     if ranker is not None and candidates else [])
        return dict(result, attention_png=_png_data_url(figure),
                    retrieved=retrieved)

    @app.post('/api/caption')
    async def caption(before: Optional[UploadFile] = File(None),
                      after: Optional[UploadFile] = File(None),
                      example: Optional[int] = Form(None),
                      beam: int = Form(1)):
        if not 1 <= beam <= 10:
            raise HTTPException(422, f'beam must be in 1..10, got {beam}')
        if app.state.queued >= max_queue:
            raise HTTPException(
                503, f'busy: {app.state.queued} pairs are being captioned; '
                'try again in a few seconds', headers={'Retry-After': '5'})
        app.state.queued += 1  # the event loop's thread only: no lock
        try:
            if example is not None:
                if not 0 <= example < len(examples):
                    raise HTTPException(404, f'no example {example}')
                pair = (examples[example].img1, examples[example].img2)
                names = [Path(p).name for p in pair]
            elif before is not None and after is not None:
                pair = (await read_upload(before, 'before'),
                        await read_upload(after, 'after'))
                names = [f'before ({before.filename})',
                         f'after ({after.filename})']
            else:
                raise HTTPException(422, 'send two images (before, after) or '
                                    'an example index')
            decode = dict(strategy='beam', beam_size=beam) if beam > 1 \
                else dict(strategy='greedy')
            return await asyncio.get_running_loop().run_in_executor(
                model_thread, run_model, pair, names, decode)
        except ImageTooLargeError as err:
            raise HTTPException(413, str(err))
        except ImageDecodeError as err:
            raise HTTPException(400, str(err))
        except ImageInputError as err:  # e.g. a bad array
            raise HTTPException(422, str(err))
        finally:
            app.state.queued -= 1

    return app


def _png_data_url(image) -> str:
    from PIL import Image
    buffer = io.BytesIO()
    Image.fromarray(image).save(buffer, format='PNG')
    return 'data:image/png;base64,' + base64.b64encode(buffer.getvalue()).decode()


def load_candidates(path: Optional[str], examples: Sequence) -> List[str]:
    """Captions to rank: one a line from ``path``, else the examples'."""
    if path:
        lines = Path(path).read_text(encoding='utf-8').splitlines()
        return [line.strip() for line in lines if line.strip()]
    return [c for e in examples for c in e.captions]


@contextmanager
def serve_app(app, timeout: float = 30) -> Iterator[str]:
    """Serve ``app`` with uvicorn in a thread, on a free port of 127.0.0.1;
    yields its base URL and stops the server on exit.

    Raises:
        RuntimeError: The server did not start within ``timeout`` seconds.
    """
    import uvicorn
    server = uvicorn.Server(uvicorn.Config(
        app, host='127.0.0.1', port=0, log_level='warning'))
    thread = threading.Thread(target=server.run, daemon=True)
    thread.start()
    deadline = time.monotonic() + timeout
    while not server.started and time.monotonic() < deadline:
        time.sleep(0.05)
    try:
        if not server.started:
            raise RuntimeError(f'the demo server did not start within '
                               f'{timeout:g} s')
        port = server.servers[0].sockets[0].getsockname()[1]
        yield f'http://127.0.0.1:{port}'
    finally:
        server.should_exit = True
        thread.join(timeout=timeout)
