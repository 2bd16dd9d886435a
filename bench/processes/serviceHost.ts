/**
 * The service under test: the local host (`startService`, as `npm start` and the e2e tests run it) on
 * a free port, against the storage named by the environment. Tells its parent the API URL.
 */
import { startService } from '../../src/local/service.js';
import { failToParent, tellParent } from '../lib/child.js';

try {
  const service = await startService({
    port: 0,
    // Only errors: a log line per request would measure the console.
    logHandler: (level, ...args) => {
      if (level === 'error' || level === 'critical') console.error(...args);
    },
  });
  process.on('message', (message: { type?: string; id?: number }) => {
    if (message.type === 'stop') void service.close().finally(() => process.exit(0));
    if (message.type === 'memory') tellParent({ type: 'reply', id: message.id ?? 0, result: process.memoryUsage() });
  });
  tellParent({ type: 'ready', apiUrl: service.apiUrl, pid: process.pid });
} catch (error) {
  failToParent(error);
}
