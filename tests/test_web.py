"""The published site (build/web/): strict CSP with no inline code, hashed and precompressed
assets, sharing metadata, icons, manifest and service worker — on real builds."""

from __future__ import annotations

import gzip
import json
import re
import struct
import zlib
from pathlib import Path, PurePosixPath

import lxml.html
import pytest

from citavial.build import beside
from citavial.build import patterns as P
from citavial.build.errors import BuildError
from citavial.build.headers import cache_control, csp, security_headers
from citavial.build.web import assets, icons, inline
from citavial.build.web.share import normalize_base_url

SW_BUILD = re.compile(r"var BUILD = (\{.*?\});")


def head(dist: Path, page: str):
    return lxml.html.parse(str(dist / page)).getroot()


def sw_build(dist: Path) -> dict:
    return json.loads(SW_BUILD.search((dist / "sw.js").read_text("utf-8")).group(1))


# --- patterns and policy --------------------------------------------------------------------

@pytest.mark.parametrize("name, hashed", [
    pytest.param("static/app.3f2a9c01d4.css", True, id="css"),
    pytest.param("search-index.6809d92ca6.js", True, id="root-js"),
    pytest.param("static/app.css", False, id="plain"),
    pytest.param("static/app.3f2a9c01d.css", False, id="nine-digits"),
    pytest.param("static/app.3F2A9C01D4.css", False, id="uppercase"),
    pytest.param("art48.html", False, id="page"),
])
def test_hashed_asset_pattern(name, hashed):
    assert bool(P.HASHED_ASSET.search(name)) is hashed
    assert cache_control(name) == ("public, max-age=31536000, immutable" if hashed
                                   else "no-cache")


@pytest.mark.parametrize("html, found", [
    pytest.param('<link rel="stylesheet" href="static/app.css">', [("href", "static/app.css")],
                 id="href"),
    pytest.param('<script src="a.js" defer></script>', [("src", "a.js")], id="src"),
    pytest.param('<p data-href="x.js">', [], id="data-attribute"),
    pytest.param("<a href='x.js'>", [], id="single-quotes-not-written-by-jinja"),
])
def test_url_attribute_pattern(html, found):
    assert [(m.group("attr"), m.group("url")) for m in P.URL_ATTRIBUTE.finditer(html)] == found


@pytest.mark.parametrize("html", [
    pytest.param('href="a.js" <a href="b.js">', id="at-the-start"),
    pytest.param('<a\thref="a"\nsrc="b"\u00a0href="c" href="d"href="e">', id="spaces-and-adjacent"),
    pytest.param('<a href="x src="y.js" href="z">', id="a-quote-in-a-value"),
    pytest.param('<a  href=""  src="">', id="empty-values"),
])
def test_url_attribute_pattern_finds_what_a_lookbehind_finds(html):
    """The white space is matched instead of looked behind for (speed): the same attributes."""
    behind = re.compile(r'(?<=\s)(?P<attr>src|href)="(?P<url>[^"]*)"')
    assert [(m.start("attr"), m.group("url")) for m in P.URL_ATTRIBUTE.finditer(html)] == [
        (m.start("attr"), m.group("url")) for m in behind.finditer(html)]


@pytest.mark.parametrize("url, relative", [
    pytest.param("static/app.css", True, id="relative"),
    pytest.param("../x.js", True, id="parent"),
    pytest.param("https://www.boe.es/", False, id="scheme"),
    pytest.param("//cdn.example/x.js", False, id="protocol-relative"),
    pytest.param("/rgc/x.js", False, id="root"),
    pytest.param("#contenido", False, id="fragment"),
    pytest.param("", False, id="empty"),
])
def test_not_relative_url_pattern(url, relative):
    assert (not P.NOT_RELATIVE_URL.match(url)) is relative


