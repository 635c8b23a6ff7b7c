"""A local HTTP server on 127.0.0.1 that serves Birds-to-Words-style photos
(``/photos/<photo id>/medium.jpg``, any query) for the download tests, and
raw servers that break HTTP (:func:`raw_http_server` with
:func:`bad_status_line`, :func:`long_header_line`,
:func:`one_byte_at_a_time`)."""
import socket
import threading
from collections import Counter
from contextlib import contextmanager
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Callable, Dict, Iterator, Tuple
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


def _read_request(conn, limit: int = 1 << 16) -> None:
    """Read a request's head (up to the blank line, at most ``limit``)."""
    data = b''
    while b'\r\n\r\n' not in data and len(data) < limit:
        chunk = conn.recv(4096)
        if not chunk:
            return
        data += chunk


def bad_status_line(conn, stop) -> None:
    """Answer with a status line that is not HTTP."""
    _read_request(conn)
    conn.sendall(b'HELLO THERE\r\n\r\n')


def long_header_line(conn, stop) -> None:
    """Answer 200 with a 70 KB header line (over http.client's 64 KiB)."""
    _read_request(conn)
    conn.sendall(b'HTTP/1.1 200 OK\r\nX-Padding: ' + b'a' * 70_000 +
                 b'\r\nContent-Length: 0\r\n\r\n')


def one_byte_at_a_time(interval: float = 0.2):
    """A responder that announces a 100 KB JPEG and sends one byte per
    ``interval`` seconds (until the client goes or the server stops)."""
    def respond(conn, stop):
        _read_request(conn)
        conn.sendall(b'HTTP/1.1 200 OK\r\nContent-Type: image/jpeg\r\n'
                     b'Content-Length: 100000\r\n\r\n')
        body = b'\xff\xd8\xff' + bytes(99_997)
        for byte in body:
            if stop.wait(interval):
                return
            conn.sendall(bytes([byte]))
    return respond


@contextmanager
def raw_http_server(respond: Callable, lifetime: float = 20.0
                    ) -> Iterator[str]:
    """A TCP server on 127.0.0.1 (a free port) that hands each connection
    to ``respond(conn, stop)`` on a thread, for servers that break HTTP.

    Self-stopping: ``stop`` (a ``threading.Event``) is set when the
    ``with`` block ends or ``lifetime`` seconds after the start, whichever
    comes first; each responder returns then (or within its connection's
    5 s time-out) and closes its connection. Yields its base URL.
    """
    stop = threading.Event()
    listener = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    listener.bind(('127.0.0.1', 0))
    listener.listen(16)
    listener.settimeout(0.05)

    def handle(conn):
        try:
            conn.settimeout(5)
            respond(conn, stop)
        except OSError:  # the client went away
            pass
        finally:
            conn.close()

    def serve():
        while not stop.is_set():
            try:
                conn, _ = listener.accept()
            except socket.timeout:
                continue
            except OSError:
                break
            threading.Thread(target=handle, args=(conn,), daemon=True).start()

    thread = threading.Thread(target=serve, daemon=True)
    thread.start()
    timer = threading.Timer(lifetime, stop.set)
    timer.daemon = True
    timer.start()
    try:
        yield f'http://127.0.0.1:{listener.getsockname()[1]}'
    finally:
        stop.set()
        timer.cancel()
        thread.join(timeout=5)
        listener.close()
