"""Open a page in headless Chromium over the DevTools protocol: its console errors, and
whether every image loaded (complete, with a width)."""

import asyncio
import json
import re
import shutil
import subprocess
import tempfile
import urllib.request
from dataclasses import dataclass
from pathlib import Path

import websockets

CHROMIUM = shutil.which("chromium") or shutil.which("chromium-browser")


@dataclass
class PageCheck:
    errors: list[str]
    images: int
    broken_images: list[str]


async def _check(ws_url: str, url: str, timeout_s: float) -> PageCheck:
    async with websockets.connect(ws_url, max_size=None) as ws:
        ids = iter(range(1, 10_000))
        pending: dict[int, asyncio.Future] = {}
        errors: list[str] = []
        loaded = asyncio.Event()

        async def reader() -> None:
            async for raw in ws:
                message = json.loads(raw)
                if "id" in message and message["id"] in pending:
                    pending.pop(message["id"]).set_result(message)
                method = message.get("method")
                params = message.get("params", {})
                if method == "Runtime.consoleAPICalled" and params.get("type") in (
                    "error",
                    "assert",
                ):
                    errors.append(" ".join(str(a.get("value")) for a in params.get("args", [])))
                elif method == "Runtime.exceptionThrown":
                    errors.append(params["exceptionDetails"].get("text", "exception"))
                elif method == "Log.entryAdded" and params["entry"]["level"] == "error":
                    errors.append(f"{params['entry'].get('text')} {params['entry'].get('url', '')}")
                elif method == "Page.loadEventFired":
                    loaded.set()

        async def call(method: str, **params: object) -> dict:
            i = next(ids)
            pending[i] = asyncio.get_running_loop().create_future()
            await ws.send(json.dumps({"id": i, "method": method, "params": params}))
            return await asyncio.wait_for(pending[i], timeout_s)

        task = asyncio.create_task(reader())
        try:
            for domain in ("Page", "Runtime", "Log"):
                await call(f"{domain}.enable")
            await call("Page.navigate", url=url)
            await asyncio.wait_for(loaded.wait(), timeout_s)
            script = (
                "JSON.stringify(Array.from(document.images).map("
                "i => [i.getAttribute('src'), i.complete && i.naturalWidth > 0]))"
            )
            result = await call("Runtime.evaluate", expression=script, returnByValue=True)
            images = json.loads(result["result"]["result"]["value"])
            await asyncio.sleep(0.2)  # late console messages
            return PageCheck(errors, len(images), [src for src, ok in images if not ok])
        finally:
            task.cancel()


def check_page(path: Path, timeout_s: float = 30) -> PageCheck:
    """Load file `path` in a fresh headless Chromium; what its console and images say."""
    assert CHROMIUM is not None, "chromium is not installed (scripts/setup.sh installs it)"
    with tempfile.TemporaryDirectory() as profile:
        browser = subprocess.Popen(
            [
                CHROMIUM, "--headless=new", "--no-sandbox", "--disable-gpu",
                "--remote-debugging-port=0", f"--user-data-dir={profile}", "about:blank",
            ],
            stderr=subprocess.PIPE,
            text=True,
        )  # fmt: skip
        try:
            assert browser.stderr is not None
            for line in browser.stderr:
                match = re.search(r"DevTools listening on (ws://\S+)", line)
                if match:
                    break
            else:
                raise RuntimeError("chromium did not start its DevTools server")
            browser_ws = match.group(1)
            port = browser_ws.split(":")[2].split("/")[0]
            request = urllib.request.Request(f"http://127.0.0.1:{port}/json/new", method="PUT")
            with urllib.request.urlopen(request, timeout=timeout_s) as response:
                target = json.loads(response.read())
            return asyncio.run(_check(target["webSocketDebuggerUrl"], path.as_uri(), timeout_s))
        finally:
            browser.kill()
            browser.wait()
