// Log Analytics workspace and the workspace-based Application Insights component the Function App
// reports to. Local (instrumentation-key) ingestion is disabled: the app sends telemetry with its
// managed identity, which holds Monitoring Metrics Publisher on the component (roles.bicep).
//
// And an alert when a queue message is poisoned: the Functions host gives up on a message after 5
// failed tries and moves it to `<queue>-poison`, logging a warning ("Message has reached
// MaxDequeueCount of 5. Moving message to queue '<queue>-poison'."). A log alert on that line, one
// alert per queue, rather than a metric alert: Azure Storage's queue metrics count the messages of
// the whole account, not of one queue, so they cannot tell a poison queue from a busy one.
//
// And what the service's own telemetry shows (docs/api.md#telemetry; the app exports it through the
// Azure Monitor OpenTelemetry distro): three alerts, on the 5xx rate of its requests, on the age of
// the oldest outbox batch not yet delivered, and on seals that fail; and a workbook that puts the
// requests, seals, envelopes, outbox, webhooks and storage calls on one page (docs/deploy.md,
// "Watching it").

@description('Name of the Log Analytics workspace.')
param logAnalyticsName string

@description('Name of the Application Insights component.')
param applicationInsightsName string

@description('Azure region of both resources.')
param location string

@description('Tags for both resources.')
param tags object = {}

@minValue(30)
@maxValue(730)
@description('Days the workspace keeps logs and telemetry. 30 days are included in the ingestion price.')
param retentionInDays int = 30

@description('Daily ingestion cap in GB, a ceiling on what a log flood can cost; -1 means no cap. Telemetry past the cap is dropped until the next day.')
param dailyQuotaGb int = 1

@description('E-mail address told when a queue message is poisoned; empty fires the alert in the portal only.')
param alertEmail string = ''

@description('Name of the action group that e-mails alertEmail.')
param actionGroupName string = 'ag-${applicationInsightsName}'

@minValue(1)
@maxValue(100)
@description('Percent of the API\'s requests answered 5xx over 5 minutes (at least 20 requests) that fires the 5xx alert.')
param serverErrorRatePercent int = 5

@minValue(60)
@description('Age in seconds of the oldest outbox batch not yet delivered (metric outbox.oldest_age) that fires the outbox alert. E-mails and webhook events normally leave within a minute; the sweeper looks again every minute.')
param outboxAgeAlertSeconds int = 900

resource workspace 'Microsoft.OperationalInsights/workspaces@2023-09-01' = {
  name: logAnalyticsName
  location: location
  tags: tags
  properties: {
    sku: {
      name: 'PerGB2018'
    }
    retentionInDays: retentionInDays
    workspaceCapping: {
      dailyQuotaGb: dailyQuotaGb
    }
    features: {
      enableLogAccessUsingOnlyResourcePermissions: true
    }
    publicNetworkAccessForIngestion: 'Enabled'
    publicNetworkAccessForQuery: 'Enabled'
  }
}

resource applicationInsights 'Microsoft.Insights/components@2020-02-02' = {
  name: applicationInsightsName
  location: location
  tags: tags
  kind: 'web'
  properties: {
    Application_Type: 'web'
    WorkspaceResourceId: workspace.id
    IngestionMode: 'LogAnalytics'
    // Entra ID only: the connection string alone cannot send telemetry.
    DisableLocalAuth: true
    publicNetworkAccessForIngestion: 'Enabled'
    publicNetworkAccessForQuery: 'Enabled'
  }
}

resource actionGroup 'Microsoft.Insights/actionGroups@2023-01-01' = if (!empty(alertEmail)) {
  name: actionGroupName
  location: 'global'
  tags: tags
  properties: {
    groupShortName: 'envelopes'
    enabled: true
    emailReceivers: [
      {
        name: 'operator'
        emailAddress: alertEmail
        useCommonAlertSchema: true
      }
    ]
  }
}

// The host's warning when it moves a message to a poison queue, one alert per queue.
var poisonQuery = '''
traces
| where message has "MaxDequeueCount" and message has "-poison"
| extend Queue = extract(@"queue '([^']+)'", 1, message)
'''

