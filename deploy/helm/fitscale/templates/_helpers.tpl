{{- define "fitscale.labels" -}}
app.kubernetes.io/name: fitscale
app.kubernetes.io/instance: {{ .Release.Name }}
app.kubernetes.io/version: {{ .Chart.AppVersion | quote }}
app.kubernetes.io/managed-by: {{ .Release.Service }}
{{- end }}
{{- define "fitscale.selector" -}}
app.kubernetes.io/name: fitscale
app.kubernetes.io/instance: {{ .Release.Name }}
{{- end }}
