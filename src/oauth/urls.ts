/** Where the OAuth endpoints live; everything under /oauth except the consent page's routes. */
export const OAUTH_PATHS = Object.freeze({
  authorization: "/oauth/authorize",
  token: "/oauth/token",
  registration: "/oauth/register",
  revocation: "/oauth/revoke",
  jwks: "/oauth/jwks",
  end_session: "/oauth/session/end",
  userinfo: "/oauth/userinfo",
  introspection: "/oauth/introspect",
  pushed_authorization_request: "/oauth/par",
});

export const PROTECTED_RESOURCE_METADATA_PATH = "/.well-known/oauth-protected-resource";
