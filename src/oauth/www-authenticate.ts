/**
 * The `WWW-Authenticate` challenge of a 401 on /mcp (RFC 6750 + RFC 9728): it points an OAuth
 * client at the protected-resource metadata, and says `invalid_token` when a token was presented
 * (so a client refreshes or re-authorizes instead of retrying the same token).
 */
export function mcpChallenge(resourceMetadataUrl: string, tokenPresented: boolean): string {
  const error = tokenPresented ? ', error="invalid_token", error_description="the access token is unknown, expired or revoked"' : "";
  return `Bearer realm="knot-tools", resource_metadata="${resourceMetadataUrl}"${error}`;
}
