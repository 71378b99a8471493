/** The service version (MCP server info, OpenAPI info, --version). */
export const SERVICE_VERSION = "0.1.0";
