// The Function App on the Flex Consumption plan (Linux, Node 22), running as its user-assigned
// managed identity.
//
// Flex Consumption moved the runtime, scale and deployment settings into properties.functionAppConfig
// and rejects the app settings and site properties that used to carry them (FUNCTIONS_WORKER_RUNTIME,
// WEBSITE_NODE_DEFAULT_VERSION, WEBSITE_RUN_FROM_PACKAGE, WEBSITE_CONTENT*, linuxFxVersion,
// alwaysOn, ...): none of them is set here, and tests/infra checks that none creeps back in.
// https://learn.microsoft.com/azure/azure-functions/functions-app-settings#flex-consumption-plan-deprecations

@description('Name of the Function App (globally unique; it is the host name <name>.azurewebsites.net).')
param name string

@description('Name of the Flex Consumption plan.')
param planName string

@description('Azure region of the plan and the app.')
param location string

@description('Tags for the plan and the app.')
param tags object = {}

@description('Resource id of the app\'s user-assigned managed identity.')
param identityId string

@description('Client id of the app\'s user-assigned managed identity.')
param identityClientId string

@description('Name of the storage account: the app\'s data, the host storage and the deployment container.')
param storageAccountName string

@description('Name of the blob container the plan deploys the app package from.')
param deploymentContainerName string

@description('Name of the Application Insights component the app reports to.')
param applicationInsightsName string

@description('Name of the Key Vault the app settings reference.')
param keyVaultName string

@description('Names of the secrets in the vault: { jwtSecret, logSigningKey, turnstileSecretKey, sealP12Base64, sealP12Passphrase }.')
param secretNames object

@allowed([
  2048
  4096
])
@description('Memory of each instance, MB.')
param instanceMemoryMB int = 2048

@minValue(1)
@maxValue(1000)
@description('Most instances the app scales out to.')
param maximumInstanceCount int = 40

@minValue(0)
@maxValue(20)
@description('Instances kept running for the HTTP functions; 0 scales to zero (no idle compute cost, cold starts of a few seconds).')
param httpAlwaysReadyInstances int = 0

@description('Comma-separated origins allowed to call the API (ALLOWED_ORIGINS); * allows any.')
param allowedOrigins string

@description('JWT iss claim (JWT_ISSUER).')
param jwtIssuer string

@description('JWT aud claim (JWT_AUDIENCE).')
param jwtAudience string

@description('Lifetime of an access token, seconds (JWT_TTL_SECONDS).')
param jwtTtlSeconds int

@description('bcrypt cost of password hashes (BCRYPT_COST).')
param bcryptCost int

@allowed([
  'off'
  'optional'
  'required'
])
@description('Cloudflare Turnstile: off (tokens ignored), optional (a token that is sent is verified) or required.')
param turnstileMode string

@description('Cloudflare Turnstile site key (TURNSTILE_SITE_KEY, public): the widget on the public link page; empty shows none.')
param turnstileSiteKey string

@description('RFC 3161 timestamp authority (TSA_URL); empty seals without a timestamp.')
param tsaUrl string

@description('PAdES level of every seal (SEAL_LEVEL); empty means the service\'s default (B-LTA with a timestamp authority, else B-B).')
param sealLevel string

@description('Lifetime of an upload SAS URL, seconds (UPLOAD_URL_TTL_SECONDS).')
param uploadUrlTtlSeconds int

@description('Largest document accepted, bytes (MAX_DOCUMENT_BYTES).')
param maxDocumentBytes int

@description('Origin that links in e-mails point at (PUBLIC_BASE_URL), such as https://sign.example.com; empty means the app\'s own https://<default host name>.')
param publicBaseUrl string

@description('Queue endpoint of the storage account, ending in a slash (the queue triggers\' AzureWebJobsStorage__queueServiceUri).')
param queueEndpoint string

@description('Azure Communication Services endpoint the app sends e-mail through with its identity (ACS_EMAIL_ENDPOINT).')
param acsEmailEndpoint string

@description('Sender of every e-mail (EMAIL_FROM), an RFC 5322 mailbox of a domain linked to the Communication Service.')
param emailFrom string

@description('NCRONTAB schedule of the sweeper, six fields, seconds first (SWEEP_SCHEDULE).')
param sweepSchedule string

@description('Delays between webhook delivery attempts, comma-separated seconds (WEBHOOK_RETRY_SECONDS).')
param webhookRetrySeconds string

@description('Default lifetime of a sent envelope, days (ENVELOPE_TTL_DAYS).')
param envelopeTtlDays int

@description('Days every sealed PDF stays immutable after it is written: the storage policy of container sealed (SEALED_RETENTION_DAYS).')
param sealedRetentionDays int

@description('Requests per owner and minute on the owner endpoints, per instance (RATE_LIMIT_PER_MINUTE).')
param rateLimitPerMinute int

@description('Register and Login requests per client address and minute, per instance (AUTH_RATE_LIMIT_PER_MINUTE).')
param authRateLimitPerMinute int

@description('Proxies in front of the app that append to X-Forwarded-For (TRUST_PROXY).')
param trustProxy int

