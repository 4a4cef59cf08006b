// A second, independent MCP client: the official TypeScript SDK, run by Node from
// tests/integration/test_mcp_typescript.py. It lists the tools, reads a note and proposes an
// edit, then prints one JSON object with what the server answered.
// Usage: node mcp_ts_client.mjs <mcp url> <workspaceId> <path>   (token in ANA_TOKEN)
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";

const [url, workspaceId, path] = process.argv.slice(2);
const transport = new StreamableHTTPClientTransport(new URL(url), {
  requestInit: { headers: { Authorization: `Bearer ${process.env.ANA_TOKEN}` } },
});
const client = new Client({ name: "ts-interop", version: "1.0.0" });
await client.connect(transport);
const tools = (await client.listTools()).tools.map((tool) => tool.name).sort();
const read = await client.callTool({ name: "read_document", arguments: { workspaceId, path } });
const proposed = await client.callTool({
  name: "propose_edit",
  arguments: { workspaceId, path, edits: [{ append: "- [ ] added from TypeScript" }] },
});
const refused = await client.callTool({
  name: "propose_edit",
  arguments: { workspaceId, path, edits: [{ find: "not in the note", replace: "x" }] },
});
process.stdout.write(JSON.stringify({
  server: client.getServerVersion(),
  tools,
  read: { isError: read.isError ?? false, structured: read.structuredContent, text: read.content },
  proposed: { isError: proposed.isError ?? false, structured: proposed.structuredContent },
  refused: { isError: refused.isError ?? false, structured: refused.structuredContent },
}));
await client.close();
