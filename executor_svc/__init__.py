"""executor_svc: owns runs. Stores runs, steps and events; plans through planner_svc and runs
steps through tools_svc; serves RunService."""
