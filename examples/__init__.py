"""Example tool providers (see README: "Writing a tool provider")."""