@description('bcrypt hashes running at once per instance (MAX_CONCURRENT_PASSWORD_HASHES).')
param maxConcurrentBcryptHashes int

@description('E-mails an owner\'s sends and resends may queue per UTC day (EMAIL_DAILY_QUOTA).')
param emailDailyQuota int

@description('Sender of text messages (SMS_FROM); empty: no text messages, and none of their settings.')
param smsFrom string = ''

@description('Text messages an organization\'s sends and resends may queue per UTC day (SMS_DAILY_QUOTA).')
param smsDailyQuota int = 100

@description('How long the token of an embedded signing view works, seconds (EMBED_TOKEN_TTL_SECONDS).')
param embedTokenTtlSeconds int

@description('Least time between two signed tree heads of the public log, seconds (LOG_STH_INTERVAL_SECONDS).')
param logSthIntervalSeconds int

resource storageAccount 'Microsoft.Storage/storageAccounts@2023-05-01' existing = {
  name: storageAccountName
}

resource applicationInsights 'Microsoft.Insights/components@2020-02-02' existing = {
  name: applicationInsightsName
}

resource plan 'Microsoft.Web/serverfarms@2024-04-01' = {
  name: planName
  location: location
  tags: tags
  kind: 'functionapp'
  sku: {
    name: 'FC1'
    tier: 'FlexConsumption'
  }
  properties: {
    reserved: true
  }
}

// App settings (docs/api.md#configuration). Secrets are Key Vault references, resolved by the platform with the
// identity in keyVaultReferenceIdentity; the values never pass through a deployment.
var baseSettings = {
  // Functions host storage over the managed identity: no connection string, no key.
  AzureWebJobsStorage__accountName: storageAccount.name
  AzureWebJobsStorage__credential: 'managedidentity'
  AzureWebJobsStorage__clientId: identityClientId
  // The queue-triggered functions use the connection AzureWebJobsStorage (the app's own account
  // holds the queues) with the same identity; the queue endpoint is spelled out for them.
  AzureWebJobsStorage__queueServiceUri: queueEndpoint
  // DefaultAzureCredential in the app picks the user-assigned identity by this client id.
  AZURE_CLIENT_ID: identityClientId
  APPLICATIONINSIGHTS_CONNECTION_STRING: applicationInsights.properties.ConnectionString
  APPLICATIONINSIGHTS_AUTHENTICATION_STRING: 'ClientId=${identityClientId};Authorization=AAD'
  // With STORAGE_ACCOUNT_NAME and no STORAGE_CONNECTION_STRING the app uses the managed identity
  // and user-delegation SAS.
  STORAGE_ACCOUNT_NAME: storageAccount.name
  JWT_SECRET: '@Microsoft.KeyVault(VaultName=${keyVaultName};SecretName=${secretNames.jwtSecret})'
  JWT_ISSUER: jwtIssuer
  JWT_AUDIENCE: jwtAudience
  JWT_TTL_SECONDS: string(jwtTtlSeconds)
  BCRYPT_COST: string(bcryptCost)
  SEAL_P12_BASE64: '@Microsoft.KeyVault(VaultName=${keyVaultName};SecretName=${secretNames.sealP12Base64})'
  SEAL_P12_PASSPHRASE: '@Microsoft.KeyVault(VaultName=${keyVaultName};SecretName=${secretNames.sealP12Passphrase})'
  // The public log (docs/api.md#public-log): its Ed25519 key's seed, and how often it signs a tree head.
  LOG_SIGNING_KEY: '@Microsoft.KeyVault(VaultName=${keyVaultName};SecretName=${secretNames.logSigningKey})'
  LOG_STH_INTERVAL_SECONDS: string(logSthIntervalSeconds)
  UPLOAD_URL_TTL_SECONDS: string(uploadUrlTtlSeconds)
  MAX_DOCUMENT_BYTES: string(maxDocumentBytes)
  ALLOWED_ORIGINS: allowedOrigins
  // Notifications (docs/api.md#configuration, docs/api.md#e-mail): links in e-mails, the e-mail service, the sweeper, webhooks.
  PUBLIC_BASE_URL: empty(publicBaseUrl) ? 'https://${site.properties.defaultHostName}' : publicBaseUrl
  ACS_EMAIL_ENDPOINT: acsEmailEndpoint
  EMAIL_FROM: emailFrom
  SWEEP_SCHEDULE: sweepSchedule
  WEBHOOK_RETRY_SECONDS: webhookRetrySeconds
  ENVELOPE_TTL_DAYS: string(envelopeTtlDays)
  // The end of a refused deletion's period when storage does not give it (docs/api.md#sealed-pdfs-are-immutable).
  SEALED_RETENTION_DAYS: string(sealedRetentionDays)
  // Outbound network policy: webhooks, revocation sources and embedded views reach public addresses
  // only; loopback and private networks are for development. (WEBHOOK_ALLOW_PRIVATE_NETWORKS, its
  // older name, is not set: this one would win anyway.)
  OUTBOUND_ALLOW_PRIVATE_NETWORKS: 'false'
  // Only owners who proved they read mail at their address send in its name.
  REQUIRE_EMAIL_VERIFICATION: 'true'
  // Rate limits and quotas (docs/api.md "Rate limits and quotas").
  RATE_LIMIT_PER_MINUTE: string(rateLimitPerMinute)
  AUTH_RATE_LIMIT_PER_MINUTE: string(authRateLimitPerMinute)
  TRUST_PROXY: string(trustProxy)
  MAX_CONCURRENT_PASSWORD_HASHES: string(maxConcurrentBcryptHashes)
  EMAIL_DAILY_QUOTA: string(emailDailyQuota)
  EMBED_TOKEN_TTL_SECONDS: string(embedTokenTtlSeconds)
}

