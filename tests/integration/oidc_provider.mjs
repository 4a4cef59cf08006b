// A real OpenID Connect provider for tests/integration/test_oidc.py: the `oidc-provider`
// package (the certified Node implementation) on a loopback port, with one confidential client
// and its development sign-in forms (any password; the login typed is the account id).
// Usage: node oidc_provider.mjs <port> <client_id> <redirect_uri> <accounts JSON>
//   (client secret in OIDC_TEST_CLIENT_SECRET; accounts: {"<login>": {<claims>}}, e.g.
//   {"carol": {"email": "carol@example.com", "email_verified": true}})
// The issuer is http://localhost:<port>; "ready" is printed once it listens.
import Provider from "oidc-provider";

const [port, clientId, redirectUri, accountsJson] = process.argv.slice(2);
const accounts = JSON.parse(accountsJson || "{}");
const provider = new Provider(`http://localhost:${port}`, {
  clients: [
    {
      client_id: clientId,
      client_secret: process.env.OIDC_TEST_CLIENT_SECRET,
      redirect_uris: [redirectUri],
      grant_types: ["authorization_code"],
      response_types: ["code"],
      token_endpoint_auth_method: "client_secret_basic",
    },
  ],
  claims: {
    openid: ["sub"],
    email: ["email", "email_verified"],
    profile: ["preferred_username", "name"],
  },
  features: { devInteractions: { enabled: true } },
  pkce: { required: () => true },
  cookies: { keys: ["test-only-cookie-signing-key"] },
  async findAccount(ctx, id) {
    return { accountId: id, claims: async () => ({ sub: id, ...(accounts[id] ?? {}) }) };
  },
});
provider.listen(Number(port), () => process.stdout.write("ready\n"));
