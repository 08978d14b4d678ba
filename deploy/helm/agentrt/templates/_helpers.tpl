{{/* The release's name for its objects: "<release>-agentrt", or the release name when it already says agentrt. */}}
{{- define "agentrt.fullname" -}}
{{- if contains "agentrt" .Release.Name -}}
{{- .Release.Name | trunc 40 | trimSuffix "-" -}}
{{- else -}}
{{- printf "%s-agentrt" .Release.Name | trunc 40 | trimSuffix "-" -}}
{{- end -}}
{{- end -}}

{{/* Labels of every object; (dict "root" $ "component" "executor"). */}}
{{- define "agentrt.labels" -}}
helm.sh/chart: {{ printf "%s-%s" .root.Chart.Name .root.Chart.Version }}
app.kubernetes.io/managed-by: {{ .root.Release.Service }}
app.kubernetes.io/version: {{ .root.Chart.AppVersion | quote }}
{{ include "agentrt.selector" . }}
{{- end -}}

{{/* What a component's pods are selected by. */}}
{{- define "agentrt.selector" -}}
app.kubernetes.io/name: agentrt
app.kubernetes.io/instance: {{ .root.Release.Name }}
app.kubernetes.io/component: {{ .component }}
{{- end -}}

{{/* A component's image: <registry>/<prefix>-<target>:<tag>, the Dockerfile's target of that name. */}}
{{- define "agentrt.image" -}}
{{- $image := .root.Values.image -}}
{{- $name := printf "%s-%s:%s" $image.prefix .target (default .root.Chart.AppVersion $image.tag) -}}
{{- if $image.registry -}}{{ printf "%s/%s" (trimSuffix "/" $image.registry) $name }}{{- else -}}{{ $name }}{{- end -}}
{{- end -}}

{{/* The Secret holding the credentials: the user's, or the one this chart makes. */}}
{{- define "agentrt.secret" -}}
{{- default (printf "%s-secrets" (include "agentrt.fullname" .)) .Values.secrets.existingSecret -}}
{{- end -}}

{{/* The gRPC target of a component: every pod of it, by its headless Service's DNS records. */}}
{{- define "agentrt.target" -}}
{{- printf "dns:///%s-%s:%v" (include "agentrt.fullname" .root) .component (index .root.Values .component).grpcPort -}}
{{- end -}}

{{/* One variable from the Secret; (dict "root" $ "name" "AGENTRT_X" "key" "x" "optional" true). */}}
{{- define "agentrt.secretEnv" -}}
- name: {{ .name }}
  valueFrom:
    secretKeyRef:
      name: {{ include "agentrt.secret" .root }}
      key: {{ .key }}
      optional: {{ .optional }}
{{- end -}}

{{/* The container security context every agentrt container runs with. */}}
{{- define "agentrt.containerSecurity" -}}
allowPrivilegeEscalation: false
readOnlyRootFilesystem: true
capabilities:
  drop: [ALL]
{{- end -}}