@pytest.mark.parametrize("directive", [
    "default-src 'self'", "script-src 'self'", "style-src 'self'", "object-src 'none'",
    "base-uri 'none'", "frame-ancestors 'self'", "connect-src 'self' http://127.0.0.1:* http://localhost:*",
])
def test_header_policy_has(directive):
    assert directive in csp()
    assert "unsafe" not in csp()


def test_meta_policy_is_the_header_policy_less_frame_ancestors():
    assert "frame-ancestors" not in csp(meta=True)
    assert csp(meta=True).split("; ") == [d for d in csp().split("; ")
                                          if not d.startswith("frame-ancestors")]
    h = security_headers()
    assert h["X-Content-Type-Options"] == "nosniff" and h["Referrer-Policy"] == "same-origin"


@pytest.mark.parametrize("html, finding", [
    pytest.param("<script>alert(1)</script>", "inline <script>", id="inline-script"),
    pytest.param('<script src="a.js">alert(1)</script>', "inline <script>", id="src-and-body"),
    pytest.param("<style>p{}</style>", "<style> element", id="style-element"),
    pytest.param('<p style="color:red">x</p>', "style= attribute on <p>", id="style-attr"),
    pytest.param('<button onclick="go()">x</button>', "onclick= on <button>", id="handler"),
    pytest.param('<a href="javascript:go()">x</a>', "javascript: URL in href=", id="js-url"),
    pytest.param('<script src="a.js" defer></script><p class="x">ok</p>', None, id="clean"),
])
def test_inline_code_is_found(html, finding):
    found = inline.violations(f"<!DOCTYPE html><html><head></head><body>{html}</body></html>")
    assert (found == []) if finding is None else any(finding in f for f in found), found


@pytest.mark.parametrize("value, expected", [
    pytest.param("https://autoescuela.example/rgc", "https://autoescuela.example/rgc/",
                 id="adds-slash"),
    pytest.param("http://127.0.0.1:8080/", "http://127.0.0.1:8080/", id="loopback"),
    pytest.param("", "", id="none"),
    pytest.param("autoescuela.example/rgc/", None, id="no-scheme"),
    pytest.param("ftp://example.org/", None, id="ftp"),
    pytest.param("https://example.org/rgc/?x=1", None, id="query"),
])
def test_base_url(value, expected):
    if expected is None:
        with pytest.raises(BuildError, match="--base-url: .*not an absolute http"):
            normalize_base_url(value)
    else:
        assert normalize_base_url(value) == expected


# --- icons ----------------------------------------------------------------------------------

def test_icons_are_valid_pngs_of_their_size(tmp_path):
    from support import SITE_SRC
    written = icons.write_icons(SITE_SRC / "pwa" / "icon.txt", tmp_path)
    for rel, size in written:
        data = (tmp_path / rel).read_bytes()
        if rel.endswith(".ico"):
            assert struct.unpack("<HHH", data[:6]) == (0, 1, 1)
            data = data[22:]
        assert data[:8] == b"\x89PNG\r\n\x1a\n"
        w, h = struct.unpack(">II", data[16:24])
        assert (w, h) == (size, size), rel
        idat = data[data.index(b"IDAT") + 4:data.index(b"IEND") - 8]
        assert len(zlib.decompress(idat)) == size * (1 + 3 * size)


def test_icons_drawn_beside_the_build_are_the_icons_drawn_here(tmp_path):
    """publish.begin_icons draws them in a child at niceness 19 while the build goes on: the
    same files; none begun when the build cache holds them."""
    from support import SITE_SRC, tree_hash

    from citavial.build.stagecache import StageCache
    from citavial.build.web import publish
    source = SITE_SRC / "pwa" / "icon.txt"
    drawn = publish.begin_icons(source)
    assert drawn is not None and drawn.result() == (True, icons.draw_icons(source))
    publish._icons(source, tmp_path / "beside", None, drawn)
    icons.write_icons(source, tmp_path / "here")
    assert tree_hash(tmp_path / "beside") == tree_hash(tmp_path / "here")
    cache = StageCache(tmp_path / "cache")
    publish._icons(source, tmp_path / "cached", cache)
    assert publish.begin_icons(source, cache) is None


