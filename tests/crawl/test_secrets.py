"""A Redis password never reaches any output of a crawl (issue 24, item 5).

Real ``scrapy runspider`` processes, a real password-protected ``redis-server`` (TCP on
127.0.0.1 and ::1, and a unix socket), a real HTTP server on 127.0.0.1. The password is given
in each form redis-py reads: the userinfo (with and without a user name), the ``password``
query key on a TCP URL and on a ``unix://`` socket, and an IPv6 host. Each form runs:

- a crawl that uses the store and, through scrapy-redis, the fleet's lot, with the log
  in ``LOG_FILE`` and the audit report in JSON and HTML;
- a crawl whose Redis cannot be reached, logging on stderr (the outage and close WARNINGs,
  which printed a ``?password=`` before);
- the start-up errors: a reactor other than asyncio's, a malformed port, an IPv6 host without
  its closing bracket, no redis client installed.

Everything a user could see is read back: stdout, stderr, the log file, both reports, the
stats (every value, printed by the spider at the end). The password is in none of them.
"""

from __future__ import annotations

import json
import os
import subprocess
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
import pytest_twisted
from _httpserver import Server
from _procs import CrawlProcess, finish, reap, spawn
from _redisserver import RedisServer, free_port, missing

_MISSING = missing(scrapy_redis=True)
pytestmark = [pytest.mark.crawl, pytest.mark.skipif(_MISSING is not None, reason=str(_MISSING))]

PASSWORD = "Pw7-s3cr3t_zq"
RULES = b"User-agent: *\nDisallow: /private/\n"
ASYNCIO = "twisted.internet.asyncioreactor.AsyncioSelectorReactor"

SPIDER = """
import json
from _subspider import StartUrlsSpider


class SecretSpider(StartUrlsSpider):
    name = "secret"

    def stopped(self):
        super().stopped()
        every = self.crawler.stats.get_stats()
        print("ALLSTATS " + json.dumps(every, default=str, sort_keys=True), flush=True)
"""


#: The passphrase of the TLS client key (``ssl_password``, issue 46, item 2): a second secret.
KEY_PASSWORD = "Kp46-tls_k3y_pass"


@dataclass(frozen=True)
class Tls:
    """A TLS port of the test's Redis and a client certificate whose key needs a passphrase."""

    port: int
    cert: Path
    key: Path


def _tls_files(directory: Path) -> tuple[list[str], Tls]:
    """The server's TLS arguments and the client's files, made with ``openssl`` (1 day)."""
    directory.mkdir(parents=True, exist_ok=True)
    paths = {name: directory / f"{name}.pem" for name in ("scert", "skey", "ccert", "ckey")}
    subj = ("-days", "1", "-subj", "/CN=localhost")
    base = ("openssl", "req", "-x509", "-newkey", "rsa:2048", *subj)
    server = (*base, "-nodes", "-keyout", str(paths["skey"]), "-out", str(paths["scert"]))
    client = (*base, "-keyout", str(paths["ckey"]), "-out", str(paths["ccert"]))
    subprocess.run(server, check=True, capture_output=True, timeout=60)
    subprocess.run(
        [*client, "-passout", f"pass:{KEY_PASSWORD}"], check=True, capture_output=True, timeout=60
    )
    tls = Tls(free_port(), paths["ccert"], paths["ckey"])
    args = [
        "--tls-port", str(tls.port),
        "--tls-cert-file", str(paths["scert"]),
        "--tls-key-file", str(paths["skey"]),
        "--tls-ca-cert-file", str(paths["scert"]),
        "--tls-auth-clients", "no",
    ]  # fmt: skip
    return args, tls


@pytest.fixture
def rs(tmp_path: Path) -> Iterator[RedisServer]:
    socket_path = tmp_path / "r.sock"
    tls_args, tls = _tls_files(tmp_path / "tls")
    server = RedisServer(
        tmp_path / "redis",
        password=PASSWORD,
        args=("--bind", "127.0.0.1", "::1", "--unixsocket", str(socket_path), *tls_args),
    )
    server.socket_path = socket_path  # type: ignore[attr-defined]
    server.tls = tls  # type: ignore[attr-defined]
    try:
        server.start()
        yield server
    finally:
        server.stop()


