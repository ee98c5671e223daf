"""The explorer's web server (the standard library's): the page, and a JSON API over the model
that any client can drive.  It binds to loopback, answers only GET, reads nothing but its own
page and the review folder it is given, writes nothing, and refuses a request whose Host is
not its own address (a page elsewhere cannot reach it through a renamed host)."""

from __future__ import annotations

import functools
import json
import sys
from collections.abc import Callable
from http import HTTPStatus
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from importlib import resources
from urllib.parse import parse_qsl, urlsplit

from acp_suggestions.model.browse import jumps, walk
from acp_suggestions.model.browse.setting import Setting, Unreadable, from_query
from acp_suggestions.model.system import System

_PAGE = {
    "/": ("index.html", "text/html; charset=utf-8"),
    "/explorer.js": ("explorer.js", "text/javascript; charset=utf-8"),
    "/explorer.css": ("explorer.css", "text/css; charset=utf-8"),
}


@functools.lru_cache(maxsize=32)
def _system(setting: Setting) -> System:
    return System(setting.config)


def chart_svg(setting: Setting, path: tuple[int, ...]) -> bytes:
    """The run so far as the report draws its counterexamples: a sequence chart, in SVG."""
    import graphviz

    from acp_suggestions.model.render.msc import sequence_chart

    run = walk.follow(_system(setting), path)
    cfg = setting.config
    chart = sequence_chart("run", setting.title, cfg, run.worlds[0], run.steps)
    svg: bytes = graphviz.Source(chart.dot).pipe(format="svg")
    return svg


class Explorer:
    """What the server serves: the default setting, the review folder if any, and the
    shortest runs found so far."""

    def __init__(self, default: Setting, review: jumps.ReviewFolder | None = None) -> None:
        self.default, self.review = default, review
        self.shortest = jumps.Shortest()

    def _setting(self, query: dict[str, str]) -> Setting:
        return from_query(query, self.default)

    def state(self, query: dict[str, str]) -> dict[str, object]:
        """`GET /api/state?args=...|job=...&path=...`: the view of one state."""
        setting = self._setting(query)
        return walk.view(setting, _system(setting), walk.parse_path(query.get("path", "")))

    def chart(self, query: dict[str, str]) -> bytes:
        """`GET /api/chart.svg?...`: the run's sequence chart."""
        setting = self._setting(query)
        return chart_svg(setting, walk.parse_path(query.get("path", "")))

    def shortest_jump(self, query: dict[str, str]) -> dict[str, object]:
        """`GET /api/shortest?...&property=NAME`: the shortest run to where NAME breaks."""
        if "property" not in query:
            raise Unreadable("name the property: /api/shortest?...&property=NAME")
        return self.shortest.jump(self._setting(query), query["property"]).as_json()

    def counterexamples(self, query: dict[str, str]) -> dict[str, object]:
        """`GET /api/counterexamples`: the review folder's counterexamples, by name."""
        return {"counterexamples": self.review.listing() if self.review else []}

    def counterexample(self, query: dict[str, str]) -> dict[str, object]:
        """`GET /api/counterexample?name=NAME`: the path of one of the review's."""
        if self.review is None:
            raise Unreadable("no review folder: start the explorer with --review DIR")
        return self.review.jump(query.get("name", "")).as_json()

    def routes(self) -> dict[str, Callable[[dict[str, str]], object]]:
        """The API, by path."""
        return {
            "/api/state": self.state,
            "/api/chart.svg": self.chart,
            "/api/shortest": self.shortest_jump,
            "/api/counterexamples": self.counterexamples,
            "/api/counterexample": self.counterexample,
        }


def _reply(
    route: Callable[[dict[str, str]], object], query: dict[str, str]
) -> tuple[int, bytes, str]:
    """A route's answer to a query: its status, body and content type."""
    try:
        out = route(query)
    except Unreadable as exc:
        return HTTPStatus.BAD_REQUEST, _error(str(exc)), "application/json"
    except jumps.TooMuch as exc:
        return HTTPStatus.SERVICE_UNAVAILABLE, _error(str(exc)), "application/json"
    if isinstance(out, bytes):
        return HTTPStatus.OK, out, "image/svg+xml"
    return HTTPStatus.OK, json.dumps(out).encode(), "application/json"


def serve(explorer: Explorer, port: int = 0) -> ThreadingHTTPServer:
    """A server on 127.0.0.1 (`port` 0: a free one), not yet serving."""
    routes = explorer.routes()

    class Handler(BaseHTTPRequestHandler):
        def do_GET(self) -> None:
            host = self.headers.get("Host", "")
            port = self.server.server_port  # type: ignore[attr-defined]  # an HTTPServer's
            if host not in (f"127.0.0.1:{port}", f"localhost:{port}"):
                self._send(HTTPStatus.FORBIDDEN, _error(f"not this server's host: {host!r}"))
                return
            url = urlsplit(self.path)
            query = dict(parse_qsl(url.query, keep_blank_values=True))
            if url.path in _PAGE:
                name, kind = _PAGE[url.path]
                page = resources.files(__package__).joinpath("page", name).read_bytes()
                self._send(HTTPStatus.OK, page, kind)
            elif url.path in routes:
                self._answer(routes[url.path], query)
            else:
                self._send(HTTPStatus.NOT_FOUND, _error(f"no such page: {url.path}"))

        timeout = IDLE  # a connection that sends nothing for this long is closed

        def _answer(self, route: Callable[[dict[str, str]], object], query: dict[str, str]) -> None:
            self._send(*_reply(route, query))

        def _send(self, status: int, body: bytes, kind: str = "application/json") -> None:
            self.send_response(status)
            self.send_header("Content-Type", kind)
            self.send_header("Content-Length", str(len(body)))
            self.send_header("Cache-Control", "no-store")
            self.end_headers()
            self.wfile.write(body)

        def log_message(self, format: str, *args: object) -> None:
            """Quiet: the terminal shows the URL, not every request."""

    return _Server(("127.0.0.1", port), Handler)


IDLE = 15.0  # seconds a connection may stay silent


class _Server(ThreadingHTTPServer):
    """The standard threading server, with room for a browser's bursts and quiet about a
    client that went away: one line for any other fault of a request, not a traceback."""

    request_queue_size = 128

    def handle_error(self, request: object, client_address: object) -> None:
        fault = sys.exc_info()[1]
        if isinstance(fault, (ConnectionError, TimeoutError)):
            return
        print(f"acp-suggestions explore: a request failed: {fault!r}", file=sys.stderr)


def _error(message: str) -> bytes:
    return json.dumps({"error": message}).encode()