def test_a_bad_icon_source_is_the_builds_error_not_the_childs(tmp_path, caplog):
    """A source the child cannot read answers None (no traceback logged); the build's own
    process then raises the error with its line and rule."""
    from citavial.build.web import publish
    source = tmp_path / "icon.txt"
    source.write_text("not an icon\n", encoding="utf-8")
    drawn = publish.begin_icons(source)
    assert drawn is not None and drawn.result() == (True, None)
    with pytest.raises(BuildError) as here, caplog.at_level("WARNING"):
        publish._icons(source, tmp_path / "stage", None, drawn)
    with pytest.raises(BuildError) as alone:
        icons.write_icons(source, tmp_path / "alone")
    assert str(here.value) == str(alone.value) and not caplog.text


@pytest.mark.parametrize("text, message", [
    pytest.param("B = #000000\nBB\nBB\nBB\n", "is not square", id="not-square"),
    pytest.param("B = #000000\nBX\nBB\n", r"\['X'\] are not in the palette", id="unknown"),
    pytest.param("B = black\nB\n", "write 'X = #rrggbb'", id="bad-palette"),
])
def test_icon_source_errors_name_the_rule(tmp_path, text, message):
    src = tmp_path / "icon.txt"
    src.write_text(text)
    with pytest.raises(BuildError, match=message):
        icons.read_source(src)


# --- any page, including ones added later -----------------------------------------------------

def test_a_new_page_gets_hashed_assets_and_a_missing_one_stops_the_build(tmp_path):
    (tmp_path / "static").mkdir()
    (tmp_path / "static" / "nuevo.js").write_text("console.log(1);\n")
    (tmp_path / "nueva.html").write_text('<p><script src="static/nuevo.js?v=1"></script>'
                                         '<a href="nueva.html#x">x</a></p>\n')
    renamed = assets.hash_assets(tmp_path)
    new = renamed["static/nuevo.js"]
    assert P.HASHED_ASSET.search(new) and (tmp_path / new).is_file()
    html = (tmp_path / "nueva.html").read_text()
    assert f'src="{new}?v=1"' in html and 'href="nueva.html#x"' in html
    (tmp_path / "otra.html").write_text('<script src="static/falta.js"></script>\n')
    with pytest.raises(BuildError, match=r"otra.html: src=\"static/falta.js\".*did not write"):
        assets.hash_assets(tmp_path)


_CRAFTED = {
    "query-and-fragment": '<link href="static/app.css?v=2#x"><script src="static/app.js">',
    "parent-folder": '<p><a href="../index.html">i</a><script src="../static/app.js"></script>',
    "dot-part": '<script src="static/app.js/."></script><script src="./static/app.js">',
    "name-in-another-url": '<a href="static/app.js.html">x</a><a href="otro/app.js">y</a>',
    "not-relative": '<script src="/static/app.js"></script><a href="https://x.es/app.js">',
    "no-space-before": '<p>src="static/app.js" <i\tsrc="static/app.js">',
    "quote-in-a-value": '<a href="x src="static/app.js">z</a> href="static/app.css"',
}


@pytest.mark.parametrize("html", [pytest.param(h, id=k) for k, h in _CRAFTED.items()])
def test_hashed_url_rewrite_matches_the_rewrite_of_every_url(tmp_path, html):
    """Differential: publish rewrites only the URLs holding a renamed file's name; the plain
    rewrite resolves every URL. Same page out, and the same assets found."""
    page = tmp_path / "sub" / "p.html"
    page.parent.mkdir()
    for rel in ("static/app.js", "static/app.css", "sub/static/app.js", "sub/static/app.css",
                "sub/otro/app.js", "sub/static/app.js.html"):
        (tmp_path / rel).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / rel).write_text("x")
    renamed = {"static/app.js": "static/app.1111111111.js",
               "sub/static/app.js": "sub/static/app.2222222222.js",
               "static/app.css": "static/app.3333333333.css",
               "sub/static/app.css": "sub/static/app.4444444444.css"}
    _both_rewrites(page, tmp_path, html, renamed)