resource poisonAlert 'Microsoft.Insights/scheduledQueryRules@2023-12-01' = {
  name: 'alert-poison-${applicationInsightsName}'
  location: location
  tags: tags
  kind: 'LogAlert'
  properties: {
    displayName: 'Queue message poisoned (envelope signing service)'
    description: 'A queue message failed 5 times and was moved to <queue>-poison: in outbox-email-poison an e-mail was not sent (the recipient\'s lastEmail says failed), in outbox-events-poison a webhook event was not fanned out, in webhook-deliveries-poison a webhook delivery attempt could not be processed. Read the message (az storage message peek --auth-mode login), fix the cause (the exceptions of the function in Application Insights), then move it back to its queue or delete it (docs/deploy.md).'
    severity: 2
    enabled: true
    evaluationFrequency: 'PT5M'
    windowSize: 'PT5M'
    scopes: [
      applicationInsights.id
    ]
    // The traces table is empty until the app logs for the first time.
    skipQueryValidation: true
    autoMitigate: false
    criteria: {
      allOf: [
        {
          query: poisonQuery
          timeAggregation: 'Count'
          operator: 'GreaterThan'
          threshold: 0
          dimensions: [
            {
              name: 'Queue'
              operator: 'Include'
              values: [
                '*'
              ]
            }
          ]
          failingPeriods: {
            numberOfEvaluationPeriods: 1
            minFailingPeriodsToAlert: 1
          }
        }
      ]
    }
    actions: {
      actionGroups: empty(alertEmail) ? [] : [
        actionGroup.id
      ]
    }
  }
}

// The service's own request spans are named '<METHOD> /api/<route template>' (the Functions host's
// invocations, named after the function, are left out); itemCount undoes sampling.
var serverErrorQuery = '''
requests
| where name matches regex @"^[A-Z]+ /api/"
| summarize Requests = sum(itemCount), Errors = sumif(itemCount, toint(resultCode) >= 500)
| where Requests >= 20
| extend ErrorPercent = 100.0 * Errors / Requests
'''

resource serverErrorAlert 'Microsoft.Insights/scheduledQueryRules@2023-12-01' = {
  name: 'alert-5xx-${applicationInsightsName}'
  location: location
  tags: tags
  kind: 'LogAlert'
  properties: {
    displayName: 'API answers 5xx (envelope signing service)'
    description: 'More than ${serverErrorRatePercent}% of the API\'s requests over 5 minutes were answered with a 5xx status. 503 storage-unavailable: the storage account does not answer; 503 timestamp-authority-unavailable: the TSA is down (completions wait and are retried); 500: a fault, whose correlation id is in the traces. Open the workbook (docs/deploy.md, "Watching it").'
    severity: 1
    enabled: true
    evaluationFrequency: 'PT5M'
    windowSize: 'PT5M'
    scopes: [
      applicationInsights.id
    ]
    // The requests table is empty until the app answers its first request.
    skipQueryValidation: true
    autoMitigate: true
    criteria: {
      allOf: [
        {
          query: serverErrorQuery
          timeAggregation: 'Maximum'
          metricMeasureColumn: 'ErrorPercent'
          operator: 'GreaterThan'
          threshold: serverErrorRatePercent
          failingPeriods: {
            numberOfEvaluationPeriods: 1
            minFailingPeriodsToAlert: 1
          }
        }
      ]
    }
    actions: {
      actionGroups: empty(alertEmail) ? [] : [
        actionGroup.id
      ]
    }
  }
}

// outbox.oldest_age: seconds since the change of the oldest batch with a message not yet delivered,
// as the sweeper's last run saw it.
var outboxAgeQuery = '''
customMetrics
| where name == "outbox.oldest_age"
| summarize AgeSeconds = max(valueMax)
'''

