"""The report page in a real browser: headless Chromium (Debian's `chromium-headless-shell` or
`chromium`) driven by Playwright loads `index.html` from disk, and we read back whether every
image decoded, what the console said, how long the page took, and a screenshot."""

from __future__ import annotations

import shutil
from dataclasses import dataclass, field
from pathlib import Path

from schedlab.solvers.errors import InvalidInput

BROWSERS = ("chromium-headless-shell", "chromium", "chromium-browser")
#: As the machine's probe starts it: no network chatter, no sandbox (root), a fresh profile.
FLAGS = [
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--no-first-run",
]


#: Each image of the page: its alt text, and whether it loaded and decoded.
IMAGES_JS = "() => Array.from(document.images).map(i => [i.alt, i.complete && i.naturalWidth > 0])"


def find_browser() -> str | None:
    """The first Chromium binary on PATH, or None."""
    for name in BROWSERS:
        path = shutil.which(name)
        if path:
            return path
    return None


@dataclass
class PageCheck:
    images: int = 0
    broken: list[str] = field(default_factory=list)  # alt texts of images that did not decode
    console_errors: list[str] = field(default_factory=list)
    load_ms: float = 0.0
    screenshot: str = ""


def check_page(html: Path, screenshot: Path, width: int = 1280) -> PageCheck:
    """Load `html` in headless Chromium; return what decoded and what the console said."""
    browser_path = find_browser()
    if browser_path is None:
        raise InvalidInput("no Chromium here: apt-get install -y chromium-headless-shell")
    try:
        from playwright.sync_api import sync_playwright
    except ImportError:
        raise InvalidInput("the page check needs Playwright: pip install 'schedlab[dev]'") from None
    out = PageCheck(screenshot=str(screenshot))
    with sync_playwright() as pw:
        browser = pw.chromium.launch(executable_path=browser_path, args=FLAGS, headless=True)
        try:
            page = browser.new_page(viewport={"width": width, "height": 900})
            page.on(
                "console",
                lambda m: out.console_errors.append(m.text) if m.type == "error" else None,
            )
            page.on("pageerror", lambda e: out.console_errors.append(str(e)))
            page.goto(Path(html).resolve().as_uri(), wait_until="load")
            out.load_ms = float(
                page.evaluate(
                    "() => { const t = performance.getEntriesByType('navigation')[0];"
                    " return t ? t.loadEventEnd - t.startTime : -1; }"
                )
            )
            images = page.evaluate(IMAGES_JS)
            out.images = len(images)
            out.broken = [alt for alt, ok in images if not ok]
            page.screenshot(path=str(screenshot), full_page=False)
        finally:
            browser.close()
    return out
