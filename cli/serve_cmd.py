"""``palace serve``: the analysis board and the live companion in a web browser."""
from __future__ import annotations

import os

import click
from palace_solver.cli.common import fail


@click.command("serve")
@click.option("--host", default="127.0.0.1", show_default=True,
              help="Address to listen on. Only this machine by default; another address "
                   "(e.g. 0.0.0.0 for a phone on the same network) is your explicit "
                   "choice: every request then needs the access token (printed at start "
                   "as a URL and a QR code).")
@click.option("--token", default=None, metavar="SECRET",
              help="The access token every request must carry (default: a new random one "
                   "when listening beyond this machine, none on loopback).")
@click.option("--port", type=click.IntRange(0, 65535), default=8000, show_default=True,
              help="Port to listen on (0: any free port, printed at start).")
@click.option("--sessions", "sessions", type=click.Path(file_okay=False), default=".",
              show_default=True,
              help="Directory of the live session files (the same files as 'palace live "
                   "--file/--resume'; one game, one file).")
@click.option("--max-seconds", type=click.FloatRange(min=1), default=300, show_default=True,
              help="Longest an analysis may run; it is stopped after that (a request's "
                   "\"time\" must be below it).")
@click.option("--parallel", type=click.IntRange(min=1), default=None,
              help="Analyses running at once (the others wait their turn). Default: the "
                   "number of cores.")
@click.option("--max-waiting", type=click.IntRange(min=0), default=None,
              help="Analyses that may wait for a turn; past that a request gets 503 at once. "
                   "Default: 8 for each of --parallel, at least 32.")
@click.option("--qr/--no-qr", default=True, show_default=True,
              help="With a token: print the URL as a QR code too, for a phone's camera.")
@click.option("--open", "open_browser", is_flag=True, help="Open the page in a browser.")
def serve(host, port, sessions, max_seconds, parallel, max_waiting, qr, open_browser, token):
    """Serve the analysis board and the live companion as a web page.

    \b
      palace serve                          # http://127.0.0.1:8000/
      palace serve --sessions ~/palace      # live sessions kept in ~/palace
      palace serve --host 0.0.0.0           # a phone at the table: open the URL (or
                                            # scan the QR code) printed at start

    The page needs nothing from the internet. The JSON API (POST /api/analyze, the board
    and the live endpoints) is described in docs/web.md of the repository.
    """
    try:
        import uvicorn

        from palace_solver.web.app import create_app, is_loopback
        from palace_solver.web.jobs import Runner
    except ImportError as e:
        fail(f"palace serve needs {e.name}: pip install starlette uvicorn")
    try:
        os.makedirs(sessions, exist_ok=True)
    except OSError as e:
        fail(f"--sessions {sessions}: {e.strerror or e}")
    if token is not None and not token.strip():
        fail("--token: an empty token")
    exposed = not is_loopback(host)
    if exposed and token is None:
        from palace_solver.web.access import new_token
        token = new_token()
    runner = Runner(parallel=parallel, max_seconds=max_seconds, max_waiting=max_waiting)
    app = create_app(host=host, sessions=sessions, runner=runner, token=token)
    try:
        sock = _listen(host, port)
    except OSError as e:
        fail(f"cannot listen on {host}:{port}: {e.strerror or e}")
    runner.warm_up()
    h, p = sock.getsockname()[:2]
    url = f"http://{_url_host(h)}:{p}/"
    if token is not None:
        from urllib.parse import quote
        url += f"?token={quote(token, safe='')}"
    if exposed:
        click.echo(f"palace serve: listening on {host}: every request needs the access token "
                   f"(the page keeps it once opened from this URL; keep it to yourself)",
                   err=True)
    click.echo(f"palace serve: {url}  (Ctrl-C to stop)", err=True)
    if token is not None and qr:
        _print_qr(url)
    if open_browser:
        import webbrowser
        webbrowser.open(url)
    config = uvicorn.Config(app, log_level="warning", timeout_graceful_shutdown=2)
    try:
        uvicorn.Server(config).run(sockets=[sock])
    except KeyboardInterrupt:
        pass


def _url_host(bound: str) -> str:
    """The host of the URL to open: this machine's address on its network when listening
    on every address (what a phone on the same network can reach), else the address."""
    if bound in ("0.0.0.0", "::"):
        import socket
        try:
            family = socket.AF_INET6 if bound == "::" else socket.AF_INET
            with socket.socket(family, socket.SOCK_DGRAM) as s:
                # no packet is sent: connect() on UDP only picks the outgoing address
                s.connect(("2001:db8::1", 9) if bound == "::" else ("192.0.2.1", 9))
                bound = s.getsockname()[0]
        except OSError:
            bound = "127.0.0.1" if bound == "0.0.0.0" else "::1"
    return f"[{bound}]" if ":" in bound else bound


def _print_qr(url: str) -> None:
    """The URL as a QR code in the terminal (segno: pure Python, no dependencies)."""
    try:
        import segno
    except ImportError:
        click.echo("palace serve: (pip install segno to see the URL as a QR code)", err=True)
        return
    import io
    buf = io.StringIO()
    segno.make(url, error="l").terminal(out=buf, compact=True)
    click.echo(buf.getvalue().rstrip("\n"), err=True)


def _listen(host: str, port: int):
    """A listening socket on ``host:port`` (IPv6 when the address says so)."""
    import socket

    family = socket.AF_INET6 if ":" in host.strip("[]") else socket.AF_INET
    infos = socket.getaddrinfo(host.strip("[]"), port, family, socket.SOCK_STREAM)
    sock = socket.socket(infos[0][0], socket.SOCK_STREAM)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    try:
        sock.bind(infos[0][4])
        sock.listen(128)
    except OSError:
        sock.close()
        raise
    sock.set_inheritable(True)
    return sock


COMMANDS = [serve]