resource outboxAgeAlert 'Microsoft.Insights/scheduledQueryRules@2023-12-01' = {
  name: 'alert-outbox-${applicationInsightsName}'
  location: location
  tags: tags
  kind: 'LogAlert'
  properties: {
    displayName: 'Outbox stuck (envelope signing service)'
    description: 'An e-mail, text message or webhook event has waited more than ${outboxAgeAlertSeconds} seconds since its change (metric outbox.oldest_age). The mail service or Communication Services refusing or unreachable, a queue function failing (its exceptions), or the sweeper not running. See docs/deploy.md, "Watching it", and the poison queues.'
    severity: 2
    enabled: true
    evaluationFrequency: 'PT5M'
    windowSize: 'PT15M'
    scopes: [
      applicationInsights.id
    ]
    // The customMetrics table is empty until the app's first metrics export.
    skipQueryValidation: true
    autoMitigate: true
    criteria: {
      allOf: [
        {
          query: outboxAgeQuery
          timeAggregation: 'Maximum'
          metricMeasureColumn: 'AgeSeconds'
          operator: 'GreaterThan'
          threshold: outboxAgeAlertSeconds
          failingPeriods: {
            numberOfEvaluationPeriods: 1
            minFailingPeriodsToAlert: 1
          }
        }
      ]
    }
    actions: {
      actionGroups: empty(alertEmail) ? [] : [
        actionGroup.id
      ]
    }
  }
}

// seal.duration counts every seal with its outcome; `failed` is a seal that did not complete
// (a race lost to another completion is `contended`, not a failure).
var sealFailureQuery = '''
customMetrics
| where name == "seal.duration" and tostring(customDimensions["seal.outcome"]) == "failed"
| summarize Failures = sum(valueCount)
'''

resource sealFailureAlert 'Microsoft.Insights/scheduledQueryRules@2023-12-01' = {
  name: 'alert-seal-${applicationInsightsName}'
  location: location
  tags: tags
  kind: 'LogAlert'
  properties: {
    displayName: 'Seals failing (envelope signing service)'
    description: 'A completion\'s seal failed in the last 15 minutes (metric seal.duration, seal.outcome failed). Most often the timestamp authority (TSA_URL) or a revocation source (OCSP, CRL) did not answer: GET /api/health then says degraded, and the sweeper retries the completions. The exceptions and the seal spans (dependencies named seal) say which.'
    severity: 2
    enabled: true
    evaluationFrequency: 'PT5M'
    windowSize: 'PT15M'
    scopes: [
      applicationInsights.id
    ]
    skipQueryValidation: true
    autoMitigate: true
    criteria: {
      allOf: [
        {
          query: sealFailureQuery
          timeAggregation: 'Total'
          metricMeasureColumn: 'Failures'
          operator: 'GreaterThan'
          threshold: 0
          failingPeriods: {
            numberOfEvaluationPeriods: 1
            minFailingPeriodsToAlert: 1
          }
        }
      ]
    }
    actions: {
      actionGroups: empty(alertEmail) ? [] : [
        actionGroup.id
      ]
    }
  }
}

