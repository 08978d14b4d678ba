"""Run and plan rules the services share: plan validation (plans), step references (refs), run
statuses and usage (runstate), and tool JSON Schemas (schemas, needs the `server` extra)."""
