"""Mounted A2A agents: each skill of a remote agent's card is a tool (agents.py)."""
