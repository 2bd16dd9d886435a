/**
 * A second instance of the service for tests: the local host (`startService`) in a Node process of
 * its own, against the storage named by the environment it inherits. Its memory (caches of token
 * users, API keys, signing links) is its own, as another Function App instance's would be. Tells its
 * parent the API URL; stops when told to, or when the parent goes away. It runs the queue and timer
 * functions too when its environment says `TEST_SERVICE_TRIGGERS=true` (an instance that takes queued
 * work, and may die with it); `TEST_SERVICE_QUEUES` (comma-separated queue names) narrows those to
 * the functions of the queues named.
 */
import { startService } from '../../src/local/service.js';

const service = await startService({
  port: 0,
  triggers: process.env.TEST_SERVICE_TRIGGERS === 'true',
  ...(process.env.TEST_SERVICE_QUEUES ? { queues: process.env.TEST_SERVICE_QUEUES.split(',') } : {}),
  logHandler: (level, ...args) => {
    if (level === 'error' || level === 'critical') console.error(...args);
  },
});
const stop = () => void service.close().finally(() => process.exit(0));
process.on('message', (message: { type?: string }) => {
  if (message.type === 'stop') stop();
});
process.on('disconnect', stop);
process.send!({ type: 'ready', apiUrl: service.apiUrl });