def forms(port: int, socket_path: Path, tls: Tls | None = None) -> dict[str, str]:
    """Each way redis-py takes a password; each form its own database (no shared queue).

    ``tls`` (the server's TLS port, or a dead one): the TLS client key's passphrase in the
    ``ssl_password`` query key, which redis-py hands to TLS.
    """
    tls = tls or Tls(port, socket_path.with_suffix(".cert"), socket_path.with_suffix(".key"))
    return {
        "userinfo": f"redis://:{PASSWORD}@127.0.0.1:{port}/1",
        "user and password": f"redis://default:{PASSWORD}@127.0.0.1:{port}/2",
        "query": f"redis://127.0.0.1:{port}/3?password={PASSWORD}",
        "unix socket": f"unix://{socket_path}?password={PASSWORD}&db=4",
        "ipv6": f"redis://:{PASSWORD}@[::1]:{port}/5",
        "tls key passphrase": (
            f"rediss://:{PASSWORD}@127.0.0.1:{tls.port}/6?ssl_cert_reqs=none"
            f"&ssl_certfile={tls.cert}&ssl_keyfile={tls.key}&ssl_password={KEY_PASSWORD}"
        ),
    }


def _args(tmp: Path, url: str, *extra: str) -> list[str]:
    return [
        "runspider", str(tmp / "secret_spider.py"),
        "-s", "ROBOTSTXT_OBEY=True",
        "-s", 'ADDONS={"scrapy_gbot_robots.Addon": 0}',
        "-s", f"GBOT_ROBOTS_STORE={url}",
        "-s", f"TWISTED_REACTOR={ASYNCIO}",
        "-s", "GBOT_ROBOTS_PARK_TIMEOUT=2",
        "-s", "GBOT_ROBOTS_TICK=0.1",
        "-s", "GBOT_ROBOTS_RETRY_TIMES=0",
        "-s", "RETRY_ENABLED=False",
        "-s", "TELNETCONSOLE_ENABLED=False",
        "-s", "REMOTE_CONTROL_ENABLED=False",
        "-s", "LOG_LEVEL=DEBUG",
        "-s", "CLOSESPIDER_TIMEOUT=40",
        *extra,
    ]  # fmt: skip


def _spawn(name: str, tmp: Path, url: str, urls: list[str], *extra: str, **env: str) -> Any:
    (tmp / "secret_spider.py").write_text(SPIDER)
    start = tmp / f"start-{name}.json"
    start.write_text(json.dumps(urls))
    return spawn(name, _args(tmp, url, *extra), {"START_URLS": str(start), **env}, tmp)


def _files(tmp: Path, name: str) -> dict[str, str]:
    """The files a run wrote (log, reports), by name, as text."""
    return {
        p.name: p.read_text("utf-8", "replace")
        for p in tmp.glob(f"{_slug(name)}*")
        if p.suffix in (".log", ".json", ".html")
    }


def _slug(name: str) -> str:
    return name.replace(" ", "-")


def _assert_no_secret(name: str, proc: CrawlProcess, files: dict[str, str]) -> None:
    every = {"output (stdout and stderr)": proc.text(), **files}
    for where, text in every.items():
        assert PASSWORD not in text, f"{name}: the password is in {where}:\n{text[-3000:]}"
        assert KEY_PASSWORD not in text, f"{name}: the key's passphrase is in {where}"


@pytest_twisted.ensureDeferred
async def test_no_password_in_any_output_of_a_crawl_that_uses_redis(
    rs: RedisServer, server: Server, tmp_path: Path
) -> None:
    server.route("/robots.txt", body=RULES)
    urls = [server.url("/a"), server.url("/private/b")]
    procs: list[CrawlProcess] = []
    try:
        every = forms(rs.port, rs.socket_path, rs.tls)  # type: ignore[attr-defined]
        for name, url in every.items():
            slug = _slug(name)
            extra = (
                "-s", f"LOG_FILE={slug}.log",
                "-s", f"GBOT_ROBOTS_REPORT={slug}-report.json,{slug}-report.html",
                # The fleet: scrapy-redis's scheduler, so requests park in the Redis lot.
                "-s", "SCHEDULER=scrapy_redis.scheduler.Scheduler",
                "-s", "DUPEFILTER_CLASS=scrapy_redis.dupefilter.RFPDupeFilter",
                "-s", f"REDIS_URL={url}",
            )  # fmt: skip
            procs.append(_spawn(slug, tmp_path, url, urls, *extra))
        codes = [await finish(proc, 90) for proc in procs]
        for name, proc, code in zip(every, procs, codes, strict=True):
            files = _files(tmp_path, name)
            log = files[f"{_slug(name)}.log"]
            assert code == 0, log[-3000:]
            assert f"CRAWLED {urls[0]}" in log, log[-3000:]
            assert "Parking requests in Redis" in log  # the lot was used
            assert {f"{_slug(name)}-report.json", f"{_slug(name)}-report.html"} <= set(files)
            assert "ALLSTATS " in proc.text() and "robotstxt/forbidden" in proc.text()
            _assert_no_secret(name, proc, files)
        client = rs.client()
        for db in range(1, 7):
            client.select(db)
            assert client.keys("gbot_robots:origin:*"), f"db {db}: the store was not used"
    finally:
        await reap(procs)


