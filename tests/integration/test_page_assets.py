"""The runtime through the app: negotiated encodings, hashed immutable URLs, revalidated pages."""

import re

import brotli


def test_runtime_urls_are_hashed_compressed_and_immutable(client):
    page = client.get("/")
    assert page.headers["cache-control"] == "no-cache" and page.headers["etag"]
    config = client.get("/static/pyscript.json")
    assert config.headers["cache-control"] == "no-cache"
    loader = client.get("/static/pyodide-snapshot.mjs").text  # it writes the Python bundle too
    zip_url = re.search(r'"(/py/[0-9a-f]{12}/app\.zip)"', loader).group(1)
    mjs_url = re.search(r'"(/vendor/[0-9a-f]{12}/pyodide/pyodide\.mjs)"', loader).group(1)

    for url in (zip_url, mjs_url):
        got = client.get(url, headers={"Accept-Encoding": "gzip, br"})
        assert got.headers["content-encoding"] == "br"
        assert got.headers["vary"] == "Accept-Encoding"
        assert got.headers["cache-control"] == "public, max-age=31536000, immutable"
        plain = client.get(url, headers={"Accept-Encoding": "identity"})
        assert "content-encoding" not in plain.headers
        assert brotli.decompress(_raw(client, url, "br")) == plain.content
    assert client.get(mjs_url.replace("/vendor/", "/vendor/0", 1)).status_code == 404


def _raw(client, url: str, encoding: str) -> bytes:
    with client.stream("GET", url, headers={"Accept-Encoding": encoding}) as response:
        return b"".join(response.iter_raw())


def test_a_revalidated_page_answers_304(client):
    etag = client.get("/").headers["etag"]
    again = client.get("/", headers={"If-None-Match": etag})
    assert again.status_code == 304 and again.content == b""
