// Log Analytics workspace and the workspace-based Application Insights component the Function App
// reports to. Local (instrumentation-key) ingestion is disabled: the app sends telemetry with its
// managed identity, which holds Monitoring Metrics Publisher on the component (roles.bicep).
//
// And an alert when a queue message is poisoned: the Functions host gives up on a message after 5
// failed tries and moves it to `<queue>-poison`, logging a warning ("Message has reached
// MaxDequeueCount of 5. Moving message to queue '<queue>-poison'."). A log alert on that line, one
// alert per queue, rather than a metric alert: Azure Storage's queue metrics count the messages of
// the whole account, not of one queue, so they cannot tell a poison queue from a busy one.

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

@description('Name of the Application Insights component.')
output applicationInsightsName string = applicationInsights.name

@description('Name of the poison-queue alert rule.')
output poisonAlertName string = poisonAlert.name

@description('Resource id of the Log Analytics workspace.')
output workspaceId string = workspace.id
