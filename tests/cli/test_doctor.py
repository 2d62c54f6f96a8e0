"""``gbot-robots doctor`` on real projects made by ``scrapy startproject``, run as a subprocess.

Each project is made in a temporary directory by Scrapy's own command, changed the way a user
would (a line appended to its settings module, a spider file), and checked by the real
console script from inside it. The checks themselves are also run on settings objects,
without a subprocess, for the cases a project would be slow to build for.
"""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from scrapy.settings import Settings

from scrapy_gbot_robots.cli._manners import Finding, Project, examine

SCRIPT = Path(sys.executable).parent / "gbot-robots"
ENTRY = [str(SCRIPT)] if SCRIPT.exists() else [sys.executable, "-m", "scrapy_gbot_robots"]
ADDON = 'ADDONS = {"scrapy_gbot_robots.Addon": 0}\n'
POLITE = (
    'USER_AGENT = "DemoBot/1.0 (+https://example.com/bot)"\n'
    'ROBOTSTXT_USER_AGENT = "DemoBot"\n'
    'GBOT_ROBOTS_PAGE_RULES = "obey"\n'
    # What Scrapy 2.13's template sets; 2.11's leaves 8 requests per site and no delay.
    "CONCURRENT_REQUESTS_PER_DOMAIN = 1\n"
    "DOWNLOAD_DELAY = 1\n"
)


def _env(**extra: str) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if k != "SCRAPY_SETTINGS_MODULE"}
    env.update(extra)
    return env


def startproject(tmp_path: Path, *lines: str) -> Path:
    """A project made by ``scrapy startproject demo``, with ``lines`` appended to settings."""
    subprocess.run(
        [sys.executable, "-m", "scrapy", "startproject", "demo", str(tmp_path / "demo")],
        check=True,
        capture_output=True,
        env=_env(),
        timeout=60,
    )
    root = tmp_path / "demo"
    with (root / "demo" / "settings.py").open("a", encoding="utf-8") as settings:
        settings.write("\n" + "".join(lines))
    return root


def doctor(
    cwd: Path, *args: str, env: dict[str, str] | None = None
) -> subprocess.CompletedProcess[str]:
    proc = subprocess.run(
        [*ENTRY, "doctor", "--color", "never", *args],
        cwd=cwd,
        capture_output=True,
        text=True,
        env=env or _env(),
        timeout=60,
        check=False,
    )
    assert "Traceback" not in proc.stderr, proc.stderr
    return proc


def codes(proc: subprocess.CompletedProcess[str]) -> dict[str, str]:
    data = json.loads(proc.stdout)
    return {f["code"]: f["level"] for f in data["findings"]}


def test_startprojects_defaults_with_the_addon_name_the_default_user_agent(
    tmp_path: Path,
) -> None:
    """The done-when: the default user agent is named, and nothing false is said (the
    template sets ROBOTSTXT_OBEY, and since Scrapy 2.13 one request per site and a 1 s delay;
    2.11's leaves the delay at 0, which doctor names too)."""
    root = startproject(tmp_path, ADDON)
    template = (root / "demo" / "settings.py").read_text(encoding="utf-8")
    paced = re.search(r"^DOWNLOAD_DELAY\s*=\s*[1-9]", template, re.MULTILINE) is not None
    text = doctor(root)
    assert text.returncode == 1
    assert "default-user-agent" in text.stdout and "Scrapy/" in text.stdout
    assert "settings: demo.settings" in text.stdout
    found = codes(doctor(root, "--json"))
    assert found == {
        "default-user-agent": "error",
        "page-rules-off": "warning",  # GBOT_ROBOTS_PAGE_RULES is off by default: true
        "http-cache-off": "info",
        **({} if paced else {"no-delay": "warning"}),
    }


def test_an_identifiable_user_agent_its_token_and_page_rules_obeyed_exit_0(
    tmp_path: Path,
) -> None:
    root = startproject(tmp_path, ADDON, POLITE)
    proc = doctor(root)
    assert proc.returncode == 0, proc.stdout
    assert "nothing wrong" in proc.stdout
    data = json.loads(doctor(root, "--json").stdout)
    assert data["ok"] is True and data["draft"] == "draft-illyes-webbotauth-cbcp-01"
    assert {f["level"] for f in data["findings"]} <= {"info"}


