"""tools_svc: hosts the tool catalog (built-in tools now, providers later) behind ToolService."""