@pytest_twisted.ensureDeferred
async def test_no_password_in_the_warnings_of_an_unreachable_redis(
    server: Server, tmp_path: Path
) -> None:
    """The outage WARNING and the close WARNING showed a ``?password=`` in clear."""
    server.route("/robots.txt", body=RULES)
    urls = [server.url("/a")]
    procs: list[CrawlProcess] = []
    try:
        _, tls = _tls_files(tmp_path / "tls")
        dead = forms(free_port(), tmp_path / "no.sock", Tls(free_port(), tls.cert, tls.key))
        for name, url in dead.items():
            procs.append(_spawn(_slug(name) + "-down", tmp_path, url, urls))
        codes = [await finish(proc, 90) for proc in procs]
        for name, proc, code in zip(dead, procs, codes, strict=True):
            text = proc.text()
            assert code == 0, text[-3000:]
            warnings = [line for line in text.splitlines() if "unreachable" in line]
            assert len(warnings) == 1 and "***" in warnings[0], text[-3000:]
            assert "could not be written before closing" in text
            _assert_no_secret(name, proc, _files(tmp_path, name + "-down"))
    finally:
        await reap(procs)


def _fake_redis_package(tmp: Path) -> Path:
    """A ``redis`` package that cannot be imported, first on the path: the client missing."""
    root = tmp / "no-redis"
    (root / "redis").mkdir(parents=True, exist_ok=True)
    (root / "redis" / "__init__.py").write_text('raise ImportError("no redis client (test)")\n')
    return root


@pytest_twisted.ensureDeferred
async def test_start_up_errors_name_the_store_without_its_password_in_one_line(
    server: Server, tmp_path: Path
) -> None:
    """"needs Scrapy's asyncio reactor" and "needs the redis client" embedded the raw URL; a
    malformed port made ``redacted()`` itself raise (a traceback); on a reactor other than
    asyncio's, Twisted printed an "Unhandled error in Deferred" traceback with the URL."""
    tests_dir = str(Path(__file__).resolve().parents[1])
    port = free_port()
    cases: dict[str, tuple[str, tuple[str, ...], dict[str, str], str]] = {
        "reactor": (
            f"redis://:{PASSWORD}@127.0.0.1:{port}/0",
            ("-s", "TWISTED_REACTOR=twisted.internet.selectreactor.SelectReactor"),
            {},
            "needs Scrapy's asyncio reactor",
        ),
        "reactor, query": (
            f"unix://{tmp_path}/r.sock?password={PASSWORD}",
            ("-s", "TWISTED_REACTOR=twisted.internet.selectreactor.SelectReactor"),
            {},
            "unix://",
        ),
        "port": (f"redis://u:{PASSWORD}@127.0.0.1:63a9/0", (), {}, "not a usable Redis URL"),
        "ipv6": (f"redis://u:{PASSWORD}@[::1:6379/0", (), {}, "not a usable Redis URL"),
        # Issue 46, item 2: an unencoded '#' or '?' in the password; the parser's message
        # quoted the piece before it.
        "hash": (f"redis://u:{PASSWORD}#x@127.0.0.1:{port}/0", (), {}, "not a usable Redis URL"),
        "question": (f"redis://u:{PASSWORD}?x@127.0.0.1:{port}/0", (), {}, "not a usable"),
        "client": (
            f"redis://:{PASSWORD}@127.0.0.1:{port}/0",
            (),
            {"PYTHONPATH": os.pathsep.join((str(_fake_redis_package(tmp_path)), tests_dir))},
            "needs the redis client",
        ),
    }
    procs: list[CrawlProcess] = []
    try:
        for name, (url, extra, env, _) in cases.items():
            procs.append(_spawn(_slug(name), tmp_path, url, [server.url("/a")], *extra, **env))
        codes = [await finish(proc, 60) for proc in procs]
        for (name, (_url, _, _, expected)), proc, code in zip(
            cases.items(), procs, codes, strict=True
        ):
            text = proc.text()
            errors = [line for line in text.splitlines() if " ERROR: " in line]
            assert code != 0, text[-3000:]
            assert len(errors) == 1, f"{name}:\n{text[-3000:]}"
            assert "Invalid setting: GBOT_ROBOTS_STORE: " in errors[0] and expected in errors[0]
            assert "***" in errors[0]
            assert "Traceback" not in text and "Unhandled error" not in text, text[-3000:]
            _assert_no_secret(name, proc, {})
        assert server.count("/robots.txt") == 0 and server.count("/a") == 0
    finally:
        await reap(procs)