def test_without_the_addon_and_with_robots_txt_off(tmp_path: Path) -> None:
    root = startproject(tmp_path, POLITE)  # startproject's ADDONS = {}: Scrapy's own parser
    assert codes(doctor(root, "--json"))["not-googles-rules"] == "warning"
    off = doctor(root, "--json", "-s", "ROBOTSTXT_OBEY=False")
    assert off.returncode == 1 and codes(off)["robots-not-obeyed"] == "error"


def test_a_spiders_custom_settings_and_s_overrides_are_applied(tmp_path: Path) -> None:
    root = startproject(tmp_path, ADDON, POLITE)
    (root / "demo" / "spiders" / "fast.py").write_text(
        "import scrapy\n\n\n"
        "class FastSpider(scrapy.Spider):\n"
        '    name = "fast"\n'
        '    custom_settings = {"CONCURRENT_REQUESTS_PER_DOMAIN": 32, "DOWNLOAD_DELAY": 0}\n',
        encoding="utf-8",
    )
    assert doctor(root).returncode == 0  # the project alone
    proc = doctor(root, "--json", "--spider", "fast")
    assert proc.returncode == 1
    assert codes(proc) == {
        "many-requests-per-site": "warning",
        "no-delay": "warning",
        "http-cache-off": "info",
    }
    # -s is the command line's: it wins over the spider's custom_settings, as in a crawl.
    calmer = doctor(root, "--json", "--spider", "fast", "-s", "CONCURRENT_REQUESTS_PER_DOMAIN=1")
    assert calmer.returncode == 0
    default_ua = doctor(root, "--json", "-s", "USER_AGENT=Scrapy/2.13.0 (+https://scrapy.org)")
    assert codes(default_ua)["default-user-agent"] == "error"


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["--spider", "nope"], "no spider named 'nope'"),
        (["-s", "NO_EQUALS_SIGN"], "-s expects NAME=VALUE"),
    ],
)
def test_usage_errors_exit_2(tmp_path: Path, args: list[str], message: str) -> None:
    root = startproject(tmp_path, ADDON)
    proc = doctor(root, *args)
    assert proc.returncode == 2 and message in proc.stderr


def test_outside_a_project_exit_2_unless_scrapy_settings_module_says_where(
    tmp_path: Path,
) -> None:
    root = startproject(tmp_path, ADDON, POLITE)
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    proc = doctor(elsewhere)
    assert proc.returncode == 2 and "not inside a Scrapy project" in proc.stderr
    env = _env(SCRAPY_SETTINGS_MODULE="demo.settings", PYTHONPATH=str(root))
    assert doctor(elsewhere, env=env).returncode == 0


# -- the checks, on settings objects --------------------------------------------------------


def check(*, addon: bool = True, **values: Any) -> dict[str, Finding]:
    settings = Settings({"ROBOTSTXT_OBEY": True, **values})
    return {f.code: f for f in examine(Project(settings, addon=addon, middleware=False))}


POLITE_VALUES: dict[str, Any] = {
    "USER_AGENT": "DemoBot/1.0 (+https://example.com/bot)",
    "ROBOTSTXT_USER_AGENT": "DemoBot",
    "GBOT_ROBOTS_PAGE_RULES": "obey",
    "CONCURRENT_REQUESTS_PER_DOMAIN": 1,
}


