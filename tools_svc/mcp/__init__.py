"""Tools from MCP servers: mounting them (mounts), one session each (connection), and the
translation between MCP's tools and results and agentrt's catalog (names, translate)."""
