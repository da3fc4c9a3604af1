/**
 * RFC 9728 protected-resource metadata for the resource `${APP_URL}/api/mcp`, at the path the
 * 401 challenge's `resource_metadata` names (RFC 9728 §3.1: well-known prefix + resource path).
 */
export { DELETE, GET, OPTIONS, PATCH, POST, PUT } from "../../route";

export const dynamic = "force-dynamic";