def test_a_user_agent_without_a_url_or_without_the_token_is_a_warning() -> None:
    no_url = check(**{**POLITE_VALUES, "USER_AGENT": "DemoBot/1.0"})
    assert no_url["no-url-in-user-agent"].level == "warning"
    other = check(**{**POLITE_VALUES, "ROBOTSTXT_USER_AGENT": "OtherBot"})
    assert other["token-not-in-user-agent"].setting == "ROBOTSTXT_USER_AGENT"
    listed = check(**{**POLITE_VALUES, "ROBOTSTXT_USER_AGENT": ["DemoBot-News", "DemoBot"]})
    assert "token-not-in-user-agent" not in listed  # one of the crawler's tokens is carried
    unset = check(**{**POLITE_VALUES, "ROBOTSTXT_USER_AGENT": None})
    assert unset["token-from-user-agent"].level == "info"
    assert "'DemoBot'" in unset["token-from-user-agent"].means


def test_back_off_unknown_or_on_is_fine_and_off_is_a_warning() -> None:
    assert "backoff-off" not in check(**POLITE_VALUES)  # a release without the setting
    # Without the add-on nothing backs off either, but the finding is the missing add-on.
    bare = check(addon=False, **POLITE_VALUES, GBOT_ROBOTS_BACKOFF=False)
    assert "not-googles-rules" in bare and "backoff-off" not in bare
    assert "backoff-off" not in check(**POLITE_VALUES, GBOT_ROBOTS_BACKOFF=True)
    assert check(**POLITE_VALUES, GBOT_ROBOTS_BACKOFF="False")["backoff-off"].level == "warning"


def test_a_hand_written_chain_without_the_network_errors_middleware_is_told() -> None:
    """Our middleware named in DOWNLOADER_MIDDLEWARES without the add-on: network errors do
    not count toward the back-off until NetworkErrorsMiddleware is listed too (an info)."""
    ours = "scrapy_gbot_robots.middleware.GoogleRobotsTxtMiddleware"
    network = "scrapy_gbot_robots.crawl.network_errors_middleware.NetworkErrorsMiddleware"

    def by_hand(mws: dict[str, int], **values: Any) -> dict[str, Finding]:
        settings = Settings({"ROBOTSTXT_OBEY": True, **POLITE_VALUES, **values})
        settings.set("DOWNLOADER_MIDDLEWARES", mws)
        found = examine(Project(settings, addon=False, middleware=True))
        return {f.code: f for f in found}

    missing = by_hand({ours: 100})["network-errors-unseen"]
    assert missing.level == "info" and network in missing.fix
    assert "network-errors-unseen" not in by_hand({ours: 100, network: 580})
    assert "network-errors-unseen" not in by_hand({ours: 100}, GBOT_ROBOTS_BACKOFF=False)
    assert "network-errors-unseen" not in check(**POLITE_VALUES)  # the add-on adds it


def test_observe_mode_reads_page_rules_but_enforces_nothing() -> None:
    found = check(**{**POLITE_VALUES, "GBOT_ROBOTS_PAGE_RULES": None}, GBOT_ROBOTS_MODE="observe")
    assert found["observe-mode"].level == "warning" and "page-rules-off" not in found
    assert check(**{**POLITE_VALUES, "GBOT_ROBOTS_PAGE_RULES": "read"})[
        "page-rules-read-only"
    ].level == ("info")


def test_http_cache_policies_and_pace_per_ip() -> None:
    dummy = check(**POLITE_VALUES, HTTPCACHE_ENABLED=True)
    assert dummy["http-cache-ignores-headers"].level == "info"
    rfc = check(
        **POLITE_VALUES,
        HTTPCACHE_ENABLED=True,
        HTTPCACHE_POLICY="scrapy.extensions.httpcache.RFC2616Policy",
    )
    assert not rfc
    per_ip = check(**POLITE_VALUES, CONCURRENT_REQUESTS_PER_IP=20, AUTOTHROTTLE_ENABLED=True)
    assert per_ip["many-requests-per-site"].setting == "CONCURRENT_REQUESTS_PER_IP"
    assert "no-delay" not in per_ip  # AutoThrottle paces the site


def test_a_setting_the_plugin_refuses_is_an_error_naming_it() -> None:
    found = check(**POLITE_VALUES, GBOT_ROBOTS_TTL="soon")
    assert found["bad-setting"].setting == "GBOT_ROBOTS_TTL"
    assert found["bad-setting"].level == "error"
