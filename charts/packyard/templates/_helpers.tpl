{{- define "packyard.fullname" -}}{{ .Release.Name }}-packyard{{- end }}
{{- define "packyard.image" -}}{{ .Values.image.repository }}:{{ default .Chart.AppVersion .Values.image.tag }}{{- end }}
{{- define "packyard.labels" -}}
app.kubernetes.io/name: packyard
app.kubernetes.io/instance: {{ .Release.Name }}
app.kubernetes.io/version: {{ .Chart.AppVersion | quote }}
{{- end }}
{{- define "packyard.masterKeySecret" -}}{{ default (printf "%s-master-key" (include "packyard.fullname" .)) .Values.masterKey.existingSecret }}{{- end }}
{{/* environment shared by every module */}}
{{- define "packyard.commonEnv" -}}
- name: LOG_LEVEL
  value: {{ .Values.logLevel | quote }}
{{- with .Values.publicUrl }}
- name: PUBLIC_URL
  value: {{ . | quote }}
{{- end }}
- name: PACKYARD_MASTER_KEY
  valueFrom: { secretKeyRef: { name: {{ include "packyard.masterKeySecret" . }}, key: masterKey } }
{{- end }}
{{- define "packyard.probes" -}}
readinessProbe:
  httpGet: { path: /api/actuator/health/readiness, port: http }
  periodSeconds: 5
livenessProbe:
  httpGet: { path: /api/actuator/health/liveness, port: http }
  periodSeconds: 10
{{- end }}