// Turnstile settings only when it is on: with no secret the service ignores tokens (docs/api.md#captcha-cloudflare-turnstile).
var turnstileOnSettings = {
  TURNSTILE_SECRET_KEY: '@Microsoft.KeyVault(VaultName=${keyVaultName};SecretName=${secretNames.turnstileSecretKey})'
  TURNSTILE_REQUIRED: turnstileMode == 'required' ? 'true' : 'false'
}
var turnstileSettings = turnstileMode == 'off' ? {} : turnstileOnSettings
// The site key is public (the public link page hands it to the browser): a plain setting, only beside the secret.
var turnstileSiteKeySettings = turnstileMode == 'off' || empty(turnstileSiteKey) ? {} : { TURNSTILE_SITE_KEY: turnstileSiteKey }

var timestampSettings = union(empty(tsaUrl) ? {} : { TSA_URL: tsaUrl }, empty(sealLevel) ? {} : { SEAL_LEVEL: sealLevel })

// Text messages only when there is a sender (docs/api.md#sms): the connection string and the events'
// secret are Key Vault secrets the operator sets (docs/deploy.md).
var smsOnSettings = {
  ACS_CONNECTION_STRING: '@Microsoft.KeyVault(VaultName=${keyVaultName};SecretName=${secretNames.acsConnectionString})'
  SMS_FROM: smsFrom
  ACS_EVENT_SECRET: '@Microsoft.KeyVault(VaultName=${keyVaultName};SecretName=${secretNames.acsEventSecret})'
  SMS_DAILY_QUOTA: string(smsDailyQuota)
}
var smsSettings = empty(smsFrom) ? {} : smsOnSettings

var appSettings = union(baseSettings, turnstileSettings, turnstileSiteKeySettings, timestampSettings, smsSettings)

// Always-ready instances for the HTTP trigger group; none by default, so an idle app costs nothing.
var httpAlwaysReady = {
  name: 'http'
  instanceCount: httpAlwaysReadyInstances
}
var alwaysReady = httpAlwaysReadyInstances == 0 ? [] : [httpAlwaysReady]

resource site 'Microsoft.Web/sites@2024-04-01' = {
  name: name
  location: location
  // azd finds the app to deploy `api` to by this tag (azure.yaml).
  tags: union(tags, { 'azd-service-name': 'api' })
  kind: 'functionapp,linux'
  identity: {
    type: 'UserAssigned'
    userAssignedIdentities: {
      '${identityId}': {}
    }
  }
  properties: {
    serverFarmId: plan.id
    httpsOnly: true
    publicNetworkAccess: 'Enabled'
    // Key Vault references resolve with the user-assigned identity, not a system-assigned one.
    keyVaultReferenceIdentity: identityId
    siteConfig: {
      minTlsVersion: '1.2'
      http20Enabled: true
      // Browsers on other origins: the platform answers CORS, preflights included (the functions
      // register no OPTIONS method), from the same list as the Blob service's CORS (ALLOWED_ORIGINS).
      cors: {
        allowedOrigins: split(replace(allowedOrigins, ' ', ''), ',')
      }
    }
    functionAppConfig: {
      deployment: {
        storage: {
          type: 'blobContainer'
          value: '${storageAccount.properties.primaryEndpoints.blob}${deploymentContainerName}'
          authentication: {
            type: 'UserAssignedIdentity'
            userAssignedIdentityResourceId: identityId
          }
        }
      }
      scaleAndConcurrency: {
        instanceMemoryMB: instanceMemoryMB
        maximumInstanceCount: maximumInstanceCount
        alwaysReady: alwaysReady
      }
      runtime: {
        name: 'node'
        version: '22'
      }
    }
  }
}

// The app settings, as a whole: a deployment replaces them, so what is set here is all there is.
resource settings 'Microsoft.Web/sites/config@2024-04-01' = {
  parent: site
  name: 'appsettings'
  properties: appSettings
}

// No publishing with a user name and password: deployments authenticate with Entra ID
// (OpenID Connect in the workflow, `az login` or `azd auth login` on a laptop).
resource scmBasicAuth 'Microsoft.Web/sites/basicPublishingCredentialsPolicies@2024-04-01' = {
  parent: site
  name: 'scm'
  properties: {
    allow: false
  }
}

@description('Name of the Function App.')
output name string = site.name

@description('Default host name of the app, without scheme.')
output defaultHostName string = site.properties.defaultHostName
