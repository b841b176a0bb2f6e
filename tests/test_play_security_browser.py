"""Another site's page against the table, in a real browser (Debian's chromium by Playwright):
the cross-site requests the audit of issue 42 made (a `text/plain` POST, a form, a JSON fetch,
a read of the records) reach nothing and make no game, while the table's own page plays."""

from __future__ import annotations

import json
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import pytest

from tests.test_play_browser import CHROMIUM, LAUNCH_ARGS, _free_port

pytestmark = pytest.mark.skipif(CHROMIUM is None, reason="no chromium on this machine (Debian: apt-get install -y "
                                                         "chromium): the test needs a real browser")

GAME = {"game": "python_page_one", "params": {"players": 2}, "bots": {"1": "rules"}}


def _other_site(table_url: str) -> tuple[ThreadingHTTPServer, str]:
    """A page on another origin (another port) that tries every way of reaching the table."""
    body = json.dumps(GAME)
    page = f"""<!doctype html><html><body>
<form id="f" method="POST" action="{table_url}api/games" enctype="text/plain" target="sink">
  <input name='{body[:-1]}, "x": "' value='"}}'></form>
<iframe name="sink"></iframe>
<script>
window.results = {{}};
async function attempt(name, request) {{
  try {{ const r = await request(); window.results[name] = r.type === "opaque" ? "opaque" : r.status; }}
  catch (e) {{ window.results[name] = "blocked"; }}
}}
(async () => {{
  await attempt("beacon", () => fetch("{table_url}api/games", {{method: "POST", mode: "no-cors",
    headers: {{"Content-Type": "text/plain"}}, body: {json.dumps(body)}}}));
  await attempt("json", () => fetch("{table_url}api/games", {{method: "POST",
    headers: {{"Content-Type": "application/json"}}, body: {json.dumps(body)}}}));
  await attempt("read", () => fetch("{table_url}api/records"));
  document.getElementById("f").submit();
  window.done = true;
}})();
</script></body></html>""".encode()

    class Handler(BaseHTTPRequestHandler):
        def do_GET(self) -> None:
            self.send_response(200)
            self.send_header("Content-Type", "text/html")
            self.end_headers()
            self.wfile.write(page)

        def log_message(self, *args) -> None:
            pass

    site = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    threading.Thread(target=site.serve_forever, daemon=True).start()
    return site, f"http://127.0.0.1:{site.server_address[1]}/"


def test_another_sites_page_makes_no_game_and_reads_nothing(tmp_path):
    import uvicorn
    from playwright.sync_api import sync_playwright

    from play.server import Table, create_app
    table = Table(tmp_path / "records", pause=0.0)
    port = _free_port()
    server = uvicorn.Server(uvicorn.Config(create_app(table, port=port), host="127.0.0.1", port=port,
                                           log_level="warning", lifespan="off"))
    thread = threading.Thread(target=server.run, daemon=True)
    thread.start()
    site, site_url = None, None
    try:
        while not server.started:
            assert thread.is_alive(), "uvicorn did not start"
            time.sleep(0.02)
        site, site_url = _other_site(f"http://127.0.0.1:{port}/")
        with sync_playwright() as p:
            browser = p.chromium.launch(executable_path=CHROMIUM, args=LAUNCH_ARGS)
            page = browser.new_page()
            page.goto(site_url)
            page.wait_for_function("window.done === true", timeout=30_000)
            page.wait_for_timeout(500)          # the form's POST lands in its frame
            results = page.evaluate("window.results")
            frame = page.frame(name="sink").content()
            # The table's own page, in the same browser, plays.
            page.goto(f"http://127.0.0.1:{port}/")
            page.wait_for_selector("[data-testid=start-game]")
            own = page.evaluate(f"fetch('/api/games', {{method: 'POST', headers: {{'Content-Type': "
                                f"'application/json'}}, body: {json.dumps(json.dumps(GAME))}}}).then(r => r.status)")
            browser.close()
    finally:
        server.should_exit = True
        thread.join(10)
        if site is not None:
            site.shutdown()
    assert results == {"beacon": "opaque", "json": "blocked", "read": "blocked"}, results
    assert "request from the page of another site" in frame
    assert own == 200 and len(table.sessions) == 1       # only the table's own page made a game
