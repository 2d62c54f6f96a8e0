"""product_token() on real crawler User-Agent headers, and is_valid_token() (engine/tokens.py).

Expected tokens are the robots.txt tokens each crawler's operator documents. The general rule
(docs/engine.md): (1) a header that is itself a token is returned as is; (2) else the first
token-shaped entry of a parenthesised comment that contains "compatible" or a URL; (3) else the
first top-level Token/version product that is not a browser-compatibility token; (4) else the
leading [A-Za-z_-]+ run.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from scrapy_gbot_robots import is_valid_token, parse, product_token

# Cases marked GAP do not fit the rule as worded above, read literally:
#   GAP-KHTML:   the comment with "compatible" starts with "KHTML, like Gecko", whose last
#                word "Gecko" is token-shaped, so step (2) would return "Gecko".
#   GAP-MOZILLA: the comment with "compatible" holds "Mozilla/5.0" first, so (2) gives "Mozilla".
#   GAP-NOCOMPAT: the token sits in a comment without "compatible" or a URL, and every
#                top-level product is a browser token, so (4) gives "Mozilla".
# The expected value is still what the operator documents: the rule needs (2) to skip
# browser-compatibility words too, or a step that prefers a leading non-browser product.
REAL_USER_AGENTS: list[tuple[str, str, str]] = [
    # (id, User-Agent header, documented robots.txt token)
    (
        "googlebot-desktop",  # GAP-KHTML
        "Mozilla/5.0 AppleWebKit/537.36 (KHTML, like Gecko; compatible; Googlebot/2.1; "
        "+http://www.google.com/bot.html) Chrome/131.0.6778.204 Safari/537.36",
        "Googlebot",
    ),
    (
        "googlebot-classic",
        "Mozilla/5.0 (compatible; Googlebot/2.1; +http://www.google.com/bot.html)",
        "Googlebot",
    ),
    (
        "googlebot-smartphone",
        "Mozilla/5.0 (Linux; Android 6.0.1; Nexus 5X Build/MMB29P) AppleWebKit/537.36 "
        "(KHTML, like Gecko) Chrome/131.0.6778.204 Mobile Safari/537.36 "
        "(compatible; Googlebot/2.1; +http://www.google.com/bot.html)",
        "Googlebot",
    ),
    ("googlebot-image", "Googlebot-Image/1.0", "Googlebot-Image"),
    ("googlebot-video", "Googlebot-Video/1.0", "Googlebot-Video"),
    ("googlebot-news", "Googlebot-News", "Googlebot-News"),
    (
        "adsbot-google",
        "AdsBot-Google (+http://www.google.com/adsbot.html)",
        "AdsBot-Google",
    ),
    (
        "adsbot-google-mobile",
        "Mozilla/5.0 (iPhone; CPU iPhone OS 14_7_1 like Mac OS X) AppleWebKit/605.1.15 "
        "(KHTML, like Gecko) Version/14.1.2 Mobile/15E148 Safari/604.1 "
        "(compatible; AdsBot-Google-Mobile; +http://www.google.com/mobile/adsbot.html)",
        "AdsBot-Google-Mobile",
    ),
    ("mediapartners-google", "Mediapartners-Google", "Mediapartners-Google"),
    (
        "storebot-google-desktop",  # GAP-NOCOMPAT
        "Mozilla/5.0 (X11; Linux x86_64; Storebot-Google/1.0) AppleWebKit/537.36 "
        "(KHTML, like Gecko) Chrome/79.0.3945.88 Safari/537.36",
        "Storebot-Google",
    ),
    (
        "storebot-google-mobile",  # GAP-NOCOMPAT
        "Mozilla/5.0 (Linux; Android 8.0; Pixel 2 Build/OPD3.170816.012; Storebot-Google/1.0) "
        "AppleWebKit/537.36 (KHTML, like Gecko) Chrome/81.0.4044.138 Mobile Safari/537.36",
        "Storebot-Google",
    ),
    (
        "google-inspectiontool",
        "Mozilla/5.0 (compatible; Google-InspectionTool/1.0;)",
        "Google-InspectionTool",
    ),
    ("googleother", "GoogleOther", "GoogleOther"),
    (
        "bingbot",
        "Mozilla/5.0 (compatible; bingbot/2.0; +http://www.bing.com/bingbot.htm)",
        "bingbot",
    ),
    (
        "bingbot-desktop",  # GAP-KHTML
        "Mozilla/5.0 AppleWebKit/537.36 (KHTML, like Gecko; compatible; bingbot/2.0; "
        "+http://www.bing.com/bingbot.htm) Chrome/116.0.1938.76 Safari/537.36",
        "bingbot",
    ),
    (
        "duckduckbot",
        "DuckDuckBot/1.1; (+http://duckduckgo.com/duckduckbot.html)",
        "DuckDuckBot",
    ),
    (
        "yandexbot",
        "Mozilla/5.0 (compatible; YandexBot/3.0; +http://yandex.com/bots)",
        "YandexBot",
    ),
    (
        "baiduspider",
        "Mozilla/5.0 (compatible; Baiduspider/2.0; +http://www.baidu.com/search/spider.html)",
        "Baiduspider",
    ),
    (
        "applebot",
        "Mozilla/5.0 (Macintosh; Intel Mac OS X 10_15_5) AppleWebKit/605.1.15 "
        "(KHTML, like Gecko) Version/13.1.1 Safari/605.1.15 "
        "(Applebot/0.1; +http://www.apple.com/go/applebot)",
        "Applebot",
    ),
    (
        "gptbot",  # GAP-KHTML
        "Mozilla/5.0 AppleWebKit/537.36 (KHTML, like Gecko; compatible; GPTBot/1.1; "
        "+https://openai.com/gptbot)",
        "GPTBot",
    ),
    (
        "oai-searchbot",
        "Mozilla/5.0 AppleWebKit/537.36 (KHTML, like Gecko); compatible; OAI-SearchBot/1.3; "
        "+https://openai.com/searchbot",
        "OAI-SearchBot",
    ),
    (
        "chatgpt-user",
        "Mozilla/5.0 AppleWebKit/537.36 (KHTML, like Gecko); compatible; ChatGPT-User/1.0; "
        "+https://openai.com/bot",
        "ChatGPT-User",
    ),
    (
        "claudebot",  # GAP-KHTML
        "Mozilla/5.0 AppleWebKit/537.36 (KHTML, like Gecko; compatible; ClaudeBot/1.0; "
        "+claudebot@anthropic.com)",
        "ClaudeBot",
    ),
    (
        "amazonbot",  # GAP-KHTML
        "Mozilla/5.0 AppleWebKit/537.36 (KHTML, like Gecko; compatible; Amazonbot/0.1; "
        "+https://developer.amazon.com/support/amazonbot) Chrome/119.0.6045.214 Safari/537.36",
        "Amazonbot",
    ),
    (
        "perplexitybot",  # GAP-KHTML
        "Mozilla/5.0 AppleWebKit/537.36 (KHTML, like Gecko; compatible; PerplexityBot/1.0; "
        "+https://perplexity.ai/perplexitybot)",
        "PerplexityBot",
    ),
    ("ccbot", "CCBot/2.0 (https://commoncrawl.org/faq/)", "CCBot"),
    (
        "facebookexternalhit",
        "facebookexternalhit/1.1 (+http://www.facebook.com/externalhit_uatext.php)",
        "facebookexternalhit",
    ),
    (
        "meta-externalagent",
        "meta-externalagent/1.1 "
        "(+https://developers.facebook.com/docs/sharing/webmasters/crawler)",
        "meta-externalagent",
    ),
    ("twitterbot", "Twitterbot/1.0", "Twitterbot"),
    (
        "linkedinbot",  # GAP-MOZILLA
        "LinkedInBot/1.0 (compatible; Mozilla/5.0; Apache-HttpClient +http://www.linkedin.com)",
        "LinkedInBot",
    ),
    (
        "ahrefsbot",
        "Mozilla/5.0 (compatible; AhrefsBot/7.0; +http://ahrefs.com/robot/)",
        "AhrefsBot",
    ),
    (
        "semrushbot",
        "Mozilla/5.0 (compatible; SemrushBot/7~bl; +http://www.semrush.com/bot.html)",
        "SemrushBot",
    ),
    (
        "yahoo-slurp",
        "Mozilla/5.0 (compatible; Yahoo! Slurp; http://help.yahoo.com/help/us/ysearch/slurp)",
        "Slurp",
    ),
    (
        "petalbot",
        "Mozilla/5.0 (Linux; Android 7.0;) AppleWebKit/537.36 (KHTML, like Gecko) "
        "Mobile Safari/537.36 (compatible; PetalBot;+https://webmaster.petalsearch.com/site/petalbot)",
        "PetalBot",
    ),
    (
        "bytespider",
        "Mozilla/5.0 (Linux; Android 5.0) AppleWebKit/537.36 (KHTML, like Gecko) "
        "Mobile Safari/537.36 (compatible; Bytespider; spider-feedback@bytedance.com)",
        "Bytespider",
    ),
    (
        "pinterestbot",
        "Mozilla/5.0 (compatible; Pinterestbot/1.0; +http://www.pinterest.com/bot.html)",
        "Pinterestbot",
    ),
    (
        "seznambot",
        "Mozilla/5.0 (compatible; SeznamBot/4.0; "
        "+https://o-seznam.cz/napoveda/vyhledavani/en/seznambot-crawler/)",
        "SeznamBot",
    ),
    ("yeti", "Mozilla/5.0 (compatible; Yeti/1.1; +https://naver.me/spd)", "Yeti"),
    (
        "discordbot",
        "Mozilla/5.0 (compatible; Discordbot/2.0; +https://discordapp.com)",
        "Discordbot",
    ),
    ("scrapy-default", "Scrapy/2.19 (+https://scrapy.org)", "Scrapy"),
    ("scrapy-older", "Scrapy/2.13.3 (+https://scrapy.org)", "Scrapy"),
    ("plain-token", "Googlebot", "Googlebot"),
    ("plain-token-hyphen", "my-crawler", "my-crawler"),
    ("plain-token-underscore", "my_bot", "my_bot"),
]

GAPS = {
    "googlebot-desktop",
    "bingbot-desktop",
    "gptbot",
    "claudebot",
    "amazonbot",
    "perplexitybot",
    "storebot-google-desktop",
    "storebot-google-mobile",
    "linkedinbot",
}


@pytest.mark.parametrize(
    ("header", "token"),
    [(h, t) for _, h, t in REAL_USER_AGENTS],
    ids=[f"{i}{'-GAP' if i in GAPS else ''}" for i, _, _ in REAL_USER_AGENTS],
)
def test_product_token__real_crawler_header_gives_the_documented_robots_token(
    header: str, token: str
) -> None:
    assert product_token(header) == token
    assert is_valid_token(token)


@pytest.mark.parametrize(
    ("header", "token"),
    [
        ("curl/8.5.0", "curl"),  # step (3): first top-level product
        ("python-requests/2.32.3", "python-requests"),
        ("Wget/1.21.4", "Wget"),
        (
            # a browser: no crawler token anywhere, step (4) gives the leading run
            "Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 "
            "(KHTML, like Gecko) Chrome/120.0.0.0 Safari/537.36",
            "Mozilla",
        ),
    ],
    ids=["curl", "python-requests", "wget", "browser-falls-back-to-leading-run"],
)
def test_product_token__general_rule_on_non_crawler_headers(header: str, token: str) -> None:
    assert product_token(header) == token


def test_product_token__derived_token_selects_the_crawlers_group() -> None:
    rt = parse(b"User-agent: Googlebot\nDisallow: /g\n\nUser-agent: *\nDisallow: /s\n")
    header = "Mozilla/5.0 (compatible; Googlebot/2.1; +http://www.google.com/bot.html)"
    token = product_token(header)
    assert rt.allowed("https://example.com/g", token) is False
    assert rt.allowed("https://example.com/s", token) is True
    # the whole header is not a token: only the '*' rules would apply to it
    assert rt.allowed("https://example.com/g", header) is True
    assert rt.allowed("https://example.com/s", header) is False


@pytest.mark.parametrize(
    "token", ["Googlebot", "Googlebot-Image", "foo_bar", "a", "-", "_", "AdsBot-Google-Mobile"]
)
def test_is_valid_token__letters_hyphen_underscore(token: str) -> None:
    assert is_valid_token(token) is True


@pytest.mark.parametrize(
    "text",
    [
        "",
        "Googlebot/2.1",
        "Foo Bar",
        "Googlebot ",
        " Googlebot",
        "Googlebot\n",  # re's "$" would match before a trailing newline
        "Googlebot2",
        "*",
        "Google.bot",
        "Googleb\u00f6t",  # str.isalpha() accepts non-ASCII letters
        "\u212abot",  # KELVIN SIGN
        "\uff27oogle",  # FULLWIDTH G
        "Googlebot\x00",
    ],
)
def test_is_valid_token__anything_else_is_not_a_token(text: str) -> None:
    assert is_valid_token(text) is False


@settings(max_examples=300, deadline=None)
@given(st.from_regex(r"[A-Za-z_-]+", fullmatch=True))
def test_product_token__a_valid_token_is_returned_as_is(token: str) -> None:
    assert is_valid_token(token) is True
    assert product_token(token) == token


@settings(max_examples=300, deadline=None)
@given(
    st.one_of(
        st.text(max_size=60),
        st.lists(
            st.sampled_from(
                ["Mozilla/5.0", " ", "(", ")", ";", "compatible", "Bot/1.0", "+http://x.y/", "/",
                 "KHTML, like Gecko", "Chrome/1", "Safari/2", "x", "_", "-", "\u00e9"]
            ),
            max_size=12,
        ).map("".join),
    )
)
def test_product_token__always_returns_a_token_or_empty_string(header: str) -> None:
    token = product_token(header)
    assert isinstance(token, str)
    assert token == "" or is_valid_token(token)


def test_the_old_import_path_gives_the_same_functions() -> None:
    # engine/agent.py was this module's name until 0.3.0: code outside the package may
    # still import it.  Nothing inside does.
    from scrapy_gbot_robots.engine import agent, tokens

    for name in ("product_token", "is_valid_token", "token_prefix", "names_everyone"):
        assert getattr(agent, name) is getattr(tokens, name)
    assert agent.TOKEN_PREFIX_RE is tokens.TOKEN_PREFIX_RE
    package = Path(tokens.__file__).parent.parent
    importers = [
        str(path.relative_to(package))
        for path in sorted(package.rglob("*.py"))
        if path.name != "agent.py"
        and re.search(r"from \.+(engine\.)?agent import|engine\.agent\b", path.read_text())
    ]
    assert importers == []