// The workbook: one page with what an operator looks at (docs/deploy.md, "Watching it").
var workbookQueries = [
  {
    title: 'API requests and 5xx answers (per 5 minutes)'
    query: 'requests | where name matches regex @"^[A-Z]+ /api/" | summarize Requests = sum(itemCount), Errors5xx = sumif(itemCount, toint(resultCode) >= 500) by bin(timestamp, 5m) | render timechart'
    visualization: 'timechart'
  }
  {
    title: 'Slowest routes (duration in ms)'
    query: 'requests | where name matches regex @"^[A-Z]+ /api/" | summarize Requests = sum(itemCount), P50 = percentile(duration, 50), P95 = percentile(duration, 95), Errors5xx = sumif(itemCount, toint(resultCode) >= 500) by Route = name | order by P95 desc'
    visualization: 'table'
  }
  {
    title: '5xx answers by route and status (per hour)'
    query: 'customMetrics | where name == "http.server.errors" | extend Route = tostring(customDimensions["http.route"]), Status = tostring(customDimensions["http.response.status_code"]) | summarize Errors = sum(value) by Route, Status, bin(timestamp, 1h) | order by timestamp desc'
    visualization: 'table'
  }
  {
    title: 'Envelopes sent and completed (per hour)'
    query: 'customMetrics | where name in ("envelopes.sent", "envelopes.completed") | summarize Envelopes = sum(value) by name, bin(timestamp, 1h) | render columnchart'
    visualization: 'barchart'
  }
  {
    title: 'Seals: count, mean and longest duration (seconds) by outcome'
    query: 'customMetrics | where name == "seal.duration" | extend Outcome = tostring(customDimensions["seal.outcome"]) | summarize Seals = sum(valueCount), MeanSeconds = sum(value) / sum(valueCount), LongestSeconds = max(valueMax) by Outcome, bin(timestamp, 1h) | order by timestamp desc'
    visualization: 'table'
  }
  {
    title: 'Oldest outbox batch not yet delivered (seconds)'
    query: 'customMetrics | where name == "outbox.oldest_age" | summarize AgeSeconds = max(valueMax) by bin(timestamp, 5m) | render timechart'
    visualization: 'timechart'
  }
  {
    title: 'Webhook delivery attempts that failed (per hour)'
    query: 'customMetrics | where name == "webhook.failures" | extend Outcome = tostring(customDimensions["webhook.outcome"]), Status = tostring(customDimensions["http.response.status_code"]) | summarize Failures = sum(value) by Outcome, Status, bin(timestamp, 1h) | order by timestamp desc'
    visualization: 'table'
  }
  {
    title: 'Storage calls, seals, e-mails and webhooks: slowest and failing'
    query: 'dependencies | summarize Calls = sum(itemCount), P95 = percentile(duration, 95), Failed = sumif(itemCount, success == false) by name | order by P95 desc | take 25'
    visualization: 'table'
  }
  {
    title: 'Warnings and errors logged'
    query: 'traces | where severityLevel >= 2 | project timestamp, severityLevel, message, operation_Id | order by timestamp desc | take 100'
    visualization: 'table'
  }
]

var workbookItems = [for (item, index) in workbookQueries: {
  type: 3
  content: {
    version: 'KqlItem/1.0'
    query: item.query
    size: 0
    title: item.title
    timeContext: {
      durationMs: 86400000
    }
    queryType: 0
    resourceType: 'microsoft.insights/components'
    visualization: item.visualization
  }
  name: 'query-${index}'
}]

var workbook = {
  version: 'Notebook/1.0'
  items: concat([
    {
      type: 1
      content: {
        json: '## Envelope signing service\nRequests, seals, envelopes, the outbox, webhooks and storage, from the service\'s own telemetry (docs/api.md#telemetry). Alerts: 5xx rate, outbox age, seal failures, poisoned queue messages.'
      }
      name: 'intro'
    }
  ], workbookItems)
  isLocked: false
  fallbackResourceIds: [
    applicationInsights.id
  ]
}

resource operationsWorkbook 'Microsoft.Insights/workbooks@2023-06-01' = {
  // A workbook's name is a GUID.
  name: guid(applicationInsights.id, 'operations-workbook')
  location: location
  tags: tags
  kind: 'shared'
  properties: {
    displayName: 'Envelope signing service: operations'
    category: 'workbook'
    sourceId: applicationInsights.id
    serializedData: string(workbook)
    version: 'Notebook/1.0'
  }
}

@description('Name of the Application Insights component.')
output applicationInsightsName string = applicationInsights.name

@description('Names of the alert rules on the service\'s telemetry: 5xx rate, outbox age, seal failures.')
output telemetryAlertNames array = [
  serverErrorAlert.name
  outboxAgeAlert.name
  sealFailureAlert.name
]

@description('Display name of the operations workbook.')
output workbookName string = operationsWorkbook.properties.displayName

@description('Name of the poison-queue alert rule.')
output poisonAlertName string = poisonAlert.name

@description('Resource id of the Log Analytics workspace.')
output workspaceId string = workspace.id
