// The official TypeScript SDK's OAuth client against /mcp (SPEC §19), run by Node from
// tests/integration/test_oauth_sdk.py: discovery from the 401, dynamic registration, PKCE,
// the consent posted as the signed-in user (their session cookie in ANA_COOKIE, as a
// browser would), finishAuth with the code, then tools within the chosen scope. Prints one
// JSON object with what the server answered.
// Usage: node mcp_ts_oauth.mjs <base url> <scope> <workspaceId>
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { UnauthorizedError } from "@modelcontextprotocol/sdk/client/auth.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";

const [base, scope, workspaceId] = process.argv.slice(2);
const redirectUrl = "http://127.0.0.1:33421/callback";
const cookie = process.env.ANA_COOKIE;
const saved = { client: undefined, tokens: undefined, verifier: undefined };
let code;
let consentPage = "";

async function consent(authorizationUrl) {
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
  code = new URL(r.headers.get("location")).searchParams.get("code");
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

const mcpUrl = new URL("/mcp", base);
let transport = new StreamableHTTPClientTransport(mcpUrl, { authProvider: provider });
let client = new Client({ name: "ts-oauth", version: "1.0.0" });
let firstRefused = false;
try {
  await client.connect(transport);
} catch (error) {
  if (!(error instanceof UnauthorizedError)) throw error;
  firstRefused = true;
  await transport.finishAuth(code);
  transport = new StreamableHTTPClientTransport(mcpUrl, { authProvider: provider });
  client = new Client({ name: "ts-oauth", version: "1.0.0" });
  await client.connect(transport);
}
const tools = (await client.listTools()).tools.map((tool) => tool.name).sort();
const listed = await client.callTool({ name: "list_documents", arguments: { workspaceId } });
const elsewhere = await client.callTool({
  name: "list_documents",
  arguments: { workspaceId: "personal" },
});
process.stdout.write(JSON.stringify({
  firstRefused,
  consentShowsClient: consentPage.includes(">TypeScript OAuth agent<"),
  tokenScope: saved.tokens?.scope,
  hasRefresh: Boolean(saved.tokens?.refresh_token),
  tools,
  listed: listed.structuredContent,
  elsewhere: elsewhere.structuredContent,
}));
await client.close();
