/**
 * Discovery documents. Shared file: the MCP work adds `protectedResourceMetadata()` (RFC 9728)
 * beside `authorizationServerMetadata()` (RFC 8414).
 */
import { ASSERTION_SIGNING_ALGORITHMS } from "./client-assertion";
import { getOAuthConfig, oauthEndpoints } from "./config";
import { SUPPORTED_SCOPES } from "./scopes";

const AUTH_METHODS = ["none", "client_secret_post", "client_secret_basic", "private_key_jwt"];

/**
 * Authorization-server metadata, served at `/.well-known/oauth-authorization-server`.
 * https://www.rfc-editor.org/rfc/rfc8414#section-2
 */
export function authorizationServerMetadata() {
  const { issuer } = getOAuthConfig();
  const endpoints = oauthEndpoints(issuer);
  return {
    issuer,
    authorization_endpoint: endpoints.authorization,
    token_endpoint: endpoints.token,
    registration_endpoint: endpoints.registration,
    revocation_endpoint: endpoints.revocation,
    scopes_supported: SUPPORTED_SCOPES,
    response_types_supported: ["code"],
    response_modes_supported: ["query"],
    grant_types_supported: ["authorization_code", "refresh_token"],
    code_challenge_methods_supported: ["S256"],
    // private_key_jwt: for clients known by their metadata document that declare it (ChatGPT).
    token_endpoint_auth_methods_supported: AUTH_METHODS,
    token_endpoint_auth_signing_alg_values_supported: ASSERTION_SIGNING_ALGORITHMS,
    revocation_endpoint_auth_methods_supported: AUTH_METHODS,
    revocation_endpoint_auth_signing_alg_values_supported: ASSERTION_SIGNING_ALGORITHMS,
    // A client_id that is an https URL names the client's metadata document (CIMD).
    client_id_metadata_document_supported: true,
    // RFC 9207: the redirect carries `iss` so a client can tell which server answered.
    authorization_response_iss_parameter_supported: true,
    service_documentation: `${issuer}/`,
  };
}

/**
 * Protected-resource metadata for the MCP endpoint, served at
 * `/.well-known/oauth-protected-resource` and `/.well-known/oauth-protected-resource/api/mcp`.
 * `resource` is exactly `${APP_URL}/api/mcp` (the RFC 8707 audience OAuth tokens are bound to);
 * the one authorization server is APP_URL itself. Built from APP_URL, never from request headers.
 * https://www.rfc-editor.org/rfc/rfc9728#section-2
 */
export function protectedResourceMetadata() {
  const { issuer, resource } = getOAuthConfig();
  return {
    resource,
    authorization_servers: [issuer],
    bearer_methods_supported: ["header"],
    scopes_supported: SUPPORTED_SCOPES,
    resource_name: "Ledgerlink",
    resource_documentation: `${issuer}/`,
  };
}

/** Where clients find `protectedResourceMetadata()` (RFC 9728 §3.1: well-known prefix + resource path). */
export function protectedResourceMetadataUrl(): string {
  const { issuer } = getOAuthConfig();
  return `${issuer}/.well-known/oauth-protected-resource/api/mcp`;
}