def test_hashed_url_rewrite_matches_on_every_built_page(built_site):
    """The same differential on the ~600 built pages, with each hashed asset renamed again."""
    table = json.loads((built_site / assets.ASSET_MAP).read_text())
    renamed = {new: new.replace(".", ".x.", 1) for new in table.values()}
    pages = assets.pages(built_site)
    changed = sum(_both_rewrites(page, built_site, page.read_text(), renamed) for page in pages)
    assert len(pages) > 500 and changed == len(pages)   # every page links the bundles


def _both_rewrites(page, stage, html, renamed) -> bool:
    """Assert the filtered and the plain rewrite agree (and the assets each finds); whether the
    page changed."""
    target_of = assets._Targets(stage)
    names = frozenset(PurePosixPath(r).name for r in renamed)
    plain = assets._rewritten(page, target_of, html,
                              lambda target, url: assets._hashed_url(renamed, target, url))
    assert assets._with_hashed_urls(page, target_of, html, renamed, names) == plain
    every = []
    for m in P.URL_ATTRIBUTE.finditer(html):
        target = target_of(page, m.group("url"))
        if target and assets.suffix(target) in assets.HASHED_SUFFIXES and target not in every:
            every.append(target)
    assert list(assets._targets(page, target_of, html)) == every
    return plain != html


def test_a_page_with_inline_code_stops_the_build(tmp_path):
    (tmp_path / "ok.html").write_text("<html><body><p>ok</p></body></html>")
    (tmp_path / "mala.html").write_text("<html><body>\n<p onclick=\"x()\">x</p></body></html>")
    with pytest.raises(BuildError, match=r"mala.html: line 2: event-handler attribute "
                                         r"onclick=(.|\n)*site_src/static"):
        inline.check_pages(tmp_path)


def _many_pages(folder: Path, bad: dict[str, str]) -> Path:
    """A staged site of more pages than it takes to check them in a child, ``bad`` (name:
    body) among clean ones, in a subfolder too."""
    (folder / "norma").mkdir(parents=True)
    for i in range(inline.BESIDE_MIN + 5):
        page = folder / ("norma" if i % 2 else ".") / f"p{i}.html"
        page.write_text(f"<html><body><p>Página {i}</p></body></html>")
    for name, body in bad.items():
        (folder / name).write_text(f"<html><body>\n{body}</body></html>")
    return folder


@pytest.mark.parametrize("bad", [
    pytest.param({}, id="clean"),
    pytest.param({"mala.html": '<p onclick="x()">x</p>',
                  "norma/otra.html": "<script>alert(1)</script>"}, id="two-bad-pages"),
])
def test_the_check_in_a_child_answers_as_the_check_here(tmp_path, bad):
    """A build's ~600 pages are parsed in a child process: the same count, or the same error
    naming the same pages and lines, as the check in the build's own process."""
    stage = _many_pages(tmp_path, bad)
    here = inline.begin_check(stage, beside=False)
    beside = inline.begin_check(stage)
    assert here.child is None and beside.child is not None   # the child was begun
    verdict = _verdict(beside)
    assert verdict == _verdict(here)
    if not bad:
        assert verdict == inline.BESIDE_MIN + 5
        return
    assert "mala.html: line 2: event-handler" in verdict
    assert "norma/otra.html: line 2: inline <script>" in verdict


def _verdict(check) -> int | str:
    """A page check's count, or the text of the error it raised."""
    try:
        return check.result()
    except BuildError as err:
        return str(err)


