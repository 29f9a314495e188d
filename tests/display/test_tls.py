"""The display served over TLS when the table file gives a certificate and key: the page and
the API answer over https with that certificate, and plain http gets no page."""

from __future__ import annotations

import http.client
import json
import shutil
import ssl
import subprocess
from pathlib import Path

import pytest

from tests.display.conftest import running_table, table_config

pytestmark = pytest.mark.skipif(
    shutil.which("openssl") is None,
    reason="needs the openssl command to make a self-signed certificate (.ci/run installs it)",
)


@pytest.fixture
def certificate(tmp_path: Path) -> tuple[Path, Path]:
    cert, key = tmp_path / "display.crt", tmp_path / "display.key"
    subprocess.run(
        ["openssl", "req", "-x509", "-newkey", "rsa:2048", "-nodes", "-days", "1",
         "-subj", "/CN=croupier-test", "-addext", "subjectAltName=IP:127.0.0.1",
         "-keyout", str(key), "-out", str(cert)],
        check=True, capture_output=True, timeout=60,
    )  # fmt: skip
    return cert, key


def test_the_display_answers_over_tls_with_its_certificate_and_not_over_plain_http(
    certificate: tuple[Path, Path],
) -> None:
    cert, key = certificate
    loaded = table_config(display={"tls_certfile": str(cert), "tls_keyfile": str(key)})
    with running_table(loaded) as table:
        assert table.url.startswith("https://127.0.0.1:")
        port = table.display.port
        trusting = ssl.create_default_context(cafile=str(cert))
        secure = http.client.HTTPSConnection("127.0.0.1", port, context=trusting, timeout=10)
        secure.request("GET", "/api/state")
        answer = secure.getresponse()
        assert answer.status == 200
        assert "round" in json.loads(answer.read())
        peer = secure.sock.getpeercert()
        assert peer is not None
        assert ("commonName", "croupier-test") in [pair for rdn in peer["subject"] for pair in rdn]
        secure.close()

        untrusting = http.client.HTTPSConnection(
            "127.0.0.1", port, context=ssl.create_default_context(), timeout=10
        )
        with pytest.raises(ssl.SSLCertVerificationError):
            untrusting.request("GET", "/api/state")
        untrusting.close()

        plain = http.client.HTTPConnection("127.0.0.1", port, timeout=10)
        plain.request("GET", "/api/state")
        with pytest.raises((http.client.HTTPException, ConnectionError)):
            plain.getresponse()  # the server expects a TLS handshake: no HTTP answer
        plain.close()
