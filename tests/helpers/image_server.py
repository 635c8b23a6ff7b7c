"""A local HTTP server on 127.0.0.1 that serves Birds-to-Words-style photos
(``/photos/<photo id>/medium.jpg``, any query) for the download tests."""
import threading
from collections import Counter
from contextlib import contextmanager
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Dict, Iterator, Tuple
from urllib.parse import urlparse

from tests.helpers.pair_trees import bird_photo, jpeg_bytes


class ImageServer:
    """What the server answers, per URL path.

    Attributes:
        routes (dict): path -> ``(status, body)``; other paths get 404.
        failures_first (dict): path -> how many requests get a 503 before
            the route's answer.
        requests (Counter): requests per path.
        url (str): ``http://127.0.0.1:<port>``.
    """

    def __init__(self):
        self.routes: Dict[str, Tuple[int, bytes]] = {}
        self.failures_first: Dict[str, int] = {}
        self.requests = Counter()
        self.url = ''

    def serve_photo(self, photo: int, body: bytes = None) -> str:
        """Serve a photo (its generated JPEG unless ``body``); its path."""
        path = f'/photos/{photo}/medium.jpg'
        self.routes[path] = (200, jpeg_bytes(bird_photo(photo))
                             if body is None else body)
        return path

    def answer(self, path: str) -> Tuple[int, bytes]:
        self.requests[path] += 1
        if self.failures_first.get(path, 0) > 0:
            self.failures_first[path] -= 1
            return 503, b'busy'
        return self.routes.get(path, (404, b'<html>Not Found</html>'))


@contextmanager
def image_server() -> Iterator[ImageServer]:
    """Run an :class:`ImageServer` on 127.0.0.1 (a free port) for the
    ``with`` block; every request is answered within the server's own
    5 s socket time-out."""
    state = ImageServer()

    class Handler(BaseHTTPRequestHandler):
        timeout = 5

        def do_GET(self):  # noqa: N802 (http.server's name)
            status, body = state.answer(urlparse(self.path).path)
            self.send_response(status)
            self.send_header('Content-Type', 'image/jpeg' if status == 200
                             else 'text/html')
            self.send_header('Content-Length', str(len(body)))
            self.end_headers()
            self.wfile.write(body)

        def log_message(self, *args):
            pass

    server = ThreadingHTTPServer(('127.0.0.1', 0), Handler)
    server.daemon_threads = True
    state.url = f'http://127.0.0.1:{server.server_address[1]}'
    thread = threading.Thread(target=server.serve_forever,
                              kwargs=dict(poll_interval=0.05), daemon=True)
    thread.start()
    try:
        yield state
    finally:
        server.shutdown()
        server.server_close()
        thread.join(timeout=5)
