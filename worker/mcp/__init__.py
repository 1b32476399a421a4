"""`citavial mcp`: the verified passages as an MCP server."""
