"""The rule planner's stages (normalise, segment, parse, resolve, plan), each one module with
values in and out; planner_svc/rules.py runs them in order and is the only one that plans."""
