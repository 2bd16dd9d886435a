// Text messages' events (docs/api.md#events-from-communication-services): an Event Grid system topic
// on the Communication Service of modules/email.bicep, and a subscription that delivers its SMS
// events (replies such as STOP, and delivery reports) to the app's POST /api/events/acs, proving
// itself with the shared secret ACS_EVENT_SECRET in the URL's `code`.
//
// Creating the subscription makes Event Grid run its validation handshake against the app, so the
// subscription is made only when the secret is given: on a provision after the app's code is deployed
// (docs/deploy.md). The texts themselves go out with ACS_CONNECTION_STRING (a Key Vault secret the
// operator sets, since no key is read out of a resource here) from SMS_FROM, a number bought in the
// Communication Service or an alphanumeric sender id (a portal or CLI step: ARM has no resource for it).

@description('Name of the Communication Service that sends the texts (modules/email.bicep).')
param communicationServiceName string

@description('Host name of the Function App that receives the events (its default host name, or your own domain).')
param appHostName string

@secure()
@description('The shared secret of the events (ACS_EVENT_SECRET, 32 to 128 letters, digits, _ and -). Empty: the system topic is created without the subscription.')
param acsEventSecret string = ''

@description('Tags for every resource.')
param tags object = {}

resource communicationService 'Microsoft.Communication/communicationServices@2023-04-01' existing = {
  name: communicationServiceName
}

resource systemTopic 'Microsoft.EventGrid/systemTopics@2022-06-15' = {
  name: 'evgt-${communicationServiceName}'
  location: 'global'
  tags: tags
  properties: {
    source: communicationService.id
    topicType: 'Microsoft.Communication.CommunicationServices'
  }
}

resource smsEvents 'Microsoft.EventGrid/systemTopics/eventSubscriptions@2022-06-15' = if (!empty(acsEventSecret)) {
  parent: systemTopic
  name: 'sms-to-app'
  properties: {
    destination: {
      endpointType: 'WebHook'
      properties: {
        endpointUrl: 'https://${appHostName}/api/events/acs?code=${acsEventSecret}'
        maxEventsPerBatch: 10
        preferredBatchSizeInKilobytes: 64
      }
    }
    filter: {
      includedEventTypes: [
        'Microsoft.Communication.SMSReceived'
        'Microsoft.Communication.SMSDeliveryReportReceived'
      ]
    }
    eventDeliverySchema: 'EventGridSchema'
    // A STOP must not be lost while the app is briefly away: Event Grid retries for a day.
    retryPolicy: {
      maxDeliveryAttempts: 30
      eventTimeToLiveInMinutes: 1440
    }
  }
}

@description('Name of the Event Grid system topic of the Communication Service.')
output systemTopicName string = systemTopic.name
