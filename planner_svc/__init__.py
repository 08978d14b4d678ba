"""planner_svc: turns prompts into plans (PlannerService). Holds no durable state."""
