{{- define "packyard.fullname" -}}{{ .Release.Name }}-packyard{{- end }}
{{- define "packyard.image" -}}{{ .Values.image.repository }}:{{ default .Chart.AppVersion .Values.image.tag }}{{- end }}
{{- define "packyard.labels" -}}
app.kubernetes.io/name: packyard
app.kubernetes.io/instance: {{ .Release.Name }}
app.kubernetes.io/version: {{ .Chart.AppVersion | quote }}
{{- end }}
{{- define "packyard.masterKeySecret" -}}{{ default (printf "%s-master-key" (include "packyard.fullname" .)) .Values.masterKey.existingSecret }}{{- end }}
{{- define "packyard.internalAuthKeySecret" -}}{{ default (printf "%s-internal-auth-key" (include "packyard.fullname" .)) .Values.internalAuthKey.existingSecret }}{{- end }}

{{/*
What each module uses, as its module graph in the code says (services/<module>/src/module.ts):
grpc = it serves gRPC (grpc-server), kafka = the bus, s3 = the blob store, mongodb = its
own event store. charts/packyard/chart.int.spec.ts fails when this and the code differ.
*/}}
{{- define "packyard.moduleUses" -}}
gateway: [grpc, s3]
identity: [grpc, kafka, mongodb]
workspace: [grpc, kafka, mongodb]
repository: [grpc, kafka, mongodb, s3]
artifact: [grpc, kafka, mongodb, s3]
token: [grpc, kafka, mongodb]
signing: [grpc, kafka, mongodb]
delivery: [grpc, kafka, mongodb, s3]
{{- end }}

{{/* environment shared by every process, whatever its target */}}
{{- define "packyard.commonEnv" -}}
- { name: LOG_LEVEL, value: {{ .Values.logLevel | quote }} }
{{- with .Values.publicUrl }}
- { name: PUBLIC_URL, value: {{ . | quote }} }
{{- end }}
- { name: PORT, value: {{ .Values.ports.http | quote }} }
- { name: METRICS_PORT, value: {{ .Values.ports.metrics | quote }} }
- { name: METRICS_HOST, value: "0.0.0.0" }
- name: PACKYARD_MASTER_KEY
  valueFrom: { secretKeyRef: { name: {{ include "packyard.masterKeySecret" . }}, key: masterKey } }
- name: INTERNAL_AUTH_KEY
  valueFrom: { secretKeyRef: { name: {{ include "packyard.internalAuthKeySecret" . }}, key: internalAuthKey } }
{{- end }}

{{/* liveness: the process is not wedged; readiness: every module started and what it calls answers */}}
{{- define "packyard.probes" -}}
readinessProbe:
  httpGet: { path: /api/actuator/health, port: http }
  periodSeconds: 5
livenessProbe:
  httpGet: { path: /api/actuator/health/liveness, port: http }
  periodSeconds: 10
{{- end }}

{{- define "packyard.podAnnotations" -}}
{{- if .Values.metrics.podAnnotations }}
prometheus.io/scrape: "true"
prometheus.io/port: {{ .Values.ports.metrics | quote }}
prometheus.io/path: /metrics
{{- end }}
{{- end }}

{{/* a Secret holding a base64 32-byte key, created on install and kept across upgrades and uninstalls */}}
{{- define "packyard.keySecret" -}}
{{- $root := index . 0 }}{{- $name := index . 1 }}{{- $key := index . 2 }}
apiVersion: v1
kind: Secret
metadata:
  name: {{ $name }}
  labels: {{- include "packyard.labels" $root | nindent 4 }}
  annotations:
    # losing the key on an upgrade or uninstall would lose what it protects
    helm.sh/resource-policy: keep
type: Opaque
data:
  {{- $existing := lookup "v1" "Secret" $root.Release.Namespace $name }}
  {{ $key }}: {{ if $existing }}{{ index $existing.data $key }}{{ else }}{{ randAlphaNum 32 | b64enc | b64enc }}{{ end }}
{{- end }}
