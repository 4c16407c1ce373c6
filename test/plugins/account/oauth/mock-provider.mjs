// A real OpenID Connect provider in a process of its own (oauth2-mock-server), for the
// OAuth tests. The identity an authorization hands out is the JSON of its `login_hint`
// query parameter (`{"sub":"…","email":"…","email_verified":true}`), which a test adds
// to the authorization URL before it follows it; the ID token carries those claims.
// Prints {"issuer": "http://127.0.0.1:PORT"} once it listens.
import { OAuth2Server } from 'oauth2-mock-server';

const server = new OAuth2Server();
await server.issuer.keys.generate('RS256');
const identities = new Map();
server.service.on('beforeAuthorizeRedirect', (redirect, req) => {
  const code = redirect.url.searchParams.get('code');
  const hint = new URL(req.url, 'http://provider.invalid').searchParams.get('login_hint');
  if (code && hint) identities.set(code, JSON.parse(hint));
  // A hint of {"deny": true} answers as a user who refused.
  if (code && hint && JSON.parse(hint).deny) {
    redirect.url.searchParams.delete('code');
    redirect.url.searchParams.set('error', 'access_denied');
  }
});
server.service.on('beforeTokenSigning', (token, req) => {
  const claims = identities.get(req.body?.code);
  if (claims) Object.assign(token.payload, claims);
});
await server.start(0, '127.0.0.1');
process.stdout.write(`${JSON.stringify({ issuer: server.issuer.url })}\n`);
process.on('SIGTERM', () => void server.stop().then(() => process.exit(0)));
