"""A small generated web site served by the standard library on 127.0.0.1,
counting every hit, for real crawls in the tests.

Pages:

* ``/``: links to every article, to URL variants of some (tracking
  parameters, fragments), to ``/fail/0`` and to ``/list``;
* ``/a/<i>``: an article linking to two other articles and to ``/list``;
* ``/list``: a listing page linking to the first articles;
* ``/fail/<i>``: answers 500 the first time it is asked, 200 after.

Run as a script (``python tests/fixture_site.py N DELAY``) it serves in the
foreground and prints its address.
"""

from __future__ import annotations

import sys
import threading
import time
from collections import Counter
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from urllib.parse import urlsplit


class Site:
    """The site and its hit counter; ``delay`` seconds are spent per article."""

    def __init__(self, articles: int = 30, delay: float = 0.0) -> None:
        self.articles = articles
        self.delay = delay
        self.hits: Counter[str] = Counter()
        self.failed: set[str] = set()  # the /fail/ pages that already answered 500
        self._lock = threading.Lock()
        site = self

        class Handler(BaseHTTPRequestHandler):
            def do_GET(self) -> None:
                site._serve(self)

            def log_message(self, *args: object) -> None:
                pass

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.server.daemon_threads = True
        self.url = f"http://127.0.0.1:{self.server.server_address[1]}"
        self._thread = threading.Thread(target=self.server.serve_forever, daemon=True)

    def start(self) -> Site:
        self._thread.start()
        return self

    def stop(self) -> None:
        self.server.shutdown()
        self.server.server_close()

    def article_paths(self) -> list[str]:
        return [f"/a/{i}" for i in range(self.articles)]

    def fetched(self, prefix: str = "") -> Counter[str]:
        """Hits per path (query string dropped) since the last :meth:`reset_hits`."""
        with self._lock:
            return Counter({p: n for p, n in self.hits.items() if p.startswith(prefix)})

    def reset_hits(self) -> None:
        with self._lock:
            self.hits.clear()

    def _serve(self, handler: BaseHTTPRequestHandler) -> None:
        path = urlsplit(handler.path).path
        with self._lock:
            self.hits[path] += 1
            fail_now = path.startswith("/fail/") and path not in self.failed
            self.failed.add(path)
        status = 200
        n = self.articles
        if path == "/":
            links = [f"/a/{i}" for i in range(n)]
            links += ["/a/1?utm_source=news&utm_medium=email", "/a/2?gclid=xyz#comments", "/a/3#top"]
            links += ["/fail/0", "/list"]
        elif path.startswith("/a/"):
            i = int(path.rsplit("/", 1)[1])
            links = [f"/a/{(i + 1) % n}", f"/a/{(i * 7 + 3) % n}", "/list"]
            if self.delay:
                time.sleep(self.delay)  # simulated server latency
        elif path == "/list":
            links = [f"/a/{i}" for i in range(min(n, 5))]
        elif path.startswith("/fail/"):
            links = []
            status = 500 if fail_now else 200
        else:
            status, links = 404, []
        body = "<html><body>" + "".join(f'<a href="{href}">{href}</a> ' for href in links) + "</body></html>"
        data = body.encode()
        handler.send_response(status)
        handler.send_header("Content-Type", "text/html; charset=utf-8")
        handler.send_header("Content-Length", str(len(data)))
        handler.end_headers()
        handler.wfile.write(data)


if __name__ == "__main__":
    site = Site(int(sys.argv[1]), float(sys.argv[2])).start()
    print(site.url, flush=True)
    while True:
        time.sleep(3600)
