// The official TypeScript SDK's OAuth client against /mcp (SPEC §19), run by Node and driven
// by tests/integration/mcp_ts_oauth.py over JSON lines (stdout: what happened; stdin: the
// driver's answers). Steps:
//   1. discovery from the 401, dynamic registration, PKCE; the person's consent, either
//      posted here as the signed-in user (their session cookie in ANA_COOKIE, as a browser
//      would) or, without ANA_COOKIE, done by the driver (a real Chromium): this prints
//      {"authorize": url} and reads back the URL the browser was sent to; finishAuth with
//      the code, then tools within the chosen scope: prints {"connected": ...};
//   2. after the driver's "expired" line (it moved the server's clock past the access
//      token's hour), a call: the SDK refreshes on its own: prints {"refreshed": ...};
//   3. after the driver's "revoked" line (the grant was revoked in the Agents dialog), a
//      call: prints {"revoked": ...} with how it failed and the statuses seen.
// Usage: node mcp_ts_oauth.mjs <base url> <scope> <workspaceId>
import { createInterface } from "node:readline";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { UnauthorizedError } from "@modelcontextprotocol/sdk/client/auth.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";

const [base, scope, workspaceId] = process.argv.slice(2);
const redirectUrl = "http://127.0.0.1:33421/callback";
const cookie = process.env.ANA_COOKIE;
const saved = { client: undefined, tokens: undefined, verifier: undefined };
const lines = createInterface({ input: process.stdin })[Symbol.asyncIterator]();
const seen = []; // [path, status] of every answer, in order
let code;
let consents = 0;
let consentPage = "";

function say(what) {
  process.stdout.write(JSON.stringify(what) + "\n");
}

async function heard() {
  const { value, done } = await lines.next();
  if (done) throw new Error("the driver closed stdin");
  return value.trim();
}

async function consentByCookie(authorizationUrl) {
  // The person's browser: the authorization endpoint sends it to the consent page.
  let r = await fetch(authorizationUrl, { redirect: "manual", headers: { cookie } });
  if (r.status !== 302) throw new Error(`authorize answered ${r.status}: ${await r.text()}`);
  const consentUrl = new URL(r.headers.get("location"), base);
  r = await fetch(consentUrl, { headers: { cookie } });
  consentPage = await r.text();
  const form = new URLSearchParams(consentUrl.searchParams);
  form.set("chosen_scope", scope);
  form.set("workspace", workspaceId);
  form.set("folder", "");
  form.set("decision", "allow");
  r = await fetch(new URL("/oauth/consent", base), {
    method: "POST",
    redirect: "manual",
    headers: { cookie, "content-type": "application/x-www-form-urlencoded" },
    body: form,
  });
  if (r.status !== 303) throw new Error(`consent answered ${r.status}: ${await r.text()}`);
  return r.headers.get("location");
}

async function consent(authorizationUrl) {
  consents += 1;
  let back;
  if (cookie) {
    back = await consentByCookie(authorizationUrl);
  } else {
    say({ authorize: authorizationUrl.toString() });
    back = await heard();
  }
  if (!back.startsWith(redirectUrl)) throw new Error(`sent back to ${back}`);
  code = new URL(back).searchParams.get("code");
}

const provider = {
  get redirectUrl() { return redirectUrl; },
  get clientMetadata() {
    return {
      client_name: "TypeScript OAuth agent",
      redirect_uris: [redirectUrl],
      grant_types: ["authorization_code", "refresh_token"],
      response_types: ["code"],
      token_endpoint_auth_method: "none",
    };
  },
  clientInformation: () => saved.client,
  saveClientInformation: (info) => { saved.client = info; },
  tokens: () => saved.tokens,
  saveTokens: (tokens) => { saved.tokens = tokens; },
  redirectToAuthorization: (url) => consent(url),
  saveCodeVerifier: (verifier) => { saved.verifier = verifier; },
  codeVerifier: () => saved.verifier,
};

async function recording(url, init) {
  const response = await fetch(url, init);
  seen.push([new URL(url).pathname, response.status]);
  return response;
}

const mcpUrl = new URL("/mcp", base);
const connect = async () => {
  const transport = new StreamableHTTPClientTransport(mcpUrl, {
    authProvider: provider,
    fetch: recording,
  });
  const client = new Client({ name: "ts-oauth", version: "1.0.0" });
  await client.connect(transport);
  return [client, transport];
};

let client;
let firstRefused = false;
try {
  [client] = await connect();
} catch (error) {
  if (!(error instanceof UnauthorizedError)) throw error;
  firstRefused = true;
  // The transport that asked for consent finishes it; a new one connects with the token.
  const transport = new StreamableHTTPClientTransport(mcpUrl, { authProvider: provider });
  await transport.finishAuth(code);
  [client] = await connect();
}
const tools = (await client.listTools()).tools.map((tool) => tool.name).sort();
const listed = await client.callTool({ name: "list_documents", arguments: { workspaceId } });
const elsewhere = await client.callTool({
  name: "list_documents",
  arguments: { workspaceId: workspaceId === "team" ? "personal" : "team" },
});
const written = await client.callTool({
  name: "create_note",
  arguments: { workspaceId, path: "from-typescript.md", text: "hi" },
});
say({
  connected: {
    firstRefused,
    consents,
    consentShowsClient: consentPage.includes(">TypeScript OAuth agent<"),
    tokenScope: saved.tokens?.scope,
    hasRefresh: Boolean(saved.tokens?.refresh_token),
    tools,
    listed: listed.structuredContent,
    elsewhere: elsewhere.structuredContent,
    written: { isError: Boolean(written.isError), content: written.content },
  },
});

if ((await heard()) !== "expired") throw new Error("expected the driver's 'expired'");
const before = saved.tokens.refresh_token;
seen.length = 0;
const again = await client.callTool({ name: "list_documents", arguments: { workspaceId } });
say({
  refreshed: {
    listed: again.structuredContent,
    consents,
    rotated: Boolean(saved.tokens.refresh_token) && saved.tokens.refresh_token !== before,
    seen,
  },
});

if ((await heard()) !== "revoked") throw new Error("expected the driver's 'revoked'");
seen.length = 0;
let failure = null;
try {
  await client.listTools();
} catch (error) {
  failure = `${error.constructor.name}: ${error.message}`;
}
say({ revoked: { failure, consents, seen } });
await client.close().catch(() => {});
process.exit(0);
