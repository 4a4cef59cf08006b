"""Interoperability: the official TypeScript MCP SDK (npm), run by Node, against /mcp.

A second client written independently of the Python SDK lists the tools of a propose-scope
token, reads a note and proposes an edit; the proposal is then visible to the owner through
/api/proposals, and the note is unchanged. Both databases, a real uvicorn server.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
from pathlib import Path

from test_mcp import TOOLS
from test_mcp_write import live, pending, saved, token  # noqa: F401 - `live` is a fixture

ROOT = Path(__file__).resolve().parents[2]
SCRIPT = Path(__file__).with_name("mcp_ts_client.mjs")
NOTE = "# Groceries\n\n- [ ] milk\n"


def run_ts_client(url: str, token_value: str, workspace: str, path: str) -> dict:
    node = shutil.which("node")
    assert node, "Node.js is needed for the TypeScript SDK interoperability test"
    sdk = ROOT / "node_modules" / "@modelcontextprotocol" / "sdk" / "package.json"
    assert sdk.exists(), "run `npm ci` first: @modelcontextprotocol/sdk is a devDependency"
    done = subprocess.run(
        [node, str(SCRIPT), url, workspace, path],
        env={**os.environ, "ANA_TOKEN": token_value},
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout)


def test_the_typescript_sdk_lists_reads_and_proposes(live):  # noqa: F811 - the fixture
    live.note("alice", "personal", "groceries.md", NOTE)
    t = token(live, scope="propose", name="TypeScript agent")
    got = run_ts_client(f"{live.base}/mcp", t, "personal", "groceries.md")

    assert got["server"]["name"] == "ambient-notes"
    assert set(got["tools"]) == TOOLS | {"propose_edit", "get_proposal"}
    assert got["read"]["isError"] is False
    assert got["read"]["structured"]["content"] == NOTE
    assert got["read"]["text"] == [{"type": "text", "text": got["read"]["structured"]["text"]}]

    proposed = got["proposed"]["structured"]
    assert got["proposed"]["isError"] is False and proposed["status"] == "pending"
    assert "+- [ ] added from TypeScript" in proposed["diff"]
    (listed,) = pending(live)
    assert listed["proposalId"] == proposed["proposalId"]
    assert listed["source"] == {"kind": "agent", "name": "TypeScript agent"}
    assert saved(live, "personal", "groceries.md") == NOTE

    refused = got["refused"]
    assert refused["isError"] is True and refused["structured"]["ok"] is False
    assert refused["structured"]["reason"] == "edit_not_found"
