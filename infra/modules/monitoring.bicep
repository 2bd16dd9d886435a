// Log Analytics workspace and the workspace-based Application Insights component the Function App
// reports to. Local (instrumentation-key) ingestion is disabled: the app sends telemetry with its
// managed identity, which holds Monitoring Metrics Publisher on the component (roles.bicep).

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

@description('Name of the Application Insights component.')
output applicationInsightsName string = applicationInsights.name

@description('Resource id of the Log Analytics workspace.')
output workspaceId string = workspace.id
