"""``palace serve``: the analysis board and the live companion in a web browser."""
from __future__ import annotations

import os

import click
from palace_solver.cli.common import fail


@click.command("serve")
@click.option("--host", default="127.0.0.1", show_default=True,
              help="Address to listen on. Only this machine by default; another address "
                   "(e.g. 0.0.0.0 for a phone on the same network) is your explicit "
                   "choice, and the page then shows a warning.")
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
@click.option("--open", "open_browser", is_flag=True, help="Open the page in a browser.")
def serve(host, port, sessions, max_seconds, parallel, open_browser):
    """Serve the analysis board and the live companion as a web page.

    \b
      palace serve                          # http://127.0.0.1:8000/
      palace serve --sessions ~/palace      # live sessions kept in ~/palace
      palace serve --host 0.0.0.0           # reachable from other machines (a warning)

    The page needs nothing from the internet. The JSON API (POST /api/analyze, the board
    and the live endpoints) is described in the README.
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
    runner = Runner(parallel=parallel, max_seconds=max_seconds)
    app = create_app(host=host, sessions=sessions, runner=runner)
    if not is_loopback(host):
        click.echo(f"palace: warning: serving on {host}: anyone who can reach this address "
                   f"can use the server and its session files", err=True)
    try:
        sock = _listen(host, port)
    except OSError as e:
        fail(f"cannot listen on {host}:{port}: {e.strerror or e}")
    runner.warm_up()
    h, p = sock.getsockname()[:2]
    url = f"http://{'[' + h + ']' if ':' in h else h}:{p}/"
    click.echo(f"palace serve: {url}  (Ctrl-C to stop)", err=True)
    if open_browser:
        import webbrowser
        webbrowser.open(url)
    config = uvicorn.Config(app, log_level="warning", timeout_graceful_shutdown=2)
    try:
        uvicorn.Server(config).run(sockets=[sock])
    except KeyboardInterrupt:
        pass


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