def test_a_failed_child_is_checked_here_and_said(tmp_path, monkeypatch, caplog):
    stage = _many_pages(tmp_path, {"mala.html": '<p style="color:red">x</p>'})
    monkeypatch.setattr(beside, "_CHILD", "import sys; sys.exit(3)")
    checked = inline.begin_check(stage)
    with pytest.raises(BuildError, match=r"mala.html: line 2: style= attribute"):
        checked.result()
    assert "inline:findings beside the build failed (exit 3)" in caplog.text


def test_the_check_judges_the_pages_as_they_were_when_it_began(tmp_path):
    """publish rewrites the pages (hashed asset names) while the child parses them: what it
    judges is what they were when the check began."""
    stage = _many_pages(tmp_path, {})
    checked = inline.begin_check(stage)
    (stage / "p0.html").write_text("<html><body><script>x()</script></body></html>")
    assert checked.result() == inline.BESIDE_MIN + 5
    with pytest.raises(BuildError, match=r"p0.html: line 1: inline <script>"):
        inline.check_pages(stage)


@pytest.mark.parametrize("when", ["read-before-the-change", "child", "failed-child"])
@pytest.mark.parametrize("change", ["none", "bad-page-added", "page-made-bad", "bad-page-cleaned"])
def test_a_check_begun_early_stands_only_for_pages_unchanged_since(tmp_path, monkeypatch,
                                                                   change, when):
    """The build checks the norms' pages once rendered (a child at nice 19 that reads them
    itself, in the second core's idle moments) and the rest at publish (``earlier``): the
    answer is the one check of the pages as they are at publish — an early verdict never
    covers a page changed since, even one changed before the child read it."""
    stage = _many_pages(tmp_path, {"vieja.html": "<p style='x'>x</p>"} if change ==
                        "bad-page-cleaned" else {})
    if when == "failed-child":   # then the pages are read and parsed here, as they are then
        monkeypatch.setattr(beside, "_CHILD", "import sys; sys.exit(3)")
    early = inline.begin_early(stage, nice=19)
    assert early.child is not None   # it reads, hashes and parses the pages itself
    if when == "read-before-the-change":
        assert len(early.pages()) == len(list(stage.rglob("*.html")))   # answered now
    if change == "bad-page-added":
        (stage / "nueva.html").write_text("<html><body><script>x()</script></body></html>")
    elif change == "page-made-bad":
        (stage / "p0.html").write_text("<html><body><p onclick='x()'>x</p></body></html>")
    elif change == "bad-page-cleaned":
        (stage / "vieja.html").write_text("<html><body><p>x</p></body></html>")
    late = inline.begin_check(stage, earlier=early)
    whole = inline.begin_check(stage, beside=False)
    assert {rel for rel, _ in late.todo} <= {"none": set(), "bad-page-added": {"nueva.html"},
                                             "page-made-bad": {"p0.html"},
                                             "bad-page-cleaned": {"vieja.html"}}[change]
    verdict = _verdict(late)
    assert verdict == _verdict(whole)
    assert (verdict == len(list(stage.rglob("*.html")))) == (change in ("none", "bad-page-cleaned"))


# --- the real build -----------------------------------------------------------------------

def test_every_page_carries_the_policy_and_loads_only_hashed_files(built_site):
    table = json.loads((built_site / "assets.json").read_text())
    for page in sorted(built_site.glob("*.html")):
        root = head(built_site, page.name)
        metas = root.xpath("//meta[@http-equiv='Content-Security-Policy']/@content")
        assert metas == [csp(meta=True)], page.name
        assert inline.violations(page.read_text()) == [], page.name
        for url in root.xpath("//script/@src | //link[@rel='stylesheet']/@href"):
            assert P.HASHED_ASSET.search(url) and (built_site / url).is_file(), (page.name, url)
    assert {"static/app.css", "static/app.js", "search-index.js", "practice-bank.js"} <= set(table)
    assert not (built_site / "static" / "chat.js").exists()   # only inside the bundle
    assert "citavial chat widget" in assets.asset(built_site, "static/app.js").read_text()


def test_text_files_have_identical_gzip_twins(built_site):
    for rel in ("art48.html", "anexoI-5.html", "sw.js", assets.asset(built_site, "static/app.js")
                .relative_to(built_site).as_posix()):
        plain = (built_site / rel).read_bytes()
        assert gzip.decompress((built_site / (rel + ".gz")).read_bytes()) == plain, rel


def test_relative_without_base_url(built_site):
    root = head(built_site, "art48.html")
    assert root.xpath("//link[@rel='canonical']") == [] and root.xpath("//meta[@property='og:url']") == []
    assert not (built_site / "sitemap.xml").exists()
    assert "Sitemap:" not in (built_site / "robots.txt").read_text()
    manifest = json.loads((built_site / "manifest.webmanifest").read_text())
    assert (manifest["start_url"], manifest["scope"]) == ("./index.html", "./")


def test_spanish_404_offline_page_and_favicon(built_site):
    assert "Página no encontrada" in (built_site / "404.html").read_text()
    assert "Sin conexión" in (built_site / "offline.html").read_text()
    assert (built_site / "favicon.ico").read_bytes()[:4] == b"\0\0\1\0"


def test_service_worker_precaches_the_study_site(built_site):
    build = sw_build(built_site)
    files = set(build["files"])
    pages = {p.name for p in built_site.glob("*.html")} - {"404.html"}
    assert pages <= files and "offline.html" in files
    for logical in ("search-index.js", "practice-bank.js", "static/app.js", "static/app.css"):
        assert assets.asset(built_site, logical).relative_to(built_site).as_posix() in files
    assert not [f for f in files if f.startswith("index/") or f.endswith((".json", ".gz"))]
    assert all((built_site / f).is_file() for f in files)
    report = json.loads((built_site / "web-report.json").read_text())
    assert report["precache_files"] == len(files) and report["precache_version"] == build["version"]
    assert 0 < report["precache_gzip_bytes"] < report["precache_bytes"]


def test_gzip_all_compresses_the_largest_first_and_answers_in_order():
    """assets.gzip_all: batches of about BATCH_BYTES, the largest contents first (a big file
    left last would end the work on one core); each result is gzip -9 of its own content, in
    the order asked, repeats included."""
    import gzip

    from citavial.build.web import assets
    datas = [bytes([65 + i % 26]) * size for i, size in
             enumerate([10, 300_000, 5, 70_000, 200_000, 70_000, 1_000_000, 12])]
    datas.append(datas[3])   # a repeat: compressed once
    batches = assets._batches(list(dict.fromkeys(datas)))
    flat = [d for batch in batches for d in batch]
    assert sorted(flat, key=len, reverse=True) == flat and len(flat) == len(set(datas))
    assert [len(b[0]) for b in batches[:3]] == [1_000_000, 300_000, 200_000]
    assert all(sum(map(len, b[:-1])) < assets.BATCH_BYTES for b in batches)
    packed = assets.gzip_all(datas)
    assert [gzip.decompress(p) for p in packed] == datas
    assert packed == [gzip.compress(d, compresslevel=9, mtime=0) for d in datas]


def test_no_early_check_when_the_cache_knows_clean_pages(tmp_path):
    """A build whose cache holds the pages found clean before (a guide edit: the norms' pages
    restored) leaves them to publish's check, which knows them by their cached digests without
    reading them; a build with nothing known begins the early check."""
    from citavial.build.stagecache import StageCache
    stage = _many_pages(tmp_path, {})
    cache = StageCache(tmp_path / "cache")
    assert inline.begin_early(stage, cache) is not None
    assert inline.check_pages(stage, cache) == inline.BESIDE_MIN + 5
    assert inline.begin_early(stage, cache) is None
